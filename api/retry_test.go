package api

import (
	"net/http"
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
