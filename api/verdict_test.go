package api

import (
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/visualq/vq/internal/testkit"
)

// resetAfterHeaders answers 200 headers, then resets the connection: the
// request reached the server, the answer never arrived.
func resetAfterHeaders(w http.ResponseWriter) {
	conn, rw, _ := http.NewResponseController(w).Hijack()
	rw.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n")
	rw.Flush()
	conn.(*net.TCPConn).SetLinger(0)
	conn.Close()
}

// The retry policy by write safety: an unexpected failure after the
// request reached the server is retried once for a read, never for a
// tool that may change something, which ends as maybe_applied with the
// read that checks it; a request that never reached the server goes again
// whatever the tool.
func TestRetriesAreKeyedOnWriteSafety(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	approve := Call{Tool: ToolApprove, Args: map[string]any{"runId": "run_1", "scenarioLabel": "Home", "confirm": true}}
	for _, tc := range []struct {
		name     string
		call     Call
		answer   func(w http.ResponseWriter)
		requests int
		code     string
	}{
		{"a read cut after headers", RunFailuresCall("run_1"), resetAfterHeaders, 2, CodeHTTPError},
		{"a write cut after headers", approve, resetAfterHeaders, 1, CodeMaybeApplied},
		{"a write's 502", approve, func(w http.ResponseWriter) { w.WriteHeader(http.StatusBadGateway) }, 1, CodeMaybeApplied},
		{"a write's tool_error", approve, func(w http.ResponseWriter) {
			w.WriteHeader(422)
			w.Write([]byte(testkit.Failure(ToolApprove, CodeToolError, "it broke", true)))
		}, 1, CodeToolError},
		{"a read's tool_error", RunFailuresCall("run_1"), func(w http.ResponseWriter) {
			w.WriteHeader(422)
			w.Write([]byte(testkit.Failure(ToolRunFailures, CodeToolError, "it broke", true)))
		}, 2, CodeToolError},
		{"a start cut after headers", Call{Tool: ToolRunTracking}, resetAfterHeaders, 1, CodeMaybeApplied},
		{"a tool vq does not know", Call{Tool: "custom"}, resetAfterHeaders, 1, CodeMaybeApplied},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := testkit.Wrap(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { tc.answer(w) }))
			resp, err := newClient(s, Options{}).Invoke(ctx, tc.call)
			if err != nil || resp.ErrorCode() != tc.code || s.Count() != tc.requests {
				t.Fatalf("%s after %d requests (%v), want %s after %d: %s", resp.ErrorCode(), s.Count(), err, tc.code, tc.requests, resp.ErrorMessage())
			}
			if tc.code != CodeMaybeApplied {
				return
			}
			if !strings.Contains(resp.ErrorMessage(), tc.call.Tool+" may have been applied: ") || !strings.Contains(resp.ErrorMessage(), "vq did not send it again") {
				t.Errorf("message %q", resp.ErrorMessage())
			}
			if check, ok := CheckCall(tc.call); ok && (len(resp.NextActions) != 1 || resp.NextActions[0].Tool != check.Tool) {
				t.Errorf("next actions %+v, want the check %s", resp.NextActions, check.Tool)
			}
		})
	}
	// Refused before anything was written: sent again, whatever the tool.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	var notes []string
	resp, _ := New(Options{BaseURL: "http://" + addr, APIKey: "k", Notify: func(m string) { notes = append(notes, m) }}).Invoke(ctx, approve)
	if resp.ErrorCode() != CodeHTTPError || len(notes) != 1 || !strings.Contains(notes[0], "retrying once") {
		t.Errorf("a refused write: %s, notes %q; want it retried once, then http_error", resp.ErrorCode(), notes)
	}
}

// An answer whose transport says it failed while it says ok is no success:
// a 4xx or 5xx carrying ok:true.
func TestAStatusThatContradictsItsBodyIsAFailure(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	for _, status := range []int{500, 422, 429} {
		s := testkit.NewServer(t, testkit.Always(status, testkit.OK(ToolRunFailures, "all good", nil)))
		resp, _ := newClient(s, Options{NoRetry: true}).Invoke(ctx, RunFailuresCall("run_1"))
		if resp.OK || resp.ErrorCode() != CodeHTTPError || !strings.Contains(resp.ErrorMessage(), "carrying an answer that says ok") {
			t.Errorf("HTTP %d with ok:true: %s %q", status, resp.ErrorCode(), resp.ErrorMessage())
		}
	}
}

// A verdict vq cannot read is never a pass: a run without a status, a
// status outside the documented set (named), or one given twice.
func TestRunVerdictsVQCannotReadAreNoVerdict(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]string{
		`{"runId":"r1"}`:                     "run r1 has no status",
		`{}`:                                 "names no runId",
		`{"runId":"r1","status":""}`:         "run r1 has no status",
		`null`:                               "no JSON object",
		`1`:                                  "no JSON object",
		`[]`:                                 "no JSON object",
		`{"runId":"r1","status":"exploded"}`: `run r1 answered status "exploded", which is none of queued, running, passed, failed, error, cancelled`,
		`{"runId":"r1","status":"failed","status":"passed"}`: "gives its status twice",
		`{"runId":"r1","status":1}`:                          "is no run",
		`{"runId":"r1","status":"passed"}`:                   "",
	} {
		r := RunVerdict(&ToolResponse{OK: true, Tool: ToolRunStatus, Data: []byte(body)})
		switch {
		case want == "" && !r.OK:
			t.Errorf("%s: %s", body, r.ErrorMessage())
		case want != "" && (r.OK || r.ErrorCode() != CodeNoVerdict || !strings.Contains(r.ErrorMessage(), want)):
			t.Errorf("%s: ok %v %s %q, want no_verdict %q", body, r.OK, r.ErrorCode(), r.ErrorMessage(), want)
		}
	}
}

// A job that ended failed or cancelled is no pass, whatever ok says; a
// status outside the set is named.
func TestJobVerdicts(t *testing.T) {
	t.Parallel()
	for status, want := range map[string]string{
		"completed": "", "running": "", "queued": "",
		"failed": CodeJobFailed, "cancelled": CodeJobCancelled, "exploded": CodeNoVerdict,
	} {
		r, err := DecodeToolResponse([]byte(testkit.JobStatus("job_1", status, 0, 0, "")))
		if err != nil {
			t.Fatal(err)
		}
		if got := JobVerdict(r); got.ErrorCode() != want {
			t.Errorf("status %s: %q, want %q", status, got.ErrorCode(), want)
		}
	}
}

// A proof passes only proven; ok:true with a failed verdict is the
// proof_failed the contract says it carries.
func TestProofVerdicts(t *testing.T) {
	t.Parallel()
	for result, want := range map[string]string{
		`{"proofVerdict":"proven"}`: "",
		`{"proofVerdict":"failed"}`: CodeProofFailed,
		`{"proofVerdict":"maybe"}`:  CodeNoVerdict,
		`{"jiraMarkdown":"x"}`:      CodeNoVerdict,
	} {
		r := &ToolResponse{OK: true, Tool: ToolJobStatus, Data: []byte(`{"jobId":"j","status":"completed","result":` + result + `}`)}
		if got := ProofVerdict(r); got.ErrorCode() != want {
			t.Errorf("%s: %q, want %q", result, got.ErrorCode(), want)
		}
	}
}

// A duplicate ok, and ok:true with an error, are malformed answers.
func TestSelfContradictingToolResponsesAreMalformed(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		`{"ok":false,"tool":"t","ok":true}`,
		`{"ok":true,"tool":"t","error":{"code":"tool_error","message":"x"}}`,
	} {
		if _, err := DecodeToolResponse([]byte(body)); err == nil {
			t.Errorf("%s decoded as a ToolResponse", body)
		}
	}
}
