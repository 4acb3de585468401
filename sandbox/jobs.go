package sandbox

import (
	"fmt"
	"sync"
	"time"

	"github.com/visualq/vq/api"
)

// job is an async tool call. Its outcome is decided when it starts; its
// progress is derived from the time elapsed, one step per Options.JobStep,
// so no goroutine runs jobs and nothing needs stopping on Close.
type job struct {
	id      string
	tool    string
	started time.Time
	steps   []string // progress message of each step
	end     jobEnd
}

// jobEnd is what get_job_status answers once the job is over.
type jobEnd struct {
	status   string // "completed", or "failed" when the job broke before producing a result
	summary  string
	result   any // nil when the job broke
	warnings []string
	next     []api.NextAction
	err      *refusal // nil when the tool succeeded
}

// jobState is the data of get_job_status, and of an async tool's first
// answer (just jobId and status "queued").
type jobState struct {
	JobID    string    `json:"jobId"`
	Status   string    `json:"status"`
	Progress *progress `json:"progress,omitempty"`
	Result   any       `json:"result,omitempty"`
}

type progress struct {
	Current int    `json:"current"`
	Total   int    `json:"total"`
	Message string `json:"message,omitempty"`
}

// jobStore keeps every job of a Server; a sandbox's lifetime is short
// enough that none is ever forgotten.
type jobStore struct {
	mu   sync.Mutex
	jobs map[string]*job
}

func newJobStore() *jobStore { return &jobStore{jobs: map[string]*job{}} }

// add registers a job started now. end makes its outcome from its id (for
// follow-ups that name the job) before any caller can see the job.
func (st *jobStore) add(tool string, steps []string, end func(jobID string) jobEnd) *job {
	st.mu.Lock()
	defer st.mu.Unlock()
	id := fmt.Sprintf("job_%06d", len(st.jobs)+1)
	j := &job{id: id, tool: tool, started: time.Now(), steps: steps, end: end(id)}
	st.jobs[id] = j
	return j
}

func (st *jobStore) get(id string) (*job, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	j, ok := st.jobs[id]
	return j, ok
}

// startJob answers an async call: the job id, status queued, and the
// follow-up that watches it.
func (s *Server) startJob(c *call, what string, steps []string, end func(jobID string) jobEnd) reply {
	j := s.jobs.add(c.tool, steps, end)
	return c.ok(fmt.Sprintf("%s queued as %s.", what, j.id), jobState{JobID: j.id, Status: "queued"},
		action("Watch "+j.id, "get_job_status", map[string]any{"jobId": j.id}))
}

func (s *Server) jobStatus(c *call) reply {
	id, err := c.args.requiredStr("jobId")
	if err != nil {
		return c.fail(err)
	}
	j, ok := s.jobs.get(id)
	if !ok {
		// A refusal naming the argument: not_found means an unknown tool.
		return c.fail(refuse(api.CodeValidation, "jobId %q not found; jobs live as long as the sandbox that started them", id))
	}
	total := len(j.steps)
	step := int(time.Since(j.started) / s.opts.JobStep)
	again := action("Check "+j.id+" again", "get_job_status", map[string]any{"jobId": j.id})
	switch {
	case step == 0:
		return c.ok(fmt.Sprintf("%s (%s) is queued.", j.id, j.tool),
			jobState{JobID: j.id, Status: "queued", Progress: &progress{Current: 0, Total: total, Message: "Waiting for a runner"}}, again)
	case step <= total:
		message := j.steps[step-1]
		return c.ok(fmt.Sprintf("%s is running: step %d of %d, %s.", j.id, step, total, message),
			jobState{JobID: j.id, Status: "running", Progress: &progress{Current: step, Total: total, Message: message}}, again)
	}
	data := jobState{JobID: j.id, Status: j.end.status, Result: j.end.result}
	if j.end.err == nil {
		return c.okWarn(j.end.summary, data, j.end.warnings, j.end.next...)
	}
	// A failed job still carries its data, e.g. a failed proof's result,
	// which holds the markdown for the JIRA comment.
	resp := refusalResponse(c.tool, j.end.err)
	resp.Data = mustEncode(data)
	resp.Warnings = j.end.warnings
	resp.NextActions = j.end.next
	return respond(resp)
}
