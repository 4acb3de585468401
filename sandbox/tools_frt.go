package sandbox

import (
	"cmp"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/visualq/vq/api"
)

// maxPlanActions bounds the tracking_get_plan suggestions of a search.
const maxPlanActions = 3

// scenarioSearch is frt_find_scenarios' data.
type scenarioSearch struct {
	Query     string          `json:"query"`
	Scenarios []scenarioMatch `json:"scenarios"`
}

func (s *Server) findScenarios(c *call) reply {
	query, err := c.args.requiredStr("query")
	if err != nil {
		return c.fail(err)
	}
	matches := s.scenarios.find(query)
	var next []api.NextAction
	for _, m := range matches[:min(maxPlanActions, len(matches))] {
		next = append(next, action("Tracking plan of "+m.ID, "tracking_get_plan", map[string]any{"scenarioId": m.ID}))
	}
	summary := fmt.Sprintf("%d %s match %q.", len(matches), plural(len(matches), "scenario", "scenarios"), query)
	return c.ok(summary, scenarioSearch{Query: query, Scenarios: matches}, next...)
}

// trackingClause is the part of a goal asking to verify tracking, which an
// FRT scenario cannot do: it scripts user actions, tracking tools check
// the events.
var trackingClause = lazyRegexp(`(?i)[\s,;]*\b(?:(?:and|then)\s+)?(?:verify|check|validate|assert|confirm)\s+(?:that\s+)?(?:the\s+)?tracking\b.*$`)

// pathInGoal is a start path written in the goal ("... on /checkout").
var pathInGoal = lazyRegexp(`(?:^|\s)(/[\w\-./]*)`)

// scenarioCreation is create_frt_scenario's data.
type scenarioCreation struct {
	Resolved       string   `json:"resolved"` // "existing" or "created"
	Scenario       scenario `json:"scenario"`
	StrippedClause string   `json:"strippedClause,omitempty"`
}

func (s *Server) createScenario(c *call) reply {
	goal, present, err := c.args.str("goal")
	if err != nil {
		return c.fail(err)
	}
	if !present {
		return c.fail(refuse(api.CodeValidation, "goal is required"))
	}
	startPath, _, err := c.args.str("startPath")
	if err != nil {
		return c.fail(err)
	}
	if startPath != "" && !strings.HasPrefix(startPath, "/") {
		return c.fail(refuse(api.CodeValidation, "startPath must be a path starting with /, got %q", startPath))
	}
	clause := strings.TrimLeft(trackingClause().FindString(goal), " \t,;")
	task := strings.TrimSpace(trackingClause().ReplaceAllString(goal, ""))
	if task == "" {
		if clause != "" {
			return c.fail(refuse(api.CodePipelineBlocked, "goal only asks to verify tracking: describe the user action to script (e.g. \"Click Add to cart on /products/trail-runner\"), then check events with tracking_get_plan and run_tracking"))
		}
		return c.fail(refuse(api.CodePipelineBlocked, "goal is empty: describe what the scenario should do, e.g. \"Add a product to the cart\""))
	}

	sc, existing, err := s.scenarios.resolveOrAdd(task, func(id string) (scenario, error) {
		path := cmp.Or(startPath, impliedStartPath(task))
		if path == "" {
			return scenario{}, refuse(api.CodePipelineBlocked, "startPath is missing and the goal names no page: pass startPath (e.g. /checkout)")
		}
		if strings.Contains(strings.ToLower(task), "unsaveable") {
			return scenario{}, refuse(api.CodeSaveFailed, "saving the feature failed: step 2 does not compile (no element matches \"unsaveable\"); rephrase the goal")
		}
		return scenario{ID: id, Name: sentence(task), StartPath: path, events: []string{"page_view", "select_content"}}, nil
	})
	if err != nil {
		return c.fail(err)
	}

	data := scenarioCreation{Resolved: "created", Scenario: sc, StrippedClause: clause}
	summary := fmt.Sprintf("Created scenario %s %q starting at %s.", sc.ID, sc.Name, sc.StartPath)
	if existing {
		data.Resolved = "existing"
		summary = fmt.Sprintf("Scenario %s %q already covers this goal; nothing created.", sc.ID, sc.Name)
	}
	if clause == "" {
		return c.ok(summary, data)
	}
	warning := fmt.Sprintf("removed %q from the goal: scenarios script user actions; tracking_get_plan and run_tracking verify the events", clause)
	scenarioArgs := map[string]any{"scenarioId": sc.ID}
	return c.okWarn(summary, data, []string{warning},
		action("Tracking plan of "+sc.ID, "tracking_get_plan", scenarioArgs),
		action("Run tracking on "+sc.ID, "run_tracking", scenarioArgs))
}

// impliedStartPath is the page a goal names, "" when it names none.
func impliedStartPath(goal string) string {
	if m := pathInGoal().FindStringSubmatch(goal); m != nil {
		return m[1]
	}
	lower := strings.ToLower(goal)
	if strings.Contains(lower, "homepage") || strings.Contains(lower, "home page") {
		return "/"
	}
	return ""
}

// sentence capitalises the first letter of a goal to make a scenario name.
func sentence(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[size:]
}

// lazyRegexp compiles expr on first use, so vq's start-up (the sandbox is
// linked into it) does not pay for the sandbox's patterns.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
