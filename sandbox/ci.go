package sandbox

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
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
// is decided when it starts (the branch's changes less those its baseline
// holds) and its progress derives from the time elapsed; approving every
// change it found makes it pass.
type ciRun struct {
	id      string
	branch  string
	started time.Time
	end     ciBranch
}

// ciState holds the CI runs. Its mu also guards Server.runs, which CI runs
// join while the server serves, so that get_run_failures, get_diff_stats,
// approvals and images answer for them too.
type ciState struct {
	mu   sync.RWMutex
	runs map[string]*ciRun
	// keys are the starts by Idempotency-Key: the same key answers the
	// same run, with another body it is refused (docs/contract.md).
	keys map[string]keyedStart
}

// keyedStart is a start made with an Idempotency-Key: its body and answer.
type keyedStart struct {
	body  []byte
	reply reply
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

// ciStatus is the answer of get_run_status; Approved counts the changes
// approved since the run found them.
type ciStatus struct {
	RunID    string   `json:"runId"`
	Status   string   `json:"status"`
	Progress progress `json:"progress"`
	Failed   int      `json:"failed"`
	Total    int      `json:"total"`
	Approved int      `json:"approved,omitempty"`
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

// startArgs are the arguments of run_vrt and run_perf vq documents
// (docs/contract.md); others are ignored.
type startArgs struct {
	branch, baselineBranch string
}

func readStartArgs(a args) (startArgs, error) {
	var st startArgs
	var err error
	if st.branch, _, err = a.str("branch"); err != nil {
		return st, err
	}
	if st.baselineBranch, _, err = a.str("baselineBranch"); err != nil {
		return st, err
	}
	if _, _, err = a.str("commit"); err != nil {
		return st, err
	}
	target, present, err := a.str("url")
	if err != nil || !present {
		return st, err
	}
	if u, err := url.Parse(target); err != nil || u.Host == "" || u.Scheme != "http" && u.Scheme != "https" {
		return st, refuse(api.CodeValidation, "url must be the http(s) URL of the deployment to test, got %q", target)
	}
	return st, nil
}

// startCIRun starts a run of the branch argument, registered in the run
// store at once with the checks it will fail: the branch's changes that
// the baseline (baselineBranch, else the branch) has not approved. A start
// with an Idempotency-Key already seen answers that start again.
func (s *Server) startCIRun(r *http.Request, a args) reply {
	st, err := readStartArgs(a)
	if err != nil {
		return ciFailure(err)
	}
	key, keyed, err := idempotencyKey(r.Header)
	if err != nil {
		return ciFailure(err)
	}
	body := mustEncode(a)
	end, differs := ciBranches[st.branch]
	if !differs {
		end = ciPassing
	}
	s.ci.mu.Lock()
	defer s.ci.mu.Unlock()
	if prior, seen := s.ci.keys[key]; keyed && seen {
		if !bytes.Equal(prior.body, body) {
			rp := ciFailure(refuse(api.CodeValidation, "Idempotency-Key %q was sent with another request body; a new start needs a new key", key))
			rp.status = http.StatusUnprocessableEntity
			return rp
		}
		return prior.reply
	}
	end.checks = slices.DeleteFunc(slices.Clone(end.checks), func(c check) bool { return s.inBaseline(cmp.Or(st.baselineBranch, st.branch), c) })
	if end.status == api.RunFailed && len(end.checks) == 0 {
		end.status = api.RunPassed
	}
	id := fmt.Sprintf("run_ci_%04d", len(s.ci.runs)+1)
	s.ci.runs[id] = &ciRun{id: id, branch: st.branch, started: time.Now(), end: end}
	s.runs[id] = &run{id: id, total: ciRunChecks, checks: slices.Clone(end.checks)}
	rp := ciOK(ciStarted{RunID: id, Status: api.RunQueued, URL: runURL(baseURL(r), id)})
	if keyed {
		s.ci.keys[key] = keyedStart{body: body, reply: rp}
	}
	return rp
}

// inBaseline reports whether a run of branch approved c's change. The
// caller holds s.ci.mu.
func (s *Server) inBaseline(branch string, c check) bool {
	for _, cr := range s.ci.runs {
		if prior, ok := s.runs[cr.id].find(c.ScenarioLabel, c.Viewport); cr.branch == branch && ok && prior.approved {
			return true
		}
	}
	return false
}

// idempotencyKey reads the Idempotency-Key header: a structured-field
// string as the IETF httpapi draft has it ("..."), or a bare value.
func idempotencyKey(h http.Header) (key string, keyed bool, err error) {
	values := h.Values("Idempotency-Key")
	if len(values) == 0 {
		return "", false, nil
	}
	key = values[0]
	if unquoted, err := strconv.Unquote(key); err == nil && strings.HasPrefix(key, `"`) {
		key = unquoted
	}
	if len(values) > 1 || strings.TrimSpace(key) == "" {
		return "", false, refuse(api.CodeValidation, "Idempotency-Key must be one non-empty string")
	}
	return key, true, nil
}

func (s *Server) ciRunStatus(r *http.Request, a args) reply {
	id, err := a.requiredStr("runId")
	if err != nil {
		return ciFailure(err)
	}
	s.ci.mu.RLock()
	cr, ok := s.ci.runs[id]
	failing := 0
	if ok {
		failing = s.runs[id].remaining()
	}
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
	// Failures show up as the run reaches them; once every one is
	// approved, the run passes.
	st.Failed = failing * st.Progress.Current / ciRunChecks
	st.Approved = len(cr.end.checks) - failing
	if st.Status == api.RunFailed && failing == 0 {
		st.Status = api.RunPassed
	}
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
