package api

import (
	"context"
	"encoding/json"
)

// Long-running MCP work: a token to re-ask with (ArgToken) until the final
// answer; TokenPoll reads it as a job, so Watch drives both.
const (
	LongRunningStarted = "started"
	LongRunningRunning = "running"
	ArgToken           = "token"
)

// LongRunning is the data of an answer that started work under a token.
type LongRunning struct {
	Status   string       `json:"status"`
	Token    string       `json:"token"`
	Progress *JobProgress `json:"progress,omitempty"`
}

// ParseLongRunning reports whether r says work started or runs under a token.
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

// WithToken returns a copy of the call that asks after its token's work.
func (c Call) WithToken(token string) Call {
	args := cloneArgs(c.Args)
	args[ArgToken] = token
	return Call{Tool: c.Tool, Args: args}
}

// TokenPoll asks once after token work, answering as get_job_status would.
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
