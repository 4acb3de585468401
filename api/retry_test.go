package api

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/visualq/vq/internal/testkit"
)

// A 429 that carries no ToolResponse (a gateway's text or HTML) is still a
// rate limit: waited out as Retry-After says, then retried.
func TestA429WithoutAToolResponseIsARateLimit(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	s := testkit.NewServer(t, testkit.Script(testkit.Reply{Status: 429, Body: "<html>slow down</html>", Header: map[string]string{"Retry-After": "0", "Content-Type": "text/html"}},
		testkit.Answer(200, `{"ok":true,"tool":"t","summary":"done","data":null,"warnings":[],"nextActions":[]}`),
	))
	resp, err := newClient(s, Options{}).Invoke(ctx, Call{Tool: "t"})
	if err != nil || !resp.OK || s.Count() != 2 {
		t.Fatalf("resp %+v err %v after %d calls; want ok after a retry", resp, err, s.Count())
	}
	s = testkit.NewServer(t, testkit.Script(testkit.Reply{Status: 429, Body: "Too Many Requests", Header: map[string]string{"Retry-After": "2"}}))
	resp, _ = newClient(s, Options{NoRetry: true}).Invoke(ctx, Call{Tool: "t"})
	if resp.ErrorCode() != CodeRateLimit || resp.RetryAfterMs != 2000 || !resp.IsRecoverable() {
		t.Errorf("got %s, retryAfterMs %d", resp.ErrorCode(), resp.RetryAfterMs)
	}
}

// Retry-After as an HTTP date is honoured; one so large it would overflow
// is clamped, so it is more than vq waits, never a negative wait.
func TestRetryAfterDatesAndOverflow(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	at := time.Now().Add(10 * time.Second).UTC().Format(http.TimeFormat)
	if ms := retryAfterHeader(at); ms < 8000 || ms > 10000 {
		t.Errorf("Retry-After %s: %d ms", at, ms)
	}
	for _, v := range []string{"99999999999999999", "9223372036854775807", "-5", "soon", ""} {
		if ms := retryAfterHeader(v); ms < 0 || ms > maxRetryAfterMs {
			t.Errorf("Retry-After %q: %d ms", v, ms)
		}
	}
	r := &ToolResponse{RetryAfterMs: 1<<63 - 1}
	if d := r.RetryAfter(); d <= 0 || d > 24*time.Hour {
		t.Errorf("retryAfterMs max int64 waits %s", d)
	}
	s := testkit.NewServer(t, testkit.Always(429, testkit.RateLimit("t", "msg rate_limit", 1<<62-1, testkit.Summary("rate_limit"))))
	start := time.Now()
	resp, _ := newClient(s, Options{RateLimitBudget: time.Second}).Invoke(ctx, Call{Tool: "t"})
	if resp.ErrorCode() != CodeRateLimit || s.Count() != 1 || time.Since(start) > 5*time.Second {
		t.Errorf("a wait past the budget: %s after %d calls in %s", resp.ErrorCode(), s.Count(), time.Since(start))
	}
}

// While the server rate limits a client's calls they take turns; once it
// has not for rateLimitQuiet past the wait it asked for, the calls go side
// by side again (a long-lived vq mcp serve is not held to one call at a
// time by a 429 long gone).
func TestRateLimitedCallsTakeTurnsOnlyWhileLimited(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	var (
		mu                   sync.Mutex
		sent, inFlight, most int
		side                 = make(chan struct{}) // closed when two calls are in flight
		sideBySide           sync.Once
	)
	ts := testkit.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		sent++
		n := sent
		if n == 1 {
			mu.Unlock()
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"ok":false,"tool":"t","summary":"slow down","data":null,"warnings":[],"nextActions":[],"error":{"code":"rate_limit","message":"slow down"},"recoverable":true,"retryAfterMs":1}`))
			return
		}
		inFlight++
		most = max(most, inFlight)
		if inFlight == 2 {
			sideBySide.Do(func() { close(side) })
		}
		mu.Unlock()
		if n > 2 { // the calls after the limit's retry: wait (bounded) for one beside it
			select {
			case <-side:
			case <-time.After(testkit.Patience):
			case <-r.Context().Done():
			}
		}
		mu.Lock()
		inFlight--
		mu.Unlock()
		w.Write([]byte(`{"ok":true,"tool":"t","summary":"done","data":null,"warnings":[],"nextActions":[]}`))
	}))
	c := New(Options{BaseURL: ts.URL})
	if resp, err := c.Invoke(ctx, Call{Tool: "t"}); err != nil || !resp.OK {
		t.Fatalf("the rate-limited call: %+v %v", resp, err)
	}
	if !c.gate.limited() {
		t.Fatal("a 429 just now: the calls should take turns")
	}
	later := time.Now().Add(rateLimitQuiet + time.Second)
	c.gate.now = func() time.Time { return later }
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			if resp, err := c.Invoke(ctx, Call{Tool: "t"}); err != nil || !resp.OK {
				t.Errorf("a call after the quiet: %+v %v", resp, err)
			}
		})
	}
	wg.Wait()
	if most < 2 {
		t.Errorf("at most %d call in flight after the quiet: they still take turns", most)
	}
}
