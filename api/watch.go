package api

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"
)

// Job statuses of get_job_status.
const (
	JobQueued    = "queued"
	JobRunning   = "running"
	JobCompleted = "completed"
	JobFailed    = "failed"
	JobCancelled = "cancelled"
)

// JobProgress is how far a job has got.
type JobProgress struct {
	Current float64 `json:"current"`
	Total   float64 `json:"total"`
	Message string  `json:"message,omitempty"`
}

// JobStatus is the data of an async tool's first answer and of get_job_status.
type JobStatus struct {
	JobID    string          `json:"jobId"`
	Status   string          `json:"status"`
	Progress *JobProgress    `json:"progress,omitempty"`
	Result   json.RawMessage `json:"result,omitempty"`
}

// Ended reports whether the status is final.
func (s JobStatus) Ended() bool {
	return s.Status == JobCompleted || s.Status == JobFailed || s.Status == JobCancelled
}

// ParseJobStatus reads data as a job status; bad progress ("50%") is dropped,
// never failing the status.
func ParseJobStatus(r *ToolResponse) (JobStatus, bool) {
	var s JobStatus
	data, isObject := r.dataMembers()
	if !isObject || data.decodeFields(&s, "jobId", "status", "result") != nil || s.Status == "" {
		return JobStatus{}, false
	}
	var p JobProgress
	if raw := data.get("progress"); raw != nil && json.Unmarshal(raw, &p) == nil && !math.IsInf(p.Current, 0) && !math.IsInf(p.Total, 0) {
		s.Progress = &p
	}
	return s, true
}

// AcceptedJob reports the job id of an async tool's first answer.
func AcceptedJob(r *ToolResponse) (string, bool) {
	if r == nil || !r.OK {
		return "", false
	}
	s, ok := ParseJobStatus(r)
	if !ok || s.JobID == "" || (s.Status != JobQueued && s.Status != JobRunning) {
		return "", false
	}
	return s.JobID, true
}

// PollFunc asks once how a job is doing; err only when ctx ended. Watch owns
// the policy, so any source plugs in.
type PollFunc func(ctx context.Context) (*ToolResponse, error)

// JobStatusCall is the get_job_status call for one job.
func JobStatusCall(jobID string) Call {
	return Call{Tool: ToolJobStatus, Args: map[string]any{"jobId": jobID}}
}

// RunFailuresCall asks for the failed checks of a run (vq failures).
func RunFailuresCall(runID string) Call {
	return Call{Tool: ToolRunFailures, Args: map[string]any{"runId": runID}}
}

// JobStatusPoll polls get_job_status for one job.
func (c *Client) JobStatusPoll(jobID string) PollFunc {
	call := JobStatusCall(jobID)
	return func(ctx context.Context) (*ToolResponse, error) {
		return c.InvokeOnce(ctx, call)
	}
}

// The default watch policy.
const (
	DefaultMinInterval = time.Second
	DefaultMaxInterval = 10 * time.Second
	DefaultBackoff     = 1.5
	DefaultMaxFailures = 10
)

// WatchOptions tune Watch and AwaitReady; zero is the default, no deadline.
type WatchOptions struct {
	Interval                 time.Duration // fixed (--interval)
	MinInterval, MaxInterval time.Duration
	Timeout                  time.Duration
	MaxFailures              int // transient failures in a row that end the watch
	// OnUpdate hears of every change and transient failure, never of a
	// poll that saw nothing new.
	OnUpdate func(JobUpdate)
}

// JobUpdate is one change seen while watching a job.
type JobUpdate struct {
	JobID          string
	Status         string
	Current, Total float64
	HasProgress    bool
	Message        string
	Elapsed        time.Duration
	Failure        *ToolResponse // a transient failure, polled again after RetryIn
	RetryIn        time.Duration
	Final          *ToolResponse // the answer that ended the watch
}

// WatchTimeoutError is a watch past its Timeout; Last is the latest status.
type WatchTimeoutError struct {
	JobID   string
	Timeout time.Duration
	Last    JobUpdate
}

// Response is the timeout as a recoverable ToolResponse without data.
func (e *WatchTimeoutError) Response() *ToolResponse {
	return ClientError(ToolJobStatus, CodeTimeout, e.Error()+"; it may still finish", true)
}

func (e *WatchTimeoutError) Error() string {
	status := e.Last.Status
	if status == "" {
		status = "unfinished" // no poll got through to say more
	}
	return fmt.Sprintf("job %s still %s after %s", e.JobID, status, e.Timeout)
}

// Policy is the adaptive poll schedule.
type Policy struct {
	min, max, cur time.Duration
	backoff       float64
	lastChange    time.Time // when a poll last saw the job move
	now           func() time.Time
}

// paceFraction of the job's pace (time between changes) is waited: about one
// poll a step.
const paceFraction = 0.85

// NewPolicy builds the schedule for the options, defaults filled in.
func NewPolicy(o WatchOptions) *Policy {
	p := &Policy{min: o.MinInterval, max: o.MaxInterval, backoff: DefaultBackoff, now: time.Now}
	if o.Interval > 0 {
		p.min, p.max = o.Interval, o.Interval
	}
	if p.min <= 0 {
		p.min = DefaultMinInterval
	}
	if p.max < p.min {
		p.max = max(DefaultMaxInterval, p.min)
	}
	p.cur = p.min
	return p
}

// Next is the wait before the next poll: short after a change, else backoff.
func (p *Policy) Next(changed bool) time.Duration {
	if !changed {
		wait := p.cur
		p.cur = min(time.Duration(float64(p.cur)*p.backoff), p.max)
		return wait
	}
	now := p.now()
	wait := p.min
	if !p.lastChange.IsZero() {
		wait = min(max(time.Duration(float64(now.Sub(p.lastChange))*paceFraction), p.min), p.max)
	}
	p.lastChange = now
	p.cur = p.min
	return wait
}

// Watch polls a job until it ends, a refusal, or a poll's budget is spent.
func Watch(ctx context.Context, jobID string, poll PollFunc, o WatchOptions) (*ToolResponse, error) {
	w := &watch{o: o, start: time.Now(), policy: NewPolicy(o), last: JobUpdate{JobID: jobID}}
	progress := func(ctx context.Context) (*ToolResponse, error) { return poll(WithProgress(ctx, w.notify)) }
	return w.run(ctx, nil, progress, w.budget, w.read)
}

type watch struct {
	o      WatchOptions
	start  time.Time
	policy *Policy
	last   JobUpdate // the latest status seen
}

// run is the one poll loop (Watch, AwaitReady); *WatchTimeoutError past
// Timeout, else ctx's error.
func (w *watch) run(ctx context.Context, resp *ToolResponse, poll PollFunc, newBudget func() budget, read func(*ToolResponse) (time.Duration, *ToolResponse)) (*ToolResponse, error) {
	pollCtx := ctx
	if w.o.Timeout > 0 {
		var cancel context.CancelFunc
		pollCtx, cancel = context.WithTimeout(ctx, w.o.Timeout)
		defer cancel()
	}
	for {
		if resp == nil {
			var err error
			if resp, err = resend(pollCtx, nil, "", func() (*ToolResponse, error) { return poll(pollCtx) }, newBudget()); err != nil {
				return nil, w.stopped(ctx)
			}
		}
		wait, final := read(resp)
		if final != nil {
			return final, nil
		}
		if sleep(pollCtx, wait) != nil {
			return nil, w.stopped(ctx)
		}
		resp = nil
	}
}

func (w *watch) notify(u JobUpdate) {
	if w.o.OnUpdate != nil {
		u.Elapsed = time.Since(w.start)
		w.o.OnUpdate(u)
	}
}

// budget is one poll's: MaxFailures transient failures in a row, and
// MaxRateLimitRetries rate limits within the watch's bound.
func (w *watch) budget() budget {
	failures, rateLimited := 0, 0
	return func(resp *ToolResponse) (time.Duration, bool) {
		resp = JobVerdict(resp)
		status, isStatus := ParseJobStatus(resp)
		switch code := resp.ErrorCode(); {
		case isStatus && status.Ended(): // a failed job's answer: its end
		case code == CodeRateLimit:
			wait := resp.RetryAfter()
			rateLimited++
			return wait, rateLimited <= MaxRateLimitRetries && (w.o.Timeout <= 0 || time.Since(w.start)+wait <= w.o.Timeout)
		case code == CodeHTTPError || code == CodeToolError || code == CodeNoVerdict && !isStatus:
			if failures++; failures >= cmp.Or(w.o.MaxFailures, DefaultMaxFailures) {
				return 0, false
			}
			wait := w.policy.Next(false)
			w.notify(JobUpdate{JobID: w.last.JobID, Status: w.last.Status, Failure: resp, RetryIn: wait})
			return wait, true
		}
		return 0, false
	}
}

// read takes one poll's answer: the next wait, or the answer that ends it.
func (w *watch) read(resp *ToolResponse) (time.Duration, *ToolResponse) {
	resp = JobVerdict(resp)
	status, isStatus := ParseJobStatus(resp)
	if resp.OK || isStatus && status.Ended() {
		return w.status(status, resp)
	}
	w.notify(JobUpdate{JobID: w.last.JobID, Status: w.last.Status, Final: resp})
	return 0, resp
}

func (w *watch) status(status JobStatus, resp *ToolResponse) (time.Duration, *ToolResponse) {
	u := JobUpdate{JobID: w.last.JobID, Status: status.Status}
	if p := status.Progress; p != nil {
		u.HasProgress, u.Current, u.Total, u.Message = true, p.Current, p.Total, p.Message
	}
	if status.Ended() {
		u.Final = resp
		w.notify(u)
		return 0, resp
	}
	changed := u.Status != w.last.Status || u.Current != w.last.Current || u.Total != w.last.Total || u.Message != w.last.Message
	if changed {
		w.notify(u)
		w.last = u
	}
	return w.policy.Next(changed), nil
}

// stopped is the caller's cancellation, or else the watch's own deadline.
func (w *watch) stopped(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return &WatchTimeoutError{JobID: w.last.JobID, Timeout: w.o.Timeout, Last: w.last}
}

// FollowUp says how to watch the work an Invoke answer started, if any.
func (c *Client) FollowUp(call Call, resp *ToolResponse) (id string, poll PollFunc, ok bool) {
	switch {
	case resp.Token != "":
		return resp.Token, c.TokenPoll(call, resp.Token), true
	case resp.Job != "":
		return resp.Job, c.JobStatusPoll(resp.Job), true
	}
	return "", nil, false
}

type progressKey struct{}

// WithProgress hands fn an MCP server's progress during calls made with ctx.
func WithProgress(ctx context.Context, fn func(JobUpdate)) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// ProgressHook is the function WithProgress gave ctx, or nil.
func ProgressHook(ctx context.Context) func(JobUpdate) {
	fn, _ := ctx.Value(progressKey{}).(func(JobUpdate))
	return fn
}
