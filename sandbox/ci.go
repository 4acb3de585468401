package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/visualq/vq/api"
)

// The CI endpoint, POST /api/ci/{tool}: tools a pipeline calls to start a
// run and follow it. They answer plain JSON, not ToolResponses, and fail
// with an HTTP status and {"error": {"code", "message"}} (docs/contract.md,
// "The CI endpoint").

// ciToolNames are the CI endpoint's tools.
var ciToolNames = []string{api.ToolRunStatus, api.ToolRunPerf, api.ToolRunVRT}

// A CI run checks ciRunChecks scenario/viewport pairs in ciRunSteps steps
// of Options.JobStep, after one step queued: a few seconds by default.
const (
	ciRunChecks = 12
	ciRunSteps  = 4
)

// ciBranch is how a run of a branch ends: a baseline that differs fails
// with its changed checks; a broken build ends in error part way.
type ciBranch struct {
	status string
	steps  int // running steps before the verdict
	checks []check
}

// ciBranches are the branches whose runs do not pass; every other branch
// (and a run without one) passes.
var ciBranches = map[string]ciBranch{
	"feature/new-header": {status: api.RunFailed, steps: ciRunSteps, checks: []check{
		{ScenarioLabel: "Homepage", Viewport: "desktop", MismatchPercent: 6.3},
		{ScenarioLabel: "Homepage", Viewport: "mobile", MismatchPercent: 7.1},
		{ScenarioLabel: "Product page", Viewport: "desktop", MismatchPercent: 3.4},
	}},
	"broken":    {status: api.RunError, steps: ciRunSteps / 2},
	"cancelled": {status: api.RunCancelled, steps: 1},
}

var ciPassing = ciBranch{status: api.RunPassed, steps: ciRunSteps}

// ciRun is a run started through the CI endpoint. Like a job, its outcome
// is decided when it starts and its progress derives from the time elapsed.
type ciRun struct {
	id      string
	started time.Time
	end     ciBranch
}

// ciState holds the CI runs. Its mu also guards Server.runs, which CI runs
// join while the server serves, so that get_run_failures, get_diff_stats,
// approvals and images answer for them too.
type ciState struct {
	mu   sync.RWMutex
	runs map[string]*ciRun
}

// findRun looks a run up in the run store.
func (s *Server) findRun(id string) (*run, bool) {
	s.ci.mu.RLock()
	defer s.ci.mu.RUnlock()
	r, ok := s.runs[id]
	return r, ok
}

// runIDs lists the run store's ids, sorted, for messages that name them.
func (s *Server) runIDs() []string {
	s.ci.mu.RLock()
	defer s.ci.mu.RUnlock()
	ids := make([]string, 0, len(s.runs))
	for id := range s.runs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// ciStarted is the answer of run_vrt and run_perf.
type ciStarted struct {
	RunID  string `json:"runId"`
	Status string `json:"status"`
	URL    string `json:"url"`
}

// ciStatus is the answer of get_run_status.
type ciStatus struct {
	RunID    string   `json:"runId"`
	Status   string   `json:"status"`
	Progress progress `json:"progress"`
	Failed   int      `json:"failed"`
	Total    int      `json:"total"`
	URL      string   `json:"url"`
}

type ciErrorBody struct {
	Error ciError `json:"error"`
}

type ciError struct {
	Code         string `json:"code"`
	Message      string `json:"message"`
	RetryAfterMs int64  `json:"retryAfterMs,omitempty"`
}

func (s *Server) serveCI(w http.ResponseWriter, r *http.Request) {
	s.callCI(r).write(w)
}

// callCI runs the CI endpoint's gates in invoke's order: method, key, rate,
// tool, then the body.
func (s *Server) callCI(r *http.Request) reply {
	if r.Method != http.MethodPost {
		rp := ciFailure(refuse(api.CodeValidation, "method %s is not allowed: call CI tools with POST and a JSON body", r.Method))
		rp.status = http.StatusMethodNotAllowed
		rp.header = http.Header{"Allow": {http.MethodPost}}
		return rp
	}
	key, why, ok := authenticate(r.Header)
	if !ok {
		return unauthorized(why)
	}
	if ok, wait := s.limiter.allow(key.Token); !ok {
		ref, header := rateLimit(wait)
		return reply{
			status: http.StatusTooManyRequests,
			body:   mustEncode(ciErrorBody{ciError{Code: ref.code, Message: ref.message, RetryAfterMs: wait.Milliseconds()}}),
			header: header,
		}
	}
	tool := r.PathValue("tool")
	if !slices.Contains(ciToolNames, tool) {
		return ciFailure(refuse(api.CodeNotFound, "unknown CI tool %q; CI tools: %s", tool, strings.Join(ciToolNames, ", ")))
	}
	a, err := decodeCIArgs(r)
	if err != nil {
		return ciFailure(err)
	}
	if tool == api.ToolRunStatus {
		return s.ciRunStatus(r, a)
	}
	return s.startCIRun(r, a)
}

// decodeCIArgs reads the body, the args object itself; an empty body is no
// arguments, so curl -X POST works.
func decodeCIArgs(r *http.Request) (args, error) {
	a := args{}
	dec := json.NewDecoder(http.MaxBytesReader(nil, r.Body, maxInvokeBody))
	if err := dec.Decode(&a); err != nil && !errors.Is(err, io.EOF) {
		return nil, refuse(api.CodeValidation, "request body must be a JSON object of arguments: %v", err)
	}
	if a == nil || dec.More() {
		return nil, refuse(api.CodeValidation, "request body must be one JSON object of arguments")
	}
	return a, nil
}

// startCIRun starts a run of the branch argument, registered in the run
// store at once with the checks it will fail.
func (s *Server) startCIRun(r *http.Request, a args) reply {
	branch, _, err := a.str("branch")
	if err != nil {
		return ciFailure(err)
	}
	end, differs := ciBranches[branch]
	if !differs {
		end = ciPassing
	}
	s.ci.mu.Lock()
	if s.ci.runs == nil {
		s.ci.runs = map[string]*ciRun{}
	}
	id := fmt.Sprintf("run_ci_%04d", len(s.ci.runs)+1)
	s.ci.runs[id] = &ciRun{id: id, started: time.Now(), end: end}
	s.runs[id] = &run{id: id, total: ciRunChecks, checks: slices.Clone(end.checks)}
	s.ci.mu.Unlock()
	return ciOK(ciStarted{RunID: id, Status: api.RunQueued, URL: runURL(baseURL(r), id)})
}

func (s *Server) ciRunStatus(r *http.Request, a args) reply {
	id, err := a.requiredStr("runId")
	if err != nil {
		return ciFailure(err)
	}
	s.ci.mu.RLock()
	cr, ok := s.ci.runs[id]
	s.ci.mu.RUnlock()
	if !ok {
		// As on the invoke endpoint, an unknown run names the argument:
		// not_found means an unknown tool.
		return ciFailure(refuse(api.CodeValidation, "runId %q is not a CI run of this sandbox; start one with run_vrt", id))
	}
	step := int(time.Since(cr.started) / s.opts.JobStep)
	st := ciStatus{RunID: id, Status: api.RunRunning, Total: ciRunChecks, URL: runURL(baseURL(r), id)}
	switch {
	case step == 0:
		st.Status = api.RunQueued
	case step <= cr.end.steps:
		st.Progress.Current = (step - 1) * ciRunChecks / ciRunSteps
	default:
		st.Status = cr.end.status
		st.Progress.Current = cr.end.steps * ciRunChecks / ciRunSteps
	}
	st.Progress.Total = ciRunChecks
	// Failures show up as the run reaches them.
	st.Failed = len(cr.end.checks) * st.Progress.Current / ciRunChecks
	return ciOK(st)
}

// runURL is where a person would look at a run, under base; the sandbox
// has no web pages, so it is informational.
func runURL(base, id string) string {
	return base + "/sandbox/runs/" + url.PathEscape(id)
}

func ciOK(v any) reply {
	return reply{status: http.StatusOK, body: mustEncode(v)}
}

// ciFailure is a CI error: the status the contract gives the code, and the
// error object (anything but a refusal is a tool_error).
func ciFailure(err error) reply {
	ref := refusalResponse("", err).Error
	return reply{status: statusFor(ref.Code), body: mustEncode(ciErrorBody{ciError{Code: ref.Code, Message: ref.Message}})}
}
