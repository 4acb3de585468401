package api

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/visualq/vq/internal/testkit"
)

// newClient is a client of the fake server s with a key of its own,
// unless opts give one.
func newClient(s *testkit.Server, opts Options) *Client {
	opts.BaseURL = s.URL
	if opts.APIKey == "" {
		opts.APIKey = "vqs_secret_key"
	}
	return New(opts)
}

func TestInvokeSendsTheContractRequest(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	s := testkit.NewServer(t, testkit.Always(200, testkit.OK("get_run_failures", "done", map[string]any{"n": 1})))
	c := newClient(s, Options{Project: "shop-web"})
	resp, err := c.Invoke(ctx, Call{Tool: "get_run_failures", Args: map[string]any{"runId": "run_abc"}})
	if err != nil || !resp.OK || resp.Summary != "done" {
		t.Fatalf("resp %+v err %v", resp, err)
	}
	if got := s.Last().Header.Get("Authorization"); got != "Bearer vqs_secret_key" {
		t.Errorf("Authorization = %q", got)
	}
	want := `{"tool":"get_run_failures","args":{"runId":"run_abc"},"project":"shop-web"}`
	if got := string(s.Last().Raw); got != want {
		t.Errorf("body = %s, want %s", got, want)
	}
}

func TestEveryContractStatusDecodesAToolResponse(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	for _, tc := range []struct {
		status int
		code   string
	}{{400, "validation_error"}, {400, "confirm_required"}, {403, "scope_denied"}, {403, "plan_gate"}, {404, "not_found"}, {422, "proof_failed"}} {
		s := testkit.NewServer(t, testkit.Always(tc.status, testkit.Failure("t", tc.code, "msg "+tc.code, true, testkit.Summary(tc.code))))
		resp, _ := newClient(s, Options{}).Invoke(ctx, Call{Tool: ToolRunFailures})
		if resp.ErrorCode() != tc.code || s.Count() != 1 {
			t.Errorf("HTTP %d: code %q after %d calls, want %q after 1 (refusals are never retried)", tc.status, resp.ErrorCode(), s.Count(), tc.code)
		}
		if resp.Raw == nil {
			t.Errorf("HTTP %d: the server's bytes were not kept", tc.status)
		}
	}
}

func TestBodiesThatAreNotToolResponsesBecomeHTTPErrors(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	for _, tc := range []struct {
		name, body string
		status     int
		wantMsg    string
		wantHits   int
	}{
		{"gateway html", "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>", 502, "HTTP 502 Bad Gateway: 502 Bad Gateway nginx", 2},
		{"empty 502", "", 502, "HTTP 502 Bad Gateway with an empty body", 2},
		{"truncated json", `{"ok":true,"tool":"t","summ`, 200, `HTTP 200 OK: {"ok":true,"tool":"t","summ`, 1},
		{"json without ok", `{"hello":"world"}`, 200, `HTTP 200 OK: {"hello":"world"}`, 1},
		{"wrong types", `{"ok":"yes","nextActions":{}}`, 200, `HTTP 200 OK: {"ok":"yes","nextActions":{}}`, 1},
		{"control chars", "\x1b[31mred\x1b]0;title\x07", 500, "HTTP 500 Internal Server Error: [31mred ]0;title", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := testkit.NewServer(t, testkit.Always(tc.status, tc.body))
			resp, _ := newClient(s, Options{}).Invoke(ctx, Call{Tool: ToolRunFailures})
			if resp.ErrorCode() != CodeHTTPError || !resp.IsRecoverable() || resp.Raw != nil {
				t.Fatalf("got %+v", resp)
			}
			if resp.Error.Message != tc.wantMsg {
				t.Errorf("message %q, want %q", resp.Error.Message, tc.wantMsg)
			}
			if s.Count() != tc.wantHits {
				t.Errorf("%d requests, want %d (5xx is retried once)", s.Count(), tc.wantHits)
			}
		})
	}
}

func TestConnectionRefusedIsAnHTTPError(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	c := New(Options{BaseURL: "http://" + addr, APIKey: "k", NoRetry: true})
	resp, err := c.Invoke(ctx, Call{Tool: ToolRunFailures})
	if err != nil || resp.ErrorCode() != CodeHTTPError || !strings.Contains(resp.Error.Message, "connection refused") {
		t.Fatalf("got %+v, %v", resp.Error, err)
	}
}

func TestTimeoutIsAnHTTPErrorAndNotRetried(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	var hits atomic.Int32
	block := make(chan struct{})
	srv := testkit.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer close(block)
	c := New(Options{BaseURL: srv.URL, APIKey: "k", Timeout: 100 * time.Millisecond})
	resp, _ := c.Invoke(ctx, Call{Tool: ToolRunFailures})
	if resp.ErrorCode() != CodeHTTPError || !strings.Contains(resp.Error.Message, "timed out") || !resp.Failure.TimedOut {
		t.Fatalf("got %+v, timed out %v", resp.Error, resp.Failure.TimedOut)
	}
	if hits.Load() != 1 {
		t.Errorf("%d requests; a timeout must not be retried", hits.Load())
	}
}

func TestCutConnectionIsRetriedOnce(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	var hits atomic.Int32
	srv := testkit.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			w.Header().Set("Content-Length", "500")
			w.WriteHeader(200)
			io.WriteString(w, `{"ok":true,`)
			w.(http.Flusher).Flush()
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
			return
		}
		io.WriteString(w, testkit.OK("t", "done", map[string]any{"n": 1}))
	}))
	resp, _ := New(Options{BaseURL: srv.URL, APIKey: "k"}).Invoke(ctx, Call{Tool: ToolRunFailures})
	if !resp.OK || hits.Load() != 2 {
		t.Fatalf("ok=%v after %d requests, want ok after 2", resp.OK, hits.Load())
	}
}

func TestRateLimitWaitsRetryAfterThenSucceeds(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	s := testkit.NewServer(t, testkit.Script(testkit.Answer(429, testkit.RateLimit("t", "slow down", 300)), testkit.Answer(200, testkit.OK("t", "done", map[string]any{"n": 1}))))
	var notices []string
	start := time.Now()
	resp, _ := newClient(s, Options{Notify: func(m string) { notices = append(notices, m) }}).Invoke(ctx, Call{Tool: ToolRunFailures})
	if elapsed := time.Since(start); elapsed < 300*time.Millisecond {
		t.Errorf("retried after %s, before retryAfterMs (300ms)", elapsed)
	}
	if !resp.OK || s.Count() != 2 {
		t.Fatalf("ok=%v after %d requests", resp.OK, s.Count())
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "rate limited, retrying in 300ms") {
		t.Errorf("notices %q", notices)
	}
}

// A server's cookie never comes back: the API key is the one credential vq
// sends, so a server (or one on its path) plants nothing in later calls.
func TestACookieTheServerSetsIsNeverSentBack(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	set := map[string]string{"Set-Cookie": "session=planted; Path=/"}
	s := testkit.NewServer(t, testkit.Script(testkit.Reply{Status: 429, Body: testkit.RateLimit("t", "slow down", 1), Header: set},
		testkit.Reply{Status: 200, Body: testkit.OK("t", "done", nil), Header: set}))
	c := newClient(s, Options{})
	for range 2 { // a retry within one call, then another call
		if resp, err := c.Invoke(ctx, Call{Tool: ToolRunFailures}); err != nil || !resp.OK {
			t.Fatalf("resp %+v err %v", resp, err)
		}
	}
	for i, call := range s.Calls() {
		if got := call.Header.Get("Cookie"); got != "" {
			t.Errorf("request %d sent Cookie %q", i+1, got)
		}
	}
	if s.Count() != 3 {
		t.Errorf("%d requests, want 3", s.Count())
	}
}

func TestRateLimitForeverStopsWithinTheBudget(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	s := testkit.NewServer(t, testkit.Always(429, testkit.RateLimit("t", "msg rate_limit", 100, testkit.Summary("rate_limit"))))
	resp, _ := newClient(s, Options{RateLimitBudget: 350 * time.Millisecond}).Invoke(ctx, Call{Tool: ToolRunFailures})
	if resp.ErrorCode() != CodeRateLimit {
		t.Fatalf("code %q", resp.ErrorCode())
	}
	if got := s.Count(); got != 4 {
		t.Errorf("%d requests; a 350ms budget of 100ms waits allows 1+3", got)
	}
}

func TestRetryAfterHeaderIsTheFallback(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	s := testkit.NewServer(t, testkit.Script(testkit.Reply{Status: 429, Body: testkit.Failure("t", "rate_limit", "msg rate_limit", true, testkit.Summary("rate_limit")), Header: map[string]string{"Retry-After": "7"}}))
	resp, _ := newClient(s, Options{NoRetry: true}).Invoke(ctx, Call{Tool: ToolRunFailures})
	if resp.RetryAfterMs != 7000 {
		t.Errorf("RetryAfterMs = %d, want 7000 from Retry-After", resp.RetryAfterMs)
	}
}

func TestToolErrorRetriedOnceThenReported(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	s := testkit.NewServer(t, testkit.Always(422, testkit.Failure("t", "tool_error", "msg tool_error", true, testkit.Summary("tool_error"))))
	resp, _ := newClient(s, Options{}).Invoke(ctx, Call{Tool: ToolRunFailures})
	if resp.ErrorCode() != CodeToolError || s.Count() != 2 {
		t.Fatalf("code %q after %d requests, want tool_error after 2", resp.ErrorCode(), s.Count())
	}
}

// A readiness lock is a refusal even when a server words it as a
// tool_error: the call is sent once, not again.
func TestReadinessLockIsNotRetriedWhateverItsCode(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	body := strings.Replace(testkit.Failure("t", "tool_error", "msg tool_error", true, testkit.Summary("tool_error")), "msg tool_error", "Project shop-web is still being analysed: 3 of 5 sources analysed", 1)
	s := testkit.NewServer(t, testkit.Always(422, body))
	resp, _ := newClient(s, Options{}).Invoke(ctx, Call{Tool: "approve_vrt_results"})
	if resp.ErrorCode() != CodeToolError || s.Count() != 1 {
		t.Fatalf("code %q after %d requests, want the refusal after 1", resp.ErrorCode(), s.Count())
	}
}

func TestNoRetryMeansOneRequest(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	s := testkit.NewServer(t, testkit.Always(422, testkit.Failure("t", "tool_error", "msg tool_error", true, testkit.Summary("tool_error"))))
	newClient(s, Options{NoRetry: true}).Invoke(ctx, Call{Tool: ToolRunFailures})
	if s.Count() != 1 {
		t.Fatalf("%d requests with NoRetry", s.Count())
	}
}

func TestUnauthorizedIsNeverRetried(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	s := testkit.NewServer(t, testkit.Script(testkit.Reply{Status: 401, Body: "", Header: map[string]string{"WWW-Authenticate": `Bearer realm="vq", resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource"`}}))
	resp, _ := newClient(s, Options{}).Invoke(ctx, Call{Tool: ToolRunFailures})
	if resp.ErrorCode() != CodeUnauthorized || s.Count() != 1 {
		t.Fatalf("code %q after %d requests", resp.ErrorCode(), s.Count())
	}
	if meta, refused := resp.Failure.ResourceMetadata, resp.Failure.CredentialRefused; !refused || meta != "http://127.0.0.1:1/.well-known/oauth-protected-resource" {
		t.Errorf("CredentialRefused = %q, %v; want the challenge's resource metadata", meta, refused)
	}
}

func TestBodyCap(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	big := `{"ok":true,"tool":"t","summary":"` + strings.Repeat("x", 5000) + `"}`
	s := testkit.NewServer(t, testkit.Always(200, big))
	resp, _ := newClient(s, Options{MaxBodyBytes: 1024}).Invoke(ctx, Call{Tool: ToolRunFailures})
	if resp.ErrorCode() != CodeHTTPError || !strings.Contains(resp.Error.Message, "response body too large") {
		t.Fatalf("got %+v", resp.Error)
	}
}

func TestCrossHostRedirectDoesNotCarryTheKey(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	var leaked atomic.Value
	other := testkit.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked.Store(r.Header.Get("Authorization"))
		io.WriteString(w, testkit.OK("t", "done", map[string]any{"n": 1}))
	}))
	// "localhost" and "127.0.0.1" are different hosts to the client.
	target := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
	s := testkit.NewServer(t, testkit.Script(testkit.Reply{Status: 307, Body: "", Header: map[string]string{"Location": target + "/api/mcp/v1/invoke"}}))
	resp, _ := newClient(s, Options{}).Invoke(ctx, Call{Tool: ToolRunFailures})
	if v, _ := leaked.Load().(string); v != "" {
		t.Fatalf("the other host received Authorization %q", v)
	}
	if resp.ErrorCode() != CodeHTTPError || !strings.Contains(resp.Error.Message, "refused redirect to another host") {
		t.Errorf("got %+v", resp.Error)
	}
}

func TestDebugTraceRedactsCredentials(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	s := testkit.NewServer(t, testkit.Always(200, `{"ok":true,"tool":"t","summary":"token is vqs_admin_leak","data":{"apiKey":"sekret-value","access_token":"abc"},"warnings":[],"nextActions":[]}`))
	var trace bytes.Buffer
	c := newClient(s, Options{APIKey: "my-very-secret-key", Debug: &trace})
	c.Invoke(ctx, Call{Tool: "t", Args: map[string]any{"password": "hunter2", "note": "my-very-secret-key"}})
	out := trace.String()
	for _, secret := range []string{"my-very-secret-key", "vqs_admin_leak", "sekret-value", "hunter2", `"access_token":"abc"`} {
		if strings.Contains(out, secret) {
			t.Errorf("trace shows %q:\n%s", secret, out)
		}
	}
	for _, want := range []string{"> POST " + s.URL + "/api/mcp/v1/invoke", "Authorization: Bearer [redacted]", "< 200 OK in "} {
		if !strings.Contains(out, want) {
			t.Errorf("trace lacks %q:\n%s", want, out)
		}
	}
}

func TestCancelledContextStopsAWait(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	s := testkit.NewServer(t, testkit.Always(429, testkit.RateLimit("t", "msg rate_limit", 10_000, testkit.Summary("rate_limit"))))
	ctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := newClient(s, Options{}).Invoke(ctx, Call{Tool: ToolRunFailures})
	if err == nil || time.Since(start) > 5*time.Second {
		t.Fatalf("err %v after %s", err, time.Since(start))
	}
}

func TestResourceMetadataParsing(t *testing.T) {
	t.Parallel()
	for header, want := range map[string]string{
		`Bearer resource_metadata="https://a/b"`:                        "https://a/b",
		`Bearer realm="x", resource_metadata=https://a/c, scope="read"`: "https://a/c",
		`Bearer xresource_metadata="nope"`:                              "",
		`Bearer resource_metadata="unterminated`:                        "",
		``:                                                              "",
		`Basic`:                                                         "",
	} {
		if got := ResourceMetadata(header); got != want {
			t.Errorf("ResourceMetadata(%q) = %q, want %q", header, got, want)
		}
	}
}

func TestRedirectPolicyRefusesAnotherHostAndADowngrade(t *testing.T) {
	t.Parallel()
	policy := sameHostRedirects()
	from, _ := http.NewRequest("POST", "https://vq.example/api/mcp/v1/invoke", nil)
	for target, allowed := range map[string]bool{
		"https://vq.example/elsewhere":  true,
		"http://vq.example/elsewhere":   false, // same host, the key in clear
		"https://evil.example/x":        false,
		"https://vq.example:8443/other": false,
	} {
		to, _ := http.NewRequest("POST", target, nil)
		if err := policy.Apply(to, []*http.Request{from}); (err == nil) != allowed {
			t.Errorf("redirect to %s: err %v, want allowed=%v", target, err, allowed)
		}
	}
}

func TestFormEncodedSecretsAreRedacted(t *testing.T) {
	t.Parallel()
	tr := &tracer{}
	out := tr.redact([]byte("grant_type=authorization_code&code=abc123&code_verifier=xyz&client_id=vq&refresh_token=r1"))
	for _, secret := range []string{"abc123", "xyz", "r1"} {
		if strings.Contains(out, secret) {
			t.Errorf("%q shows %s", out, secret)
		}
	}
	if !strings.Contains(out, "client_id=vq") || !strings.Contains(out, "code=[redacted]") {
		t.Errorf("redacted too much or too little: %q", out)
	}
}

// A public link is fetched without the key, within its cap, and a failed
// status is an error. Only the VisualQ server's origin is fetched from: a
// link to another port is refused unasked, and a redirect to one (302, or
// 307 with a body) is not followed; a redirect within the origin is.
func TestFetchPublic(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	var auth atomic.Value
	other := testkit.NewServer(t, testkit.Always(http.StatusOK, "secret"))
	srv := testkit.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth.Store(r.Header.Get("Authorization"))
		switch r.URL.Path {
		case "/small.png":
			w.Write(make([]byte, 100))
		case "/big.png":
			w.Write(make([]byte, 2000))
		case "/here.png":
			http.Redirect(w, r, "/small.png", http.StatusFound)
		case "/away.png":
			http.Redirect(w, r, other.URL+"/admin/secret.png", http.StatusFound)
		case "/away307.png":
			w.Header().Set("Location", other.URL+"/admin/secret.png")
			w.WriteHeader(http.StatusTemporaryRedirect)
			io.WriteString(w, "moved")
		default:
			http.NotFound(w, r)
		}
	}))
	c := New(Options{BaseURL: srv.URL, APIKey: "vqs_secret"})
	for _, link := range []string{"/small.png", "/here.png"} {
		if b, err := c.FetchPublic(ctx, srv.URL, srv.URL+link, 1000); err != nil || len(b) != 100 || auth.Load() != "" {
			t.Errorf("%s: %d bytes, %v, Authorization %q", link, len(b), err, auth.Load())
		}
	}
	if _, err := c.FetchPublic(ctx, srv.URL, srv.URL+"/big.png", 1000); !errors.Is(err, ErrBodyTooLarge) {
		t.Errorf("past the cap: %v", err)
	}
	if _, err := c.FetchPublic(ctx, srv.URL, srv.URL+"/gone.png", 1000); err == nil || err.Error() != "HTTP 404" {
		t.Errorf("missing: %v", err)
	}
	for _, link := range []string{"/away.png", "/away307.png"} {
		if b, err := c.FetchPublic(ctx, srv.URL, srv.URL+link, 1000); err == nil || err.Error() != "refused redirect to another host ("+strings.TrimPrefix(other.URL, "http://")+")" {
			t.Errorf("%s: %q, %v", link, b, err)
		}
	}
	_, err := c.FetchPublic(ctx, srv.URL, other.URL+"/admin/secret.png", 1000)
	if err == nil || err.Error() != "image on "+strings.TrimPrefix(other.URL, "http://")+", not on the VisualQ server" {
		t.Errorf("a link to another port: %v", err)
	}
	if n := len(other.Calls()); n != 0 {
		t.Errorf("the other port received %d requests", n)
	}
}
