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
	// starts tools start work (a tracking run, a proof): neither writes
	// nor reads, so not read-only either.
	starts bool
	// about is what tools/list says of it on the MCP endpoint.
	about mcpTool
}

// tools are every invoke tool of the contract, plus get_job_status.
var tools = map[string]tool{
	"get_run_failures": {run: (*Server).getRunFailures,
		about: mcpTool{title: "Run failures", description: "The failed checks of a visual-regression run.",
			args: []mcpArg{{name: "runId", typ: "string", required: true, description: "the run, e.g. run_abc"}}}},
	"get_diff_stats": {run: (*Server).getDiffStats,
		about: mcpTool{title: "Diff statistics", description: "How one scenario and viewport of a run differ from the baseline.",
			args: []mcpArg{{name: "runId", typ: "string", required: true}, {name: "scenarioLabel", typ: "string", required: true}, {name: "viewport", typ: "string", required: true}}}},
	"approve_vrt_results": {run: (*Server).approveVRTResults, write: true,
		about: mcpTool{title: "Approve results", description: "Accept a run's screenshots as the new baseline (all, or one scenario and viewport).", destructive: true,
			args: []mcpArg{{name: "runId", typ: "string", required: true}, {name: "scenarioLabel", typ: "string"}, {name: "viewport", typ: "string"}, {name: "confirm", typ: "boolean", description: "true to consent to the write"}}}},
	"frt_find_scenarios": {run: (*Server).findScenarios,
		about: mcpTool{title: "Find scenarios", description: "Search the functional-test scenarios.",
			args: []mcpArg{{name: "query", typ: "string", required: true}}}},
	"create_frt_scenario": {run: (*Server).createScenario, write: true,
		about: mcpTool{title: "Create scenario", description: "Create a functional-test scenario from a goal (or find the existing one).",
			args: []mcpArg{{name: "goal", typ: "string", required: true}, {name: "startPath", typ: "string"}, {name: "confirm", typ: "boolean", description: "true to consent to the write"}}}},
	"tracking_get_plan": {run: (*Server).trackingPlan, tracking: true,
		about: mcpTool{title: "Tracking plan", description: "The analytics events a scenario is expected to send.",
			args: []mcpArg{{name: "scenarioId", typ: "string"}}}},
	"run_tracking": {run: (*Server).runTracking, tracking: true, starts: true,
		about: mcpTool{title: "Run tracking", description: "Run a scenario and capture its analytics events (long-running: answers a token).",
			args: []mcpArg{{name: "scenarioId", typ: "string"}, argToken}}},
	"tracking_prove_jira_ticket": {run: (*Server).proveTicket, tracking: true, starts: true,
		about: mcpTool{title: "Prove a JIRA ticket", description: "Prove a ticket's tracking works end to end (long-running: answers a token).",
			args: []mcpArg{{name: "ticket", typ: "string", required: true, description: "e.g. BN-470"}, argToken}}},
	"get_job_status": {run: (*Server).jobStatus,
		about: mcpTool{title: "Job status", description: "How an async job is doing.",
			args: []mcpArg{{name: "jobId", typ: "string", required: true}}}},
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
