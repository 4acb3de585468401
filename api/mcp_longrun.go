package api

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Long-running MCP work (seed, "Long-running work"). vq's convention, which
// the sandbox implements identically:
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

// FollowUp says how to watch the work an answer started: an async tool's
// job (get_job_status) or an MCP tool's token (the same call again). id is
// what to show the user; ok is false when the answer started nothing.
func (c *Client) FollowUp(call Call, resp *ToolResponse) (id string, poll PollFunc, ok bool) {
	if lr, ok := ParseLongRunning(resp); ok {
		return lr.Token, c.TokenPoll(call, lr.Token), true
	}
	if id, ok := AcceptedJob(resp); ok {
		return id, c.JobStatusPoll(id), true
	}
	return "", nil, false
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
		if hook := progressHook(ctx); hook != nil {
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
	out := *resp
	out.Data, _ = json.Marshal(status)
	// The data is no longer the server's: --json must print what vq made.
	out.raw = nil
	return &out
}

type progressKey struct{}

// WithProgress asks for the progress notifications an MCP server sends
// while a call made with ctx runs; each one reaches fn as a running
// JobUpdate. The invoke transport has no notifications: fn is then never
// called.
func WithProgress(ctx context.Context, fn func(JobUpdate)) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

func progressHook(ctx context.Context) func(JobUpdate) {
	fn, _ := ctx.Value(progressKey{}).(func(JobUpdate))
	return fn
}

// onProgress routes notifications/progress to the call that asked.
func (c *Client) onProgress(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	p := req.Params
	if p == nil {
		return
	}
	token, ok := p.ProgressToken.(string)
	if !ok {
		return
	}
	if fn, ok := c.mcp.progress.Load(token); ok {
		fn.(func(JobUpdate))(JobUpdate{Status: JobRunning, HasProgress: true, Current: p.Progress, Total: p.Total, Message: p.Message})
	}
}

// The import readiness lock (seed, "The import readiness lock"): while a
// project's first import is analysed, a tool that changes the project is
// refused with code project_not_ready (vq's convention, which the sandbox
// implements) and a message saying how far the analysis has got, as
// "3 of 5 sources analysed". Servers that use another code are recognised
// by that phrase. It is a refusal: never retried by withRetries, shown as
// progress, and waited out only with --wait, politely.
const CodeProjectNotReady = "project_not_ready"

// Readiness is how far a locked project's analysis has got.
type Readiness struct {
	Analysed, Total int
}

var readinessPhrase = lazyRegexp(`(?i)\b(\d+) of (\d+) sources? (?:analysed|analyzed)\b`)

// ReadinessLock reports whether r is the readiness lock's refusal.
func ReadinessLock(r *ToolResponse) (Readiness, bool) {
	if r == nil || r.OK {
		return Readiness{}, false
	}
	state, found := parseReadiness(r.ErrorMessage())
	return state, found || r.ErrorCode() == CodeProjectNotReady
}

func parseReadiness(text string) (Readiness, bool) {
	m := readinessPhrase().FindStringSubmatch(text)
	if m == nil {
		return Readiness{}, false
	}
	done, _ := strconv.Atoi(m[1])
	total, _ := strconv.Atoi(m[2])
	return Readiness{Analysed: done, Total: total}, true
}

// The polite schedule of --wait on a locked project: the analysis takes
// minutes, so vq asks rarely and ever more rarely.
const (
	ReadinessMinWait = 15 * time.Second
	ReadinessMaxWait = 60 * time.Second
)

// ReadinessOptions tune AwaitReady.
type ReadinessOptions struct {
	// Interval, when set, is a fixed wait between calls (--interval);
	// otherwise the wait grows from ReadinessMinWait to ReadinessMaxWait.
	Interval time.Duration
	// OnWait hears of each refusal and how long vq now waits.
	OnWait func(r Readiness, wait time.Duration)
}

// AwaitReady waits out the readiness lock: while resp is the lock's
// refusal it waits, then asks again with send (the same call), and returns
// the first answer that is not the lock. err is non-nil only when ctx ended.
func AwaitReady(ctx context.Context, resp *ToolResponse, send PollFunc, o ReadinessOptions) (*ToolResponse, error) {
	wait := ReadinessMinWait
	if o.Interval > 0 {
		wait = o.Interval
	}
	for {
		state, locked := ReadinessLock(resp)
		if !locked {
			return resp, nil
		}
		if o.OnWait != nil {
			o.OnWait(state, wait)
		}
		if err := sleep(ctx, wait); err != nil {
			return resp, err
		}
		if o.Interval == 0 {
			wait = min(wait*2, ReadinessMaxWait)
		}
		var err error
		if resp, err = send(ctx); err != nil {
			return resp, err
		}
	}
}
