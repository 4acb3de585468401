package api

import (
	"fmt"
	"maps"
	"slices"
)

// The tool registry: what vq knows of VisualQ tools without asking a server.
const (
	ToolRunFailures    = "get_run_failures"
	ToolDiffStats      = "get_diff_stats"
	ToolApprove        = "approve_vrt_results"
	ToolCreateScenario = "create_frt_scenario"
	ToolFindScenarios  = "frt_find_scenarios"
	ToolTrackingPlan   = "tracking_get_plan"
	ToolRunTracking    = "run_tracking"
	ToolProve          = "tracking_prove_jira_ticket"
	ToolJobStatus      = "get_job_status"
	ToolRunVRT         = "run_vrt"
	ToolRunPerf        = "run_perf"
	ToolRunStatus      = "get_run_status"
)

// ArgConfirm carries a write's consent: only a JSON true lets it happen.
const ArgConfirm = "confirm"

// ToolSpec is what vq knows of one tool.
type ToolSpec struct {
	Name    string
	Summary string
	// Args in the order a person gives them, without ArgConfirm.
	Args      []ToolArg
	ExtraArgs bool // takes KEY=VALUE pairs beyond Args
	Write     bool // changes a project: needs consent
	// ReadOnly tools may always be sent again; a tool neither Write nor
	// ReadOnly starts work and is not sent twice either.
	ReadOnly bool
	Check    *ToolCheck // the read that tells whether a lost call was carried out
	Verb     string     // a write's word in the TUI ("approve")
	Async    bool       // answers {jobId, status: queued}
	CI       bool       // called at the CI endpoint
}

// ToolCheck is the read checking whether a call was carried out.
type ToolCheck struct {
	Tool string
	Args map[string]string
}

func requiredArg(name, description string) ToolArg {
	return ToolArg{Name: name, Type: "string", Required: true, Description: description}
}

func optionalArg(name, description string) ToolArg {
	return ToolArg{Name: name, Type: "string", Description: description}
}

// ciStartArgs are the arguments vq proposes for run_vrt and run_perf
// (docs/contract.md); a server may take more.
var ciStartArgs = []ToolArg{
	optionalArg("branch", "the branch the run checks"),
	optionalArg("commit", "the commit the run checks"),
	optionalArg("url", "the URL of the deployment to test, e.g. a preview"),
	optionalArg("baselineBranch", "the branch whose baseline the run compares with; default, its own"),
}

// registry is in name order, the order KnownTools promises.
var registry = []ToolSpec{
	{Name: ToolApprove, Summary: "Accept a run's screenshots as the new baseline, all of them or one scenario and viewport.",
		Args: []ToolArg{
			requiredArg("runId", "the run whose changes are accepted"),
			optionalArg("scenarioLabel", "only the checks of this scenario"),
			optionalArg("viewport", "only the checks of this viewport"),
		},
		Write: true, Verb: "approve", Check: &ToolCheck{Tool: ToolRunFailures, Args: map[string]string{"runId": "runId"}}},
	{Name: ToolCreateScenario, Summary: "Create a functional-test scenario from a plain-language goal, or reuse the one that matches.",
		Args: []ToolArg{
			requiredArg("goal", "what the scenario should do"),
			optionalArg("startPath", "the path the scenario starts from, e.g. /checkout"),
		},
		Write: true, Verb: "create", Check: &ToolCheck{Tool: ToolFindScenarios, Args: map[string]string{"query": "goal"}}},
	{Name: ToolFindScenarios, Summary: "Search the functional-test scenarios.",
		Args:     []ToolArg{requiredArg("query", "words the scenarios should match")},
		ReadOnly: true},
	{Name: ToolDiffStats, Summary: "How one scenario and viewport of a run differ from the baseline.",
		Args: []ToolArg{
			requiredArg("runId", "the run"),
			requiredArg("scenarioLabel", "the scenario of the check"),
			requiredArg("viewport", "the viewport of the check"),
		},
		ReadOnly: true},
	{Name: ToolJobStatus, Summary: "How an async job is doing, and its result once it has ended.",
		Args:     []ToolArg{requiredArg("jobId", "the job an async tool answered")},
		ReadOnly: true},
	{Name: ToolRunFailures, Summary: "The failed checks of a visual-regression run.",
		Args:     []ToolArg{requiredArg("runId", "the run")},
		ReadOnly: true},
	{Name: ToolRunStatus, Summary: "How a CI run is doing, and its verdict once it has one.",
		Args:     []ToolArg{requiredArg("runId", "the run run_vrt or run_perf started")},
		ReadOnly: true, CI: true},
	{Name: ToolRunPerf, Summary: "Start a performance run from a pipeline.",
		Args:      ciStartArgs,
		ExtraArgs: true, CI: true},
	{Name: ToolRunTracking, Summary: "Run a scenario and capture the analytics events it sends.",
		Args:      []ToolArg{optionalArg("scenarioId", "the scenario to run; the whole project without it")},
		ExtraArgs: true, Async: true},
	{Name: ToolRunVRT, Summary: "Start a visual-regression run from a pipeline.",
		Args:      ciStartArgs,
		ExtraArgs: true, CI: true},
	{Name: ToolTrackingPlan, Summary: "The analytics events a scenario, or the whole project, is expected to send.",
		Args:      []ToolArg{optionalArg("scenarioId", "the scenario; the whole project's plan without it")},
		ExtraArgs: true, ReadOnly: true},
	{Name: ToolProve, Summary: "Prove that the tracking a JIRA ticket asks for fires, with a comment to paste into the ticket.",
		Args:  []ToolArg{requiredArg("ticket", "the JIRA ticket, e.g. BN-470")},
		Async: true},
}

// KnownTools are copies of the registry's tools in name order.
func KnownTools() []ToolSpec {
	out := make([]ToolSpec, len(registry))
	for i, t := range registry {
		out[i] = t.clone()
	}
	return out
}

// LookupTool is the registry's tool named name.
func LookupTool(name string) (ToolSpec, bool) {
	i := slices.IndexFunc(registry, func(t ToolSpec) bool { return t.Name == name })
	if i < 0 {
		return ToolSpec{}, false
	}
	return registry[i].clone(), true
}

// MustTool is LookupTool for the Tool constants: it panics on any other name.
func MustTool(name string) ToolSpec {
	t, ok := LookupTool(name)
	if !ok {
		panic("api: no tool " + name + " in the registry")
	}
	return t
}

// ReadOnlyTool is the one read-only rule: the registry's mark, else the
// server's readOnlyHint.
func ReadOnlyTool(tool string, hinted bool) bool {
	if t, ok := LookupTool(tool); ok {
		return t.ReadOnly
	}
	return hinted
}

// CheckCall is the registry's Check of call; false when vq knows none.
func CheckCall(call Call) (Call, bool) {
	t, ok := LookupTool(call.Tool)
	if !ok || t.Check == nil {
		return Call{}, false
	}
	args := map[string]any{}
	for to, from := range t.Check.Args {
		v, set := call.Args[from]
		if !set {
			return Call{}, false
		}
		args[to] = v
	}
	return Call{Tool: t.Check.Tool, Args: args}, true
}

// KnownWriteTool reports the registry's Write tools.
func KnownWriteTool(tool string) bool {
	t, ok := LookupTool(tool)
	return ok && t.Write
}

func (t ToolSpec) clone() ToolSpec {
	t.Args = slices.Clone(t.Args)
	if t.Check != nil {
		check := *t.Check
		check.Args = maps.Clone(check.Args)
		t.Check = &check
	}
	return t
}

// InputArgs are Args, then a write tool's ArgConfirm.
func (t ToolSpec) InputArgs() []ToolArg {
	args := slices.Clone(t.Args)
	if t.Write {
		args = append(args, ToolArg{Name: ArgConfirm, Type: "boolean", Description: "true to consent to the write"})
	}
	return args
}

// Call builds the call, nil and "" left out; *ArgError on a bad argument.
func (t ToolSpec) Call(values map[string]any) (Call, error) {
	args := make(map[string]any, len(values))
	for name, v := range values {
		if v != nil && v != "" {
			args[name] = v
		}
	}
	for _, a := range t.InputArgs() {
		if _, set := args[a.Name]; a.Required && !set {
			return Call{}, &ArgError{Tool: t.Name, Arg: a.Name, Missing: true}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(args)) {
		if !t.TakesArg(name) {
			return Call{}, &ArgError{Tool: t.Name, Arg: name}
		}
	}
	return Call{Tool: t.Name, Args: args}, nil
}

// TakesArg reports whether a call of the tool may carry the argument name.
func (t ToolSpec) TakesArg(name string) bool {
	return t.ExtraArgs || slices.ContainsFunc(t.InputArgs(), func(a ToolArg) bool { return a.Name == name })
}

// ArgError is a call that ToolSpec.Call refuses to build.
type ArgError struct {
	Tool, Arg string
	Missing   bool // a required argument, else one the tool does not take
}

func (e *ArgError) Error() string {
	if e.Missing {
		return fmt.Sprintf("%s needs %s", e.Tool, e.Arg)
	}
	return fmt.Sprintf("%s takes no argument %s", e.Tool, e.Arg)
}
