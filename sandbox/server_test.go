package sandbox

import (
	"bytes"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestUnauthorized(t *testing.T) {
	t.Parallel()
	ts := testServer(t, Options{})
	for name, key := range map[string]string{"missing key": "", "unknown key": "vqs_nope"} {
		t.Run(name, func(t *testing.T) {
			a := invoke(t, ts, key, "get_run_failures", map[string]any{"runId": "run_abc"})
			if a.status != http.StatusUnauthorized {
				t.Fatalf("status = %d, want 401", a.status)
			}
			if got := a.header.Get("WWW-Authenticate"); got != `Bearer realm="visualq"` {
				t.Errorf("WWW-Authenticate = %q", got)
			}
			body := a.toolResponse(t)
			if body["error"].(map[string]any)["code"] != "unauthorized" {
				t.Errorf("body = %s", a.body)
			}
		})
	}
}

// TestMalformedRequests covers the transport-level validation errors: they
// are still ToolResponses naming the problem.
func TestMalformedRequests(t *testing.T) {
	t.Parallel()
	ts := testServer(t, Options{})
	get, _ := http.NewRequest(http.MethodGet, ts.URL+"/api/mcp/v1/invoke", nil)
	get.Header.Set("Authorization", "Bearer "+KeyAdmin)
	tests := []struct {
		name    string
		answer  answer
		message string
	}{
		{"GET", do(t, get), "method GET is not allowed"},
		{"not JSON", post(t, ts, KeyAdmin, []byte("tool=get_run_failures")), "request body is not a JSON invoke request"},
		{"two documents", post(t, ts, KeyAdmin, []byte(`{"tool":"get_run_failures"} {}`)), "more than one JSON value"},
		{"no tool", post(t, ts, KeyAdmin, []byte(`{"args":{}}`)), "tool is required"},
		{"args not an object", post(t, ts, KeyAdmin, []byte(`{"tool":"get_run_failures","args":[1]}`)), "args must be an object, got array"},
		{"tool not a string", post(t, ts, KeyAdmin, []byte(`{"tool":7}`)), "tool must be a string, got number"},
		{"confirm as a string", invoke(t, ts, KeyAdmin, "approve_vrt_results", map[string]any{"runId": "run_abc", "confirm": "true"}), "confirm must be the boolean true, got a string: send confirm: true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.answer.status != http.StatusBadRequest {
				t.Errorf("status = %d, want 400", tt.answer.status)
			}
			resp := tt.answer.toolResponse(t)
			errObj, _ := resp["error"].(map[string]any)
			if resp["ok"] != false || errObj["code"] != "validation_error" || !strings.Contains(errObj["message"].(string), tt.message) {
				t.Errorf("want validation_error containing %q, got %s", tt.message, tt.answer.body)
			}
			if resp["warnings"] == nil || resp["nextActions"] == nil {
				t.Errorf("warnings and nextActions must be arrays: %s", tt.answer.body)
			}
		})
	}
}

// TestRateLimitUnderLoad fires concurrent calls at a small bucket: every
// call is answered, 200 or a 429 that says how long to wait.
func TestRateLimitUnderLoad(t *testing.T) {
	t.Parallel()
	ts := testServer(t, Options{Rate: 2, Burst: 5})
	const calls = 60
	answers := make([]answer, calls)
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			answers[i] = invoke(t, ts, KeyAdmin, "get_run_failures", map[string]any{"runId": "run_abc"})
		})
	}
	wg.Wait()
	var ok, limited int
	for _, a := range answers {
		switch a.status {
		case http.StatusOK:
			ok++
		case http.StatusTooManyRequests:
			limited++
			matchFixture(t, a.body, "rate_limit.json", ts.URL)
			if ms, _ := a.toolResponse(t)["retryAfterMs"].(float64); ms <= 0 {
				t.Errorf("retryAfterMs = %v, want > 0", ms)
			}
			if a.header.Get("Retry-After") == "" {
				t.Error("429 without Retry-After")
			}
		default:
			t.Errorf("status %d: %s", a.status, a.body)
		}
	}
	if ok+limited != calls || ok < 5 || ok > 7 {
		t.Errorf("%d answered 200 and %d 429 of %d; want the burst of 5 (plus refills) through", ok, limited, calls)
	}
	// Buckets are per key: another key is not held back.
	if a := invoke(t, ts, KeyReadOnly, "get_run_failures", map[string]any{"runId": "run_abc"}); a.status != http.StatusOK {
		t.Errorf("other key: status %d", a.status)
	}
}

func TestRateLimiterRefills(t *testing.T) {
	t.Parallel()
	now := time.Unix(0, 0)
	l := newRateLimiter(4, 1)
	l.now = func() time.Time { return now }
	if ok, _ := l.allow("k"); !ok {
		t.Fatal("first call refused")
	}
	ok, wait := l.allow("k")
	if ok || wait != 250*time.Millisecond {
		t.Fatalf("second call: ok=%v wait=%v, want refused for 250ms", ok, wait)
	}
	now = now.Add(wait)
	if ok, _ := l.allow("k"); !ok {
		t.Error("refused after waiting retryAfter")
	}
	if newRateLimiter(-1, 0) != nil {
		t.Error("a negative rate must disable the limiter")
	}
}

func TestFaults(t *testing.T) {
	t.Parallel()
	t.Run("gateway failures", func(t *testing.T) {
		ts := testServer(t, Options{FailRate: 1})
		a := invoke(t, ts, KeyAdmin, "get_run_failures", map[string]any{"runId": "run_abc"})
		if a.status != http.StatusBadGateway || !bytes.Contains(a.body, []byte("<title>502 Bad Gateway</title>")) {
			t.Errorf("got %d %s", a.status, a.body)
		}
	})
	t.Run("latency", func(t *testing.T) {
		ts := testServer(t, Options{Latency: 50 * time.Millisecond})
		start := time.Now()
		invoke(t, ts, KeyAdmin, "get_run_failures", map[string]any{"runId": "run_abc"})
		if took := time.Since(start); took < 50*time.Millisecond {
			t.Errorf("answered in %v, want at least the 50ms latency", took)
		}
	})
}

func TestStartAndClose(t *testing.T) {
	t.Parallel()
	s, err := Start(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") {
		t.Errorf("URL() = %q", s.URL())
	}
	req, _ := http.NewRequest(http.MethodPost, s.URL()+"/api/mcp/v1/invoke",
		strings.NewReader(`{"tool":"get_run_failures","args":{"runId":"run_abc"}}`))
	req.Header.Set("Authorization", "Bearer "+KeyAdmin)
	if a := do(t, req); a.status != http.StatusOK {
		t.Fatalf("status %d: %s", a.status, a.body)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := http.Post(s.URL()+"/api/mcp/v1/invoke", "application/json", nil); err == nil {
		t.Error("server still answers after Close")
	}
	if err := New(Options{}).Close(); err != nil {
		t.Errorf("Close of an unstarted server: %v", err)
	}
}

func TestKeys(t *testing.T) {
	t.Parallel()
	keys := Keys()
	if len(keys) != 3 || keys[0].Token != KeyAdmin {
		t.Fatalf("Keys() = %+v", keys)
	}
	keys[0].Token = "changed"
	if Keys()[0].Token != KeyAdmin {
		t.Error("Keys() exposes the server's own table")
	}
}

// The MCP endpoint takes a key as the invoke endpoint does: the scheme's
// case does not matter, the key's does.
func TestMCPEndpointTakesKeysAsInvokeDoes(t *testing.T) {
	t.Parallel()
	ts := testServer(t, Options{})
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	for auth, want := range map[string]int{"Bearer vqs_admin": 200, "bearer vqs_admin": 200, "BEARER vqs_readonly": 200, "Bearer VQS_ADMIN": 401, "": 401} {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/api/mcp", strings.NewReader(initialize))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != want {
			t.Errorf("Authorization %q: HTTP %d, want %d", auth, res.StatusCode, want)
		}
		if id := res.Header.Get("Mcp-Session-Id"); id != "" {
			// The session the initialize opened is the test's to end.
			end, _ := http.NewRequest(http.MethodDelete, ts.URL+"/api/mcp", nil)
			end.Header.Set("Authorization", auth)
			end.Header.Set("Mcp-Session-Id", id)
			if res, err := http.DefaultClient.Do(end); err == nil {
				res.Body.Close()
			}
		}
	}
}
