package api

import (
	"encoding/json"
	"testing"

	"github.com/visualq/vq/internal/layout"
)

// A response made from a server's answer is read from its own data: a run
// read as a job, or token work's final answer read as a completed job, is
// a job status to Watch, whatever the index of the answer said.
func TestDerivedResponsesAreReadFromTheirOwnData(t *testing.T) {
	t.Parallel()
	served, err := DecodeToolResponse([]byte(`{"ok":true,"tool":"t","summary":"s","data":{"runId":"r","status":"passed","total":3}}`))
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		derived *ToolResponse
		want    JobStatus
	}{
		"a run read as a job":      {RunAsJob(served), JobStatus{JobID: "r", Status: JobCompleted}},
		"token work's last answer": {asJobStatus("tk", served), JobStatus{JobID: "tk", Status: JobCompleted}},
	} {
		checkToolResponse(t, name, tc.derived)
		got, ok := ParseJobStatus(tc.derived)
		if !ok || got.JobID != tc.want.JobID || got.Status != tc.want.Status || layout.Member(tc.derived.Data, tc.derived.Members, "runId") != nil {
			t.Errorf("%s: read as %+v (%v) from %s, want %+v", name, got, ok, tc.derived.Data, tc.want)
		}
	}
}

// WithErrorMessage changes the copy only; a summary that repeated the
// message follows it, one of its own stays.
func TestWithErrorMessage(t *testing.T) {
	t.Parallel()
	made := ClientError("t", CodeUnauthorized, "no API key", false)
	hinted := made.WithErrorMessage("no API key: sign in")
	if hinted.ErrorMessage() != "no API key: sign in" || hinted.Summary != "no API key: sign in" || hinted.ErrorCode() != CodeUnauthorized {
		t.Errorf("hinted: %+v %+v", hinted, hinted.Error)
	}
	if made.ErrorMessage() != "no API key" || made.Summary != "no API key" {
		t.Errorf("the original changed: %+v %+v", made, made.Error)
	}
	served, err := DecodeToolResponse([]byte(`{"ok":false,"summary":"Run not found.","error":{"code":"not_found","message":"no run r"}}`))
	if err != nil {
		t.Fatal(err)
	}
	amended := served.WithErrorMessage("no run r; list runs first")
	checkToolResponse(t, "amended", amended)
	if amended.Summary != "Run not found." || amended.ErrorMessage() != "no run r; list runs first" {
		t.Errorf("amended: %+v %+v", amended, amended.Error)
	}
	var printed ToolResponse
	if b, _ := json.Marshal(amended); json.Unmarshal(b, &printed) != nil || printed.Error.Message != amended.ErrorMessage() {
		t.Errorf("amended encodes as %s", b)
	}
}
