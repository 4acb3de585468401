package api

import (
	"context"
	"encoding/json"
)

// Long-running MCP work, a tool whose work outlasts one request. vq's
// convention, which the sandbox implements identically:
//
//   - The first tools/call answers at once, ok, with data
//     {"status": "started", "token": "<token>", "progress"?: {current, total, message?}}.
//   - The same call with the same arguments plus "token": "<token>" answers
//     {"status": "running", "token", "progress"} while the work goes on,
//     and finally the tool's ordinary answer (its result, or its error).
//
// FollowUp recognises such an answer and hands Watch a PollFunc that makes
// the token calls look like get_job_status answers, so vq watch and --wait
// drive both kinds of work the same way.
const (
	LongRunningStarted = "started"
	LongRunningRunning = "running"
	// ArgToken is the argument that carries the token back.
	ArgToken = "token"
)

// LongRunning is the data of an answer that accepted work without
// finishing it.
type LongRunning struct {
	Status   string       `json:"status"`
	Token    string       `json:"token"`
	Progress *JobProgress `json:"progress,omitempty"`
}

// ParseLongRunning reports whether r says work has started (or is still
// running) under a token.
func ParseLongRunning(r *ToolResponse) (LongRunning, bool) {
	var lr LongRunning
	data, isObject := r.dataMembers()
	if !isObject || !r.OK {
		return lr, false
	}
	if err := data.decodeFields(&lr, "status", "token", "progress"); err != nil || lr.Token == "" ||
		(lr.Status != LongRunningStarted && lr.Status != LongRunningRunning) {
		return LongRunning{}, false
	}
	return lr, true
}

// WithToken returns the call that asks after started work: the same tool
// and arguments plus the token. The original is left untouched.
func (c Call) WithToken(token string) Call {
	args := cloneArgs(c.Args)
	args[ArgToken] = token
	return Call{Tool: c.Tool, Args: args}
}

// TokenPoll asks once after token work. Its answers read as get_job_status
// data for Watch: running while the tool says so, then completed (or failed)
// with the tool's final data as result, keeping the tool's summary, error and
// next actions. Transient failures and rate limits pass through unchanged
// for Watch to retry. Progress notifications the server sends during a poll
// reach the hook of WithProgress.
func (c *Client) TokenPoll(call Call, token string) PollFunc {
	next := call.WithToken(token)
	return func(ctx context.Context) (*ToolResponse, error) {
		if hook := ProgressHook(ctx); hook != nil {
			ctx = WithProgress(ctx, func(u JobUpdate) {
				u.JobID = token
				hook(u)
			})
		}
		resp, err := c.InvokeOnce(ctx, next)
		if err != nil {
			return resp, err
		}
		return asJobStatus(token, resp), nil
	}
}

func asJobStatus(token string, resp *ToolResponse) *ToolResponse {
	status := JobStatus{JobID: token}
	switch code := resp.ErrorCode(); {
	case code == CodeRateLimit, resp.isUnexpected():
		return resp
	case code != "":
		status.Status, status.Result = JobFailed, resp.Data
	default:
		if lr, ok := ParseLongRunning(resp); ok {
			status.Status, status.Progress = JobRunning, lr.Progress
		} else {
			status.Status, status.Result = JobCompleted, resp.Data
		}
	}
	data, _ := json.Marshal(status)
	return resp.WithData(data)
}
