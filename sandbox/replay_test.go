package sandbox

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"net/http/httptest"

	"github.com/visualq/vq/internal/testkit"
)

// bounded is the tests' client: no request waits past a minute.
var bounded = &http.Client{Timeout: time.Minute}

// send sends body to url with key and answers the status, the
// Content-Type and the body.
func send(t *testing.T, url, key, body string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := bounded.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

func startReplay(t *testing.T, opts Options, files map[string]string) *Server {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Replay(opts, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// A recording, edited by hand as a person would: answers by meaning
// (key order, JSON-RPC ids, _meta aside), in order then the last again,
// the request's own id and progress token on an MCP answer, links to the
// replaying server, and refusals of the rest.
func TestReplayAnswersByMeaningInOrder(t *testing.T) {
	t.Parallel()
	s := startReplay(t, Options{Addr: "127.0.0.1:0"}, map[string]string{
		"0001-get_job_status.json": `{"request": {"method": "POST", "url": "/api/mcp/v1/invoke", "json": {"tool": "get_job_status", "args": {"jobId": "j1", "x": 1}}},
			"response": {"status": 200, "header": {"Content-Type": ["application/json"]}, "json": {"ok": true, "data": {"status": "running", "url": "{{base}}/jobs/j1"}}}}`,
		"0002-get_job_status.json": `{"request": {"method": "POST", "url": "/api/mcp/v1/invoke", "json": {"args": {"x": 1, "jobId": "j1"}, "tool": "get_job_status"}},
			"response": {"status": 200, "json": {"ok": true, "data": {"status": "completed"}}}}`,
		"0003-mcp-run_tracking.json": `{"request": {"method": "POST", "url": "/api/mcp", "json": {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
			"params": {"_meta": {"progressToken": "vq-7"}, "name": "run_tracking", "arguments": {"token": "t1"}}}},
			"response": {"status": 200, "header": {"Content-Type": ["text/event-stream"]}, "events": [
				{"event": "message", "data": {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "vq-7", "progress": 1, "total": 4}}},
				{"event": "message", "data": {"jsonrpc": "2.0", "id": 7, "result": {"content": []}}}]}}`,
	})
	invoke, mcp := s.URL()+"/api/mcp/v1/invoke", s.URL()+"/api/mcp"
	poll := `{"tool": "get_job_status", "args": {"jobId": "j1", "x": 1}}`
	for i, want := range []string{
		`{"ok":true,"data":{"status":"running","url":"` + s.URL() + `/jobs/j1"}}` + "\n",
		`{"ok":true,"data":{"status":"completed"}}` + "\n",
		`{"ok":true,"data":{"status":"completed"}}` + "\n",
	} {
		if status, _, body := send(t, invoke, "any-key-"+string(rune('a'+i)), poll); status != 200 || body != want {
			t.Errorf("poll %d: %d %s, want 200 %s", i+1, status, body, want)
		}
	}

	_, typ, body := send(t, mcp, "k", `{"params": {"arguments": {"token": "t1"}, "name": "run_tracking", "_meta": {"progressToken": 42}}, "method": "tools/call", "id": "abc", "jsonrpc": "2.0"}`)
	want := "event: message\ndata: " + `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1,"progressToken":42,"total":4}}` + "\n\n" +
		"event: message\ndata: " + `{"id":"abc","jsonrpc":"2.0","result":{"content":[]}}` + "\n\n"
	if typ != "text/event-stream" || body != want {
		t.Errorf("the MCP call answered %s:\n%s\nwant:\n%s", typ, body, want)
	}

	status, _, body := send(t, invoke, "k", `{"tool": "get_job_status", "args": {"jobId": "j2"}}`)
	if want := `get_job_status {\"jobId\":\"j2\"} was not recorded`; status != 400 || !strings.Contains(body, `"code":"validation_error"`) || !strings.Contains(body, want) {
		t.Errorf("an unrecorded invoke: %d %s", status, body)
	}
	status, _, body = send(t, s.URL()+"/api/ci/get_run_status", "k", `{"runId": "r9"}`)
	if want := `CI get_run_status {\"runId\":\"r9\"} was not recorded`; status != 400 || !strings.Contains(body, `"code":"validation_error"`) || !strings.Contains(body, want) {
		t.Errorf("an unrecorded CI call: %d %s", status, body)
	}
	status, _, body = send(t, mcp, "k", `{"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "run_tracking", "arguments": {"token": "t2"}}}`)
	if want := `{"error":{"code":-32602,"message":"MCP tools/call run_tracking {\"token\":\"t2\"} was not recorded: this replay answers only the requests its recording holds"},"id":9,"jsonrpc":"2.0"}` + "\n"; status != 200 || body != want {
		t.Errorf("an unrecorded MCP call: %d %s\nwant %s", status, body, want)
	}
	if status, _, _ = send(t, mcp, "k", `{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}}`); status != http.StatusAccepted {
		t.Errorf("an unrecorded notification: %d, want 202", status)
	}
	resp, err := bounded.Get(mcp)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("the MCP endpoint's GET stream: %d, want 405 (a replay sends nothing of its own)", resp.StatusCode)
	}

	// --fail-rate applies to a replay as to the sandbox.
	failing := startReplay(t, Options{Addr: "127.0.0.1:0", FailRate: 1}, map[string]string{"0001-x.json": `{"request": {"method": "GET", "url": "/x"}, "response": {"status": 204}}`})
	if status, _, _ := send(t, failing.URL()+"/x", "k", ""); status != http.StatusBadGateway {
		t.Errorf("--fail-rate 1: %d, want 502", status)
	}
}

// What the upstream echoes of a request's credentials reaches the client
// as it was, but the recording holds none of it: no request header, no
// cookie, and the key's value replaced wherever it appeared; the
// upstream's links point at the proxy, and are {{base}} in the file.
func TestRecordKeepsNoCredential(t *testing.T) {
	t.Parallel()
	const key, cookie = "vq_live_SECRET123", "session-SECRET456"
	var upstream *httptest.Server
	upstream = testkit.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _ := r.Cookie("sid")
		w.Header().Set("Set-Cookie", "sid="+cookie)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"ok":true,"data":{"auth":"`+r.Header.Get("Authorization")+`","cookie":"`+c.Value+`","url":"`+upstream.URL+`/runs/r1"}}`)
	}))
	dir := filepath.Join(t.TempDir(), "rec")
	var warnings []string
	rec, err := Record(Options{Addr: "127.0.0.1:0"}, dir, upstream.URL, func(msg string) { warnings = append(warnings, msg) })
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, rec.URL()+"/api/mcp/v1/invoke?k="+key, strings.NewReader(`{"tool":"get_run_failures","args":{"note":"`+key+`"}}`))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Cookie", "sid="+cookie)
	resp, err := bounded.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := `{"ok":true,"data":{"auth":"Bearer ` + key + `","cookie":"` + cookie + `","url":"` + rec.URL() + `/runs/r1"}}`; string(got) != want {
		t.Errorf("the client got %s\nwant %s", got, want)
	}
	if err := rec.Close(); err != nil || len(warnings) > 0 {
		t.Fatalf("close: %v, warnings %q", err, warnings)
	}
	file, err := os.ReadFile(filepath.Join(dir, "0001-get_run_failures.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{key, cookie, "Cookie", "Authorization", upstream.URL} {
		if bytes.Contains(file, []byte(secret)) {
			t.Errorf("the recording holds %q:\n%s", secret, file)
		}
	}
	if !bytes.Contains(file, []byte(`"url": "{{base}}/runs/r1"`)) || !bytes.Contains(file, []byte(`"auth": "Bearer [redacted]"`)) {
		t.Errorf("the recording:\n%s", file)
	}
}
