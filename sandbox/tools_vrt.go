package sandbox

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/visualq/vq/api"
)

// maxInspectActions is the contract's "up to five nextActions" of
// get_run_failures.
const maxInspectActions = 5

// mismatchThreshold is the percentage above which a check fails.
const mismatchThreshold = 0.1

// runFailures is get_run_failures' data; field order is display order.
type runFailures struct {
	RunID    string          `json:"runId"`
	Failed   int             `json:"failed"`
	Total    int             `json:"total"`
	URL      string          `json:"url"`
	Failures []listedFailure `json:"failures"`
}

// listedFailure is a failed check as get_run_failures lists it: with the
// link to its diff image, which CI reports put next to it.
type listedFailure struct {
	check
	DiffURL string `json:"diffUrl"`
}

// lookupRun reads runId and finds the run. An unknown run is a refusal
// naming runId (validation_error): not_found is reserved for unknown tools.
func (s *Server) lookupRun(a args) (*run, error) {
	id, err := a.requiredStr("runId")
	if err != nil {
		return nil, err
	}
	r, ok := s.findRun(id)
	if !ok {
		// A few IDs, not every run the sandbox holds: a refusal is one line.
		ids := s.runIDs()
		more := ""
		if len(ids) > 3 {
			ids, more = ids[:3], fmt.Sprintf(" and %d more", len(ids)-3)
		}
		return nil, refuse(api.CodeValidation, "runId %q not found; sandbox runs: %s%s", id, strings.Join(ids, ", "), more)
	}
	return r, nil
}

func (s *Server) getRunFailures(c *call) reply {
	r, err := s.lookupRun(c.args)
	if err != nil {
		return c.fail(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failures != nil && r.failuresBase == c.baseURL {
		return reply{status: http.StatusOK, body: r.failures}
	}
	data := runFailures{RunID: r.id, Total: r.total, URL: runURL(c.baseURL, r.id), Failures: []listedFailure{}}
	for _, ch := range r.loaded() {
		if !ch.approved {
			data.Failures = append(data.Failures, listedFailure{ch, imageURL(c.baseURL, r.id, ch, "diff.png")})
		}
	}
	data.Failed = len(data.Failures)
	var next []api.NextAction
	for _, ch := range data.Failures[:min(maxInspectActions, len(data.Failures))] {
		next = append(next, action("Inspect "+ch.ScenarioLabel+" "+ch.Viewport, "get_diff_stats",
			map[string]any{"runId": r.id, "scenarioLabel": ch.ScenarioLabel, "viewport": ch.Viewport}))
	}
	rp := c.ok(fmt.Sprintf("%d of %d checks failed.", data.Failed, data.Total), data, next...)
	r.failures, r.failuresBase = rp.body, c.baseURL
	return rp
}

// diffStats is get_diff_stats' data.
type diffStats struct {
	RunID            string   `json:"runId"`
	ScenarioLabel    string   `json:"scenarioLabel"`
	Viewport         string   `json:"viewport"`
	Approved         bool     `json:"approved"`
	Change           string   `json:"change"`
	ChangedPixels    int      `json:"changedPixels"`
	TotalPixels      int      `json:"totalPixels"`
	MismatchPercent  float64  `json:"mismatchPercent"`
	Threshold        float64  `json:"threshold"`
	Regions          []region `json:"regions"`
	BaselineImageURL string   `json:"baselineImageUrl"`
	TestImageURL     string   `json:"testImageUrl"`
	DiffImageURL     string   `json:"diffImageUrl"`
}

type region struct {
	X      int `json:"x"`
	Y      int `json:"y"`
	Width  int `json:"width"`
	Height int `json:"height"`
}

func (s *Server) getDiffStats(c *call) reply {
	r, err := s.lookupRun(c.args)
	if err != nil {
		return c.fail(err)
	}
	scenario, err := c.args.requiredStr("scenarioLabel")
	if err != nil {
		return c.fail(err)
	}
	viewport, err := c.args.requiredStr("viewport")
	if err != nil {
		return c.fail(err)
	}
	ch, ok := r.find(scenario, viewport)
	if !ok {
		return c.fail(r.unknownCheck(scenario, viewport))
	}
	m := newMockup(ch)
	_, changed := m.diff()
	bounds := m.changedBounds()
	data := diffStats{
		RunID:            r.id,
		ScenarioLabel:    scenario,
		Viewport:         viewport,
		Approved:         ch.approved,
		Change:           m.change.kind(),
		ChangedPixels:    changed,
		TotalPixels:      m.size.X * m.size.Y,
		MismatchPercent:  ch.MismatchPercent,
		Threshold:        mismatchThreshold,
		Regions:          []region{{X: bounds.Min.X, Y: bounds.Min.Y, Width: bounds.Dx(), Height: bounds.Dy()}},
		BaselineImageURL: imageURL(c.baseURL, r.id, ch, "baseline.png"),
		TestImageURL:     imageURL(c.baseURL, r.id, ch, "test.png"),
		DiffImageURL:     imageURL(c.baseURL, r.id, ch, "diff.png"),
	}
	summary := fmt.Sprintf("%s on %s: %d pixels changed (%.1f%%), 1 region %s.", scenario, viewport, changed, ch.MismatchPercent, data.Change)
	checkArgs := map[string]any{"runId": r.id, "scenarioLabel": scenario, "viewport": viewport}
	next := []api.NextAction{action("Back to the failures of "+r.id, "get_run_failures", map[string]any{"runId": r.id})}
	if !ch.approved {
		next = slices.Insert(next, 0, action("Approve "+scenario+" "+viewport, "approve_vrt_results", checkArgs))
	}
	return c.ok(summary, data, next...)
}

// approveResult is approve_vrt_results' data.
type approveResult struct {
	RunID     string `json:"runId"`
	Approved  int    `json:"approved"`
	Remaining int    `json:"remaining"`
}

func (s *Server) approveVRTResults(c *call) reply {
	r, err := s.lookupRun(c.args)
	if err != nil {
		return c.fail(err)
	}
	scenario, _, err := c.args.str("scenarioLabel")
	if err != nil {
		return c.fail(err)
	}
	viewport, _, err := c.args.str("viewport")
	if err != nil {
		return c.fail(err)
	}
	approved, remaining, matched := r.approve(scenario, viewport)
	if !matched && (scenario != "" || viewport != "") {
		return c.fail(r.unknownCheck(scenario, viewport))
	}
	summary := fmt.Sprintf("Approved %d %s in %s; %d still failing.", approved, plural(approved, "check", "checks"), r.id, remaining)
	return c.ok(summary, approveResult{RunID: r.id, Approved: approved, Remaining: remaining},
		action("Re-check the failures of "+r.id, "get_run_failures", map[string]any{"runId": r.id}))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
