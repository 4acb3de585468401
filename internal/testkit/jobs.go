package testkit

import (
	"sync"
	"testing"
)

// Jobs scripts asynchronous tools: get_job_status {jobId} answers that
// job's replies in order (the last one repeats) and not_found for a job
// it does not know; every other call answers Start.
type Jobs struct {
	start Reply
	// OnPoll, when set, is called before the nth poll of a job is answered.
	OnPoll func(jobID string, n int)
	mu     sync.Mutex
	steps  map[string][]Reply
	polls  map[string]int
}

// NewJobs scripts the jobs of steps.
func NewJobs(start Reply, steps map[string][]Reply) *Jobs {
	if steps == nil {
		steps = map[string][]Reply{}
	}
	return &Jobs{start: start, steps: steps, polls: map[string]int{}}
}

// Answer answers one call.
func (j *Jobs) Answer(c Call) Reply {
	if c.Tool != ToolJobStatus {
		return j.start
	}
	id, _ := c.Args["jobId"].(string)
	j.mu.Lock()
	j.polls[id]++
	n := j.polls[id]
	answer := Answer(404, Failure(ToolJobStatus, CodeNotFound, "no job "+id, false))
	if steps, ok := j.steps[id]; ok {
		answer = steps[min(n, len(steps))-1]
	}
	hook := j.OnPoll
	j.mu.Unlock()
	if hook != nil {
		hook(id, n)
	}
	return answer
}

// SetSteps replaces the replies of a job's polls still to come.
func (j *Jobs) SetSteps(jobID string, steps ...Reply) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.steps[jobID] = steps
}

// Polls is how many times the job was polled.
func (j *Jobs) Polls(jobID string) int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.polls[jobID]
}

// JobServer is a Server answering from Jobs.
type JobServer struct {
	*Server
	*Jobs
}

// NewJobServer serves the jobs of steps, every other call answered start.
func NewJobServer(t testing.TB, start Reply, steps map[string][]Reply) *JobServer {
	t.Helper()
	j := NewJobs(start, steps)
	return &JobServer{NewServer(t, j.Answer), j}
}

// JobStep is a poll's reply: HTTP 200 with JobStatus's body.
func JobStep(id, status string, current, total int, message string, opts ...Option) Reply {
	return Answer(200, JobStatus(id, status, current, total, message, opts...))
}
