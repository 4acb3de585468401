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

// JobStatus is the data of an async tool's first answer and of
// get_job_status: {jobId, status, progress?, result?}.
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

// ParseJobStatus reads a response's data as a job status. ok is false when
// the data is not an object with a status. Progress that does not read as
// numbers (1e400, "50%") is left out: it never turns a running job into an
// answer that is no status.
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

// AcceptedJob reports the job id of an async tool's first answer, data
// {jobId, status: queued|running}: the answer --wait turns into a watch.
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

// PollFunc asks once how a job is doing: one request, which Watch sends
// again within the poll's budget. Its answer's data is read as a
// JobStatus; err is non-nil only when ctx ended. Watch owns the policy, so
// any source that answers in that shape plugs in: get_job_status, an MCP
// long-running tool called again with its token, a CI run (RunAsJob).
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

// Default watch policy: start at 1s, grow ×1.5 to 10s while nothing changes,
// give up after 10 transient failures in a row.
const (
	DefaultMinInterval = time.Second
	DefaultMaxInterval = 10 * time.Second
	DefaultBackoff     = 1.5
	DefaultMaxFailures = 10
)

// WatchOptions tune Watch (and AwaitReady). The zero value is the default
// policy with no deadline.
type WatchOptions struct {
	// Interval, when set, is a fixed poll interval (--interval).
	Interval time.Duration
	// MinInterval and MaxInterval bound the adaptive interval.
	MinInterval, MaxInterval time.Duration
	// Timeout bounds the whole watch; zero means until the job ends or ctx
	// is cancelled.
	Timeout time.Duration
	// MaxFailures is how many transient failures in a row end the watch
	// (zero: DefaultMaxFailures).
	MaxFailures int
	// OnUpdate, when set, hears of every change of status or progress and of
	// every transient failure; never of a poll that saw nothing new.
	OnUpdate func(JobUpdate)
}

// JobUpdate is one change seen while watching a job.
type JobUpdate struct {
	JobID   string
	Status  string
	Current float64
	Total   float64
	// HasProgress is set when the server reported progress.
	HasProgress bool
	Message     string
	Elapsed     time.Duration
	// Failure, on a transient failure, is the failed answer; the watch goes
	// on after RetryIn.
	Failure *ToolResponse
	RetryIn time.Duration
	// Final is the answer that ended the watch, on the last update.
	Final *ToolResponse
}

// WatchTimeoutError is the outcome of a watch that ran past its Timeout: the
// job may still finish, and Last is the latest status seen.
type WatchTimeoutError struct {
	JobID   string
	Timeout time.Duration
	Last    JobUpdate
}

// Response is the timeout as the client-made ToolResponse a script reads
// (--json): code timeout, recoverable (watching again may see the end),
// no data, since the job gave no final answer.
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

// Policy is the adaptive poll schedule: Next says how long to wait after a
// poll, from whether it saw a change.
type Policy struct {
	min, max, cur time.Duration
	backoff       float64
	// lastChange is when a poll last saw the job move; now is the clock.
	lastChange time.Time
	now        func() time.Time
}

// paceFraction is how much of the job's observed pace (the time between its
// last two changes) to wait before asking again: a little less than a
// step, so that the next change is seen soon after it happens, at about
// one poll a step instead of a burst of short ones every step.
const paceFraction = 0.85

// NewPolicy builds the schedule for the options (defaults filled in); a
// fixed Interval is the short and the long one.
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

// Next is the wait before the next poll. After a change: the short
// interval, or once the job has shown its pace, most of one step (within
// the short and long intervals). Each poll that saw nothing new then waits
// from the short interval up, ×1.5 (its backoff) each time, to the maximum.
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

// Watch polls a job until its status is completed, failed or cancelled and
// returns that final answer (a failed job's answer is ok:false with its
// error and data.result). A refusal (unknown job, bad id, no access) ends
// the watch with that answer too, as does a poll whose budget
// (watch.budget) is spent. Errors as run's.
func Watch(ctx context.Context, jobID string, poll PollFunc, o WatchOptions) (*ToolResponse, error) {
	w := &watch{o: o, start: time.Now(), policy: NewPolicy(o), last: JobUpdate{JobID: jobID}}
	// Progress an MCP server notifies during a poll is shown as the polls'.
	progress := func(ctx context.Context) (*ToolResponse, error) { return poll(WithProgress(ctx, w.notify)) }
	return w.run(ctx, nil, progress, w.budget, w.read)
}

// watch is one watch's state between its polls.
type watch struct {
	o      WatchOptions
	start  time.Time
	policy *Policy
	// last is the latest status seen.
	last JobUpdate
}

// run is the one poll loop, a job's watch and the readiness lock's wait
// (AwaitReady): it reads resp if any, then asks with poll, a failed read
// sent again within a budget of its own (resend), and waits as read says
// until read has the answer that ends it. Errors: *WatchTimeoutError past
// Timeout, ctx's error when ctx ended.
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

// budget is one poll's: a transient failure (http_error, tool_error, an
// answer that is no status) is polled again on the watch's schedule, up
// to MaxFailures in a row, each told as a failure; a rate limit is waited
// out, at most MaxRateLimitRetries in a row and within the watch's bound,
// else it ends the watch with its rate_limit answer, not at the deadline.
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

// read takes in one poll's answer: the wait before the next poll, or the
// answer that ends the watch, a status or any failure its budget did not
// poll again (a refusal: polling again would get the same answer). An
// answer is read as the job's (JobVerdict, as by the budget), so that none
// whose verdict vq cannot read is ever the job's end: an ok answer without
// a status is a failed poll, polled again like one; a status vq does not
// know ends the watch with no_verdict.
func (w *watch) read(resp *ToolResponse) (time.Duration, *ToolResponse) {
	resp = JobVerdict(resp)
	status, isStatus := ParseJobStatus(resp)
	if resp.OK || isStatus && status.Ended() {
		return w.status(status, resp)
	}
	return 0, w.end(resp)
}

// status takes in a job status: the job's end, or how long to wait after
// a change or none.
func (w *watch) status(status JobStatus, resp *ToolResponse) (time.Duration, *ToolResponse) {
	u := updateFrom(w.last.JobID, status)
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

// end tells of the answer that ends the watch without a final status.
func (w *watch) end(resp *ToolResponse) *ToolResponse {
	w.notify(JobUpdate{JobID: w.last.JobID, Status: w.last.Status, Final: resp})
	return resp
}

// stopped is the outcome of a watch whose context ended: the caller's
// cancellation, or else the watch's own deadline.
func (w *watch) stopped(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return &WatchTimeoutError{JobID: w.last.JobID, Timeout: w.o.Timeout, Last: w.last}
}

func updateFrom(jobID string, s JobStatus) JobUpdate {
	u := JobUpdate{JobID: jobID, Status: s.Status}
	if s.Progress != nil {
		u.HasProgress = true
		u.Current, u.Total, u.Message = s.Progress.Current, s.Progress.Total, s.Progress.Message
	}
	return u
}

// FollowUp says how to watch the work an answer of Invoke started: an
// async tool's job (get_job_status) or an MCP tool's token (the same call
// again). id is what to show the user; ok is false when it started nothing.
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

// WithProgress asks for the progress notifications an MCP server sends
// while a call made with ctx runs; each one reaches fn as a running
// JobUpdate. The invoke transport has no notifications: fn is then never
// called.
func WithProgress(ctx context.Context, fn func(JobUpdate)) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// ProgressHook is the function WithProgress gave ctx, nil when there is
// none: what a transport with notifications calls.
func ProgressHook(ctx context.Context) func(JobUpdate) {
	fn, _ := ctx.Value(progressKey{}).(func(JobUpdate))
	return fn
}
