package cmdutil

import (
	"context"
	"encoding/json"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/exitcode"
)

// withJobHandle gives a wait stopped short the job's handle as data, to resume it.
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

// endedShort reports an answer that ended a watch without being the job's status.
func endedShort(resp *api.ToolResponse) bool {
	if resp == nil || resp.OK {
		return false
	}
	_, isStatus := api.ParseJobStatus(resp)
	return !isStatus
}

// InterruptedAnswer is the answer of a wait a signal stopped.
func InterruptedAnswer(ctx context.Context, tool, what string) *api.ToolResponse {
	code := exitcode.CodeOf(exitcode.Of(ExitError(ctx, ctx.Err())))
	return api.ClientError(tool, code, "the wait for "+what+" was interrupted; it may still finish", true)
}
