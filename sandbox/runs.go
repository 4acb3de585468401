package sandbox

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/fixture"
)

// check is one failed visual check of a run: a scenario on a viewport.
type check struct {
	ScenarioLabel   string  `json:"scenarioLabel"`
	Viewport        string  `json:"viewport"`
	MismatchPercent float64 `json:"mismatchPercent"`

	approved bool
}

// run is a VRT run. Its failed checks stay listed after approval (diff
// stats and images still answer for them); only unapproved ones count.
type run struct {
	id    string
	total int

	mu sync.Mutex
	// generate makes the checks of a large run on first use; nil afterwards.
	generate func() []check
	checks   []check
	// failures is the encoded get_run_failures answer for failuresBase
	// (its links are absolute), dropped by an approval: run_100k's
	// ~16 MB is encoded once, not per call.
	failures     []byte
	failuresBase string
}

func seedRuns() map[string]*run {
	runs := []*run{
		{id: "run_abc", total: 12, checks: []check{
			{ScenarioLabel: "Homepage", Viewport: "desktop", MismatchPercent: 4.2},
			{ScenarioLabel: "Checkout", Viewport: "mobile", MismatchPercent: 2.7},
			{ScenarioLabel: "Product page", Viewport: "tablet", MismatchPercent: 0.8},
		}},
		{id: "run_pass", total: 8},
		{id: "run_big", total: 480, generate: generatedChecks(350)},
		{id: "run_100k", total: 120_000, generate: generatedChecks(100_000)},
	}
	byID := make(map[string]*run, len(runs))
	for _, r := range runs {
		byID[r.id] = r
	}
	return byID
}

// generatedChecks are fixture.Checks(n), the checks the benchmarks also
// decode, made on first use.
func generatedChecks(n int) func() []check {
	return func() []check {
		checks := make([]check, n)
		for i, c := range fixture.Checks(n) {
			checks[i] = check{ScenarioLabel: c.ScenarioLabel, Viewport: c.Viewport, MismatchPercent: c.MismatchPercent}
		}
		return checks
	}
}

// loaded returns the run's checks, generating them on first use. The
// caller holds r.mu.
func (r *run) loaded() []check {
	if r.generate != nil {
		r.checks = r.generate()
		r.generate = nil
	}
	return r.checks
}

// find returns the failed check of scenario on viewport, approved or not.
func (r *run) find(scenario, viewport string) (check, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	checks := r.loaded()
	i := slices.IndexFunc(checks, func(c check) bool { return c.ScenarioLabel == scenario && c.Viewport == viewport })
	if i < 0 {
		return check{}, false
	}
	return checks[i], true
}

// remaining counts the failed checks not approved.
func (r *run) remaining() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, c := range r.loaded() {
		if !c.approved {
			n++
		}
	}
	return n
}

// unknownCheck refuses a scenario/viewport filter that matches no failed
// check, listing a few that exist.
func (r *run) unknownCheck(scenario, viewport string) error {
	var filter []string
	if scenario != "" {
		filter = append(filter, fmt.Sprintf("scenarioLabel %q", scenario))
	}
	if viewport != "" {
		filter = append(filter, fmt.Sprintf("viewport %q", viewport))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	checks := r.loaded()
	if len(checks) == 0 {
		return refuse(api.CodeValidation, "%s has no failed checks, so none matches %s", r.id, strings.Join(filter, " "))
	}
	some := make([]string, 0, maxInspectActions)
	for _, c := range checks[:min(maxInspectActions, len(checks))] {
		some = append(some, c.ScenarioLabel+"/"+c.Viewport)
	}
	return refuse(api.CodeValidation, "%s has no failed check matching %s; failed checks include %s",
		r.id, strings.Join(filter, " "), strings.Join(some, ", "))
}

// approve marks the unapproved checks that match the (optional) scenario
// and viewport as accepted, reporting how many it approved and how many
// failures remain.
func (r *run) approve(scenario, viewport string) (approved, remaining int, matched bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	checks := r.loaded()
	for i := range checks {
		c := &checks[i]
		if (scenario == "" || c.ScenarioLabel == scenario) && (viewport == "" || c.Viewport == viewport) {
			matched = true
			if !c.approved {
				c.approved = true
				approved++
			}
		}
		if !c.approved {
			remaining++
		}
	}
	if approved > 0 {
		r.failures = nil
	}
	return approved, remaining, matched
}
