package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"testing"
)

// checkToolResponse fails the test when r breaks what every renderer relies
// on: non-nil collections, a code on every failure, a document that
// encodes, and server bytes and a data index that match Data.
func checkToolResponse(t *testing.T, what string, r *ToolResponse) {
	t.Helper()
	if r == nil {
		t.Fatalf("%s: nil response", what)
	}
	if r.Warnings == nil || r.NextActions == nil || r.Data == nil {
		t.Fatalf("%s: nil collections: %+v", what, r)
	}
	if !r.OK && r.ErrorCode() == "" {
		t.Fatalf("%s: a failure without an error code", what)
	}
	if _, err := json.Marshal(r); err != nil {
		t.Fatalf("%s: does not encode: %v", what, err)
	}
	// --json prints the server's bytes when the response has them: they
	// must say what Data says.
	if raw := r.Raw; raw != nil {
		if served, err := DecodeToolResponse(raw); err != nil || !bytes.Equal(served.Data, r.Data) {
			t.Fatalf("%s: --json would print %s, whose data is not %s", what, raw, r.Data)
		}
	}
	if m, ok := r.dataMembers(); ok {
		if fresh, err := splitObject(r.Data); err != nil || !reflect.DeepEqual(m, fresh) {
			t.Fatalf("%s: data read as %+v, but it is %s", what, m, r.Data)
		}
	}
}

// FuzzJobStatus feeds a ToolResponse body to every reader of job state: the
// get_job_status data, a long-running token answer, the readiness lock, and
// the token-poll translation Watch consumes.
func FuzzJobStatus(f *testing.F) {
	f.Add([]byte(`{"ok":true,"data":{"jobId":"j","status":"running","progress":{"current":1,"total":3,"message":"m"}}}`))
	f.Add([]byte(`{"ok":true,"data":{"status":"started","token":"tk","progress":{"current":"x"}}}`))
	f.Add([]byte(`{"ok":false,"error":{"code":"project_not_ready","message":"3 of 5 sources analysed"},"data":{"result":1}}`))
	f.Add([]byte(`{"ok":true,"data":{"jobId":7,"status":["completed"]}}`))
	f.Add([]byte(`{"ok":true,"data":{"jobId":"j","status":"failed","status":"completed"}}`))
	f.Add([]byte(`{"ok":false,"error":{"code":"rate_limit"},"retryAfterMs":-5}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		resp, err := DecodeToolResponse(body)
		if err != nil {
			return
		}
		if s, ok := ParseJobStatus(resp); ok && s.Status == "" {
			t.Fatalf("%s: a job status without a status", body)
		}
		if id, ok := AcceptedJob(resp); ok && id == "" {
			t.Fatalf("%s: an accepted job without an id", body)
		}
		if lr, ok := ParseLongRunning(resp); ok && lr.Token == "" {
			t.Fatalf("%s: long-running work without a token", body)
		}
		if state, ok := ReadinessLock(resp); ok && resp.OK {
			t.Fatalf("%s: an ok answer read as the readiness lock %+v", body, state)
		}
		if resp.RetryAfter() <= 0 {
			t.Fatalf("%s: a non-positive retry wait", body)
		}
		// A job's verdict passes only with a status it documents, never
		// failed or cancelled.
		if v := JobVerdict(resp); v.OK {
			if s, ok := ParseJobStatus(v); !ok || !slices.Contains([]string{JobQueued, JobRunning, JobCompleted}, s.Status) {
				t.Fatalf("%s: a job verdict passed on %+v", body, s)
			}
		}
		polled := asJobStatus("tk", resp)
		checkToolResponse(t, string(body), polled)
		if polled != resp {
			if s, ok := ParseJobStatus(polled); !ok || s.JobID != "tk" {
				t.Fatalf("%s: token poll answer %s is not a job status", body, polled.Data)
			}
		}
	})
}

// FuzzCIResponse feeds a CI endpoint's answer (any status, any body) to
// its mapping onto the contract, then to the run reading --wait relies on.
func FuzzCIResponse(f *testing.F) {
	f.Add(200, []byte(`{"runId":"run_1","status":"running","progress":{"current":1,"total":4},"failed":0,"total":4,"url":"https://x"}`))
	f.Add(200, []byte(`{"runId":"run_1","status":"failed","failed":"2","total":null}`))
	f.Add(429, []byte(`{"error":{"code":"rate_limit","message":"slow","retryAfterMs":-1}}`))
	f.Add(500, []byte(`<html>oops</html>`))
	f.Add(404, []byte(`{"error":null,"recoverable":"yes"}`))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		status = 100 + int(uint(status)%500)
		resp := ciResponse("run_vrt", "http://127.0.0.1/api/ci/run_vrt", status, http.Header{}, body)
		checkToolResponse(t, string(body), resp)
		if resp.OK != (status >= 200 && status < 300 && json.Valid(bytes.TrimSpace(body))) {
			t.Fatalf("HTTP %d %s: ok=%v", status, body, resp.OK)
		}
		if run, ok := ParseCIRun(resp); ok {
			run.Summary()
			checkToolResponse(t, string(body), RunAsJob(resp))
		}
		// A run passes its verdict only with a documented status.
		if v := RunVerdict(resp); v.OK {
			if run, ok := ParseCIRun(v); !ok || !slices.Contains(runStatuses, run.Status) {
				t.Fatalf("HTTP %d %s: a run verdict without a documented status", status, body)
			}
		}
	})
}
