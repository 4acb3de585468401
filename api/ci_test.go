package api

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/visualq/vq/internal/testkit"
)

// TestCIAnswersBecomeToolResponses drives CallCI against each kind of CI
// answer and checks the wrapped response and how many requests the retry
// policy spent on it.
func TestCIAnswersBecomeToolResponses(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	for _, tc := range []struct {
		name        string
		replies     []testkit.Reply
		ok          bool
		code        string
		recoverable bool
		summary     string
		hits        int
	}{
		{"run started", []testkit.Reply{testkit.Answer(200, `{"runId":"run_1","status":"queued","url":"https://x/runs/run_1"}`)},
			true, "", false, "run run_1 queued", 1},
		{"failed run", []testkit.Reply{testkit.Answer(200, `{"runId":"run_1","status":"failed","progress":{"current":12,"total":12},"failed":3,"total":12}`)},
			true, "", false, "run run_1 failed: 3 of 12 checks", 1},
		{"any other JSON", []testkit.Reply{testkit.Answer(200, ` [1, 2] `)}, true, "", false, "get_run_status answered", 1},
		{"HTML with 200", []testkit.Reply{testkit.Answer(200, `<html>hi</html>`)}, false, CodeHTTPError, true, "HTTP 200 OK: hi", 1},
		{"empty 502, retried once", []testkit.Reply{testkit.Answer(502, ``)}, false, CodeHTTPError, true, "HTTP 502 Bad Gateway with an empty body", 2},
		{"5xx JSON is an http_error whatever its code", []testkit.Reply{testkit.Answer(503, `{"error":{"code":"internal","message":"db down"}}`)},
			false, CodeHTTPError, true, "HTTP 503 Service Unavailable: ", 2},
		{"the body's code", []testkit.Reply{testkit.Answer(400, `{"error":{"code":"validation_error","message":"runId is required"}}`)},
			false, CodeValidation, true, "runId is required", 1},
		{"the body's recoverable flag", []testkit.Reply{testkit.Answer(403, `{"error":{"code":"scope_denied","message":"no","recoverable":true}}`)},
			false, CodeScopeDenied, true, "no", 1},
		{"404 without a code", []testkit.Reply{testkit.Answer(404, `{"message":"nope"}`)}, false, CodeNotFound, false, `HTTP 404 Not Found: {"message":"nope"}`, 1},
		{"401", []testkit.Reply{{Status: 401, Body: `{"error":{"code":"unauthorized","message":"missing API key"}}`, Header: map[string]string{"WWW-Authenticate": `Bearer realm="visualq"`}}},
			false, CodeUnauthorized, false, "the server did not accept the credential (HTTP 401)", 1},
		{"429 waits retryAfterMs", []testkit.Reply{testkit.Answer(429, `{"error":{"code":"rate_limit","message":"slow","retryAfterMs":5}}`), testkit.Answer(200, `{"runId":"r","status":"passed","total":4}`)},
			true, "", false, "run r passed: 4 checks", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := testkit.NewServer(t, testkit.Script(tc.replies...))
			resp, err := newClient(s, Options{}).CallCI(ctx, "get_run_status", map[string]any{"runId": "run_1"})
			if err != nil {
				t.Fatal(err)
			}
			if resp.OK != tc.ok || resp.ErrorCode() != tc.code || resp.Tool != "get_run_status" || !strings.Contains(resp.Summary, tc.summary) {
				t.Errorf("ok=%v code=%q tool=%q summary=%q", resp.OK, resp.ErrorCode(), resp.Tool, resp.Summary)
			}
			if !tc.ok && resp.IsRecoverable() != tc.recoverable {
				t.Errorf("recoverable=%v", resp.IsRecoverable())
			}
			if got := s.Count(); got != tc.hits {
				t.Errorf("%d requests, want %d", got, tc.hits)
			}
			if body := s.Last().Raw; string(body) != `{"runId":"run_1"}` || s.Last().Header.Get("Authorization") != "Bearer vqs_secret_key" {
				t.Errorf("sent %s with %v; want the args object and the key", body, s.Last().Header.Get("Authorization"))
			}
		})
	}
}

func TestCIDataIsTheAnswer(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	answer := `{"runId":"run_1","status":"running","extra":{"b":1,"a":2}}`
	s := testkit.NewServer(t, testkit.Always(200, "\n"+answer+"\n"))
	resp, _ := newClient(s, Options{Project: "shop-web"}).CallCI(ctx, ToolRunStatus, map[string]any{"runId": "run_1", "environment": "mine"})
	if string(resp.Data) != answer {
		t.Errorf("data %s, want the answer as sent", resp.Data)
	}
	if body := s.Last().Raw; string(body) != `{"environment":"mine","project":"shop-web","runId":"run_1"}` {
		t.Errorf("sent %s: the configured project joins the args, which win", body)
	}
	if newClient(s, Options{}).CIURL("a b/c") != s.URL+"/api/ci/a%20b%2Fc" {
		t.Errorf("CIURL %s", newClient(s, Options{}).CIURL("a b/c"))
	}
}

// TestRunAsJob maps each run status onto the job status Watch reads, its
// verdict worded as the run's reports word it (layout's sentence).
func TestRunAsJob(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ run, job string }{
		{`{"runId":"r","status":"queued"}`, `{"jobId":"r","status":"queued"}`},
		{`{"runId":"r","status":"running","progress":{"current":3,"total":12}}`, `{"jobId":"r","status":"running","progress":{"current":3,"total":12}}`},
		{`{"runId":"r","status":"passed","progress":{"current":12,"total":12}}`, `{"jobId":"r","status":"completed","progress":{"current":12,"total":12,"message":"passed"}}`},
		{`{"runId":"r","status":"failed","failed":3,"total":12}`, `{"jobId":"r","status":"failed","progress":{"current":0,"total":0,"message":"3 of 12 checks changed"}}`},
		// A failed run that counts no changed check says "failed", as its reports do, not "0 of 12 checks changed".
		{`{"runId":"r","status":"failed","failed":0,"total":12}`, `{"jobId":"r","status":"failed"}`},
		{`{"runId":"r","status":"error"}`, `{"jobId":"r","status":"failed","progress":{"current":0,"total":0,"message":"error"}}`},
		{`{"runId":"r","status":"cancelled"}`, `{"jobId":"r","status":"cancelled"}`},
		{`{"status":"passed"}`, `null`},
	} {
		got := RunAsJob(&ToolResponse{OK: true, Data: json.RawMessage(tc.run)})
		if string(got.Data) != tc.job {
			t.Errorf("%s → %s, want %s", tc.run, got.Data, tc.job)
		}
	}
	failed := RunAsJob(ClientError(ToolRunStatus, CodeHTTPError, "HTTP 502", true))
	if failed.ErrorCode() != CodeHTTPError || string(failed.Data) != "null" {
		t.Errorf("a failed poll: %+v", failed)
	}
}

// A failed run's answer carries its failing checks in data.failures, after
// the run's own members in the server's order, with the failures answer's
// warnings and next actions; a run whose data already holds failures, or
// a failures answer without them, leaves the run as it is.
func TestWithFailuresNestsTheChecksInTheRunsShape(t *testing.T) {
	t.Parallel()
	run := &ToolResponse{OK: true, Tool: ToolRunStatus, Data: []byte(`{"status":"failed","runId":"r","total":3}`), Warnings: []string{"w1"}}
	failures := &ToolResponse{OK: true, Tool: ToolRunFailures, Data: []byte(`{"runId":"r","failures":[{"scenarioLabel":"Home"}]}`),
		Warnings: []string{"w2"}, NextActions: []NextAction{{Label: "Inspect", Tool: ToolDiffStats}}}
	got := run.WithFailures(failures)
	if string(got.Data) != `{"status":"failed","runId":"r","total":3,"failures":[{"scenarioLabel":"Home"}]}` {
		t.Errorf("data %s", got.Data)
	}
	if got.Tool != ToolRunStatus || len(got.Warnings) != 2 || len(got.NextActions) != 1 || len(run.Warnings) != 1 {
		t.Errorf("got %+v (run now %+v)", got, run)
	}
	if doc, _ := got.Document(); !strings.Contains(string(doc), `"failures":[{"scenarioLabel":"Home"}]`) {
		t.Errorf("--json prints %s", doc)
	}
	for _, data := range []string{`{"failures":[],"status":"failed"}`} {
		r := &ToolResponse{OK: true, Tool: ToolRunStatus, Data: []byte(data)}
		if r.WithFailures(failures) != r {
			t.Errorf("%s: rewritten", data)
		}
	}
	if run.WithFailures(&ToolResponse{OK: true, Data: []byte(`{"runId":"r"}`)}) != run {
		t.Error("a failures answer without failures changed the run")
	}
}
