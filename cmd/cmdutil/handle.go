package cmdutil

import (
	"context"
	"encoding/json"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/exitcode"
)

// A wait that stops short of the end of its job (a timeout, Ctrl-C, a
// refusal or failures the retries did not outlast) keeps the job's handle
// in its answer, .data.jobId and the status last seen, so a script can
// resume it; runs keep theirs the same way (waitRun).

// withJobHandle is a failed answer of job id with the job's handle as its
// data, for a script that asked for a document (structured); a person
// reads the job's ID in the error line and the command that resumes.
func withJobHandle(structured bool, resp *api.ToolResponse, id, status string) *api.ToolResponse {
	if !structured {
		return resp
	}
	handle, _ := json.Marshal(struct {
		JobID  string `json:"jobId"`
		Status string `json:"status,omitempty"`
	}{id, status}) // strings: it always encodes
	return resp.WithData(handle)
}

// endedShort reports an answer that ended a watch without being the job's
// status: a refusal, or a failure the retries did not outlast.
func endedShort(resp *api.ToolResponse) bool {
	if resp == nil || resp.OK {
		return false
	}
	_, isStatus := api.ParseJobStatus(resp)
	return !isStatus
}

// InterruptedAnswer is the client-made answer of a wait for what (a job,
// a run) that a signal stopped, with the code of the exit it gets.
func InterruptedAnswer(ctx context.Context, tool, what string) *api.ToolResponse {
	code := exitcode.CodeOf(exitcode.Of(ExitError(ctx, ctx.Err())))
	return api.ClientError(tool, code, "the wait for "+what+" was interrupted; it may still finish", true)
}
