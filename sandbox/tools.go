package sandbox

import (
	"encoding/json"
	"slices"

	"github.com/visualq/vq/api"
)

// tool is an invoke tool and the gates in front of it.
type tool struct {
	run func(*Server, *call) reply
	// write tools change the project: they need a key with the write scope
	// and the caller's consent (confirm: true).
	write bool
	// tracking tools are a paid feature, refused on the Free plan.
	tracking bool
}

// tools are every invoke tool the seed names, plus get_job_status.
var tools = map[string]tool{
	"get_run_failures":           {run: (*Server).getRunFailures},
	"get_diff_stats":             {run: (*Server).getDiffStats},
	"approve_vrt_results":        {run: (*Server).approveVRTResults, write: true},
	"frt_find_scenarios":         {run: (*Server).findScenarios},
	"create_frt_scenario":        {run: (*Server).createScenario, write: true},
	"tracking_get_plan":          {run: (*Server).trackingPlan, tracking: true},
	"run_tracking":               {run: (*Server).runTracking, tracking: true},
	"tracking_prove_jira_ticket": {run: (*Server).proveTicket, tracking: true},
	"get_job_status":             {run: (*Server).jobStatus},
}

func toolNames() []string {
	names := make([]string, 0, len(tools))
	for name := range tools {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// admit applies the key's scope and plan, then the write consent. Consent
// comes last: asking a person to confirm a call that would be refused
// anyway wastes their yes.
func (t tool) admit(name string, key Key, a args) error {
	if t.write && key.readOnly {
		return refuse(api.CodeScopeDenied, "%s needs the write scope; this API key has read scopes only", name)
	}
	if t.tracking && key.freePlan {
		return refuse(api.CodePlanGate, "%s is a tracking tool, not included in the Free plan; upgrade to Pro to use it", name)
	}
	if !t.write {
		return nil
	}
	ok, err := a.confirmed()
	if err != nil {
		return err
	}
	if !ok {
		return refuse(api.CodeConfirmRequired, "confirm must be true to execute write tool %s", name)
	}
	return nil
}

// ok answers success with data and suggested follow-ups.
func (c *call) ok(summary string, data any, next ...api.NextAction) reply {
	return c.okWarn(summary, data, nil, next...)
}

func (c *call) okWarn(summary string, data any, warnings []string, next ...api.NextAction) reply {
	raw, err := encode(data)
	if err != nil {
		return c.fail(err)
	}
	return respond(&api.ToolResponse{
		OK:          true,
		Tool:        c.tool,
		Summary:     summary,
		Data:        json.RawMessage(raw),
		Warnings:    warnings,
		NextActions: next,
	})
}

func (c *call) fail(err error) reply { return failure(c.tool, err) }

// action is a suggested follow-up call.
func action(label, tool string, args map[string]any) api.NextAction {
	return api.NextAction{Label: label, Tool: tool, Args: args}
}
