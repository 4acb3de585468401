package api

import (
	"fmt"
	"maps"
	"slices"
)

// The tool registry: every VisualQ tool vq knows by name, described once.
// Task commands build their calls from it, completion offers it when no
// server lists its tools, and consent is asked for the tools it marks as
// writes. A server may offer more tools (vq invoke calls any of them); the
// registry is what the client relies on without asking.

// The names of the tools in the registry.
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

// ArgConfirm is the argument of a write tool that carries the caller's
// consent: only a JSON true lets the write happen.
const ArgConfirm = "confirm"

// ToolSpec is what vq knows of one tool.
type ToolSpec struct {
	Name string
	// Summary says in one line what the tool does.
	Summary string
	// Args are the tool's own arguments, in the order a person gives them;
	// a write tool's consent (ArgConfirm) is implied by Write, not listed.
	Args []ToolArg
	// ExtraArgs tools take KEY=VALUE pairs beyond Args and pass them on.
	ExtraArgs bool
	// Write tools change a project, so they need consent: confirm: true.
	Write bool
	// ReadOnly tools change nothing: a call of one may always be sent
	// again (the retry policy). A tool neither Write nor ReadOnly starts
	// work (a job, a CI run) and is not sent twice either.
	ReadOnly bool
	// Check is the read that tells whether a call of this tool was carried
	// out, when its answer was lost: its tool, and which of its arguments
	// take which of the call's (check argument → call argument).
	Check *ToolCheck
	// Verb is what a person does with a write tool, in the words the
	// TUI's keys and consent dialog use ("approve").
	Verb string
	// Async tools answer {jobId, status: queued} at once; the job is then
	// followed with get_job_status.
	Async bool
	// CI tools are called through POST {base}/api/ci/{tool} and answer plain
	// JSON; the others go through the invoke endpoint.
	CI bool
}

// ToolCheck is the read that checks whether a call was carried out.
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
		Args:      []ToolArg{optionalArg("branch", "the branch the run checks")},
		ExtraArgs: true, CI: true},
	{Name: ToolRunTracking, Summary: "Run a scenario and capture the analytics events it sends.",
		Args:      []ToolArg{optionalArg("scenarioId", "the scenario to run; the whole project without it")},
		ExtraArgs: true, Async: true},
	{Name: ToolRunVRT, Summary: "Start a visual-regression run from a pipeline.",
		Args:      []ToolArg{optionalArg("branch", "the branch the run checks")},
		ExtraArgs: true, CI: true},
	{Name: ToolTrackingPlan, Summary: "The analytics events a scenario, or the whole project, is expected to send.",
		Args:      []ToolArg{optionalArg("scenarioId", "the scenario; the whole project's plan without it")},
		ExtraArgs: true, ReadOnly: true},
	{Name: ToolProve, Summary: "Prove that the tracking a JIRA ticket asks for fires, with a comment to paste into the ticket.",
		Args:  []ToolArg{requiredArg("ticket", "the JIRA ticket, e.g. BN-470")},
		Async: true},
}

// KnownTools are the registry's tools in name order. They are copies:
// changing one does not change the registry.
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

// MustTool is the registry's tool named name, for the Tool constants of
// this package: any other name is a programming error, and it panics.
func MustTool(name string) ToolSpec {
	t, ok := LookupTool(name)
	if !ok {
		panic("api: no tool " + name + " in the registry")
	}
	return t
}

// ReadOnlyTool is the one rule of which tools change nothing: those vq
// mcp serve --read-only offers, and those the retry policy may send
// again. A tool of the registry is read-only by its ReadOnly mark,
// whatever a server says of it; any other tool only when its server
// annotates it readOnlyHint: true (hinted).
func ReadOnlyTool(tool string, hinted bool) bool {
	if t, ok := LookupTool(tool); ok {
		return t.ReadOnly
	}
	return hinted
}

// CheckCall is the read that checks whether call was carried out (the
// registry's Check, given the call's arguments); false when vq knows none.
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

// KnownWriteTool reports the registry's tools that change a project (they
// ask for consent): what marks write actions when no tool list with MCP
// annotations is at hand.
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

// InputArgs are the arguments a server lists for the tool: Args, then the
// consent argument of a write tool.
func (t ToolSpec) InputArgs() []ToolArg {
	args := slices.Clone(t.Args)
	if t.Write {
		args = append(args, ToolArg{Name: ArgConfirm, Type: "boolean", Description: "true to consent to the write"})
	}
	return args
}

// Call is the call of the tool with these argument values. Unset optional
// values (nil or "") are left out, as a command's empty flags are. The
// error is an *ArgError when a required value is unset, or when a tool
// without ExtraArgs is given an argument it does not take.
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

// TakesArg reports whether a call of the tool may carry the argument
// name: one of its InputArgs, or any for a tool with ExtraArgs.
func (t ToolSpec) TakesArg(name string) bool {
	return t.ExtraArgs || slices.ContainsFunc(t.InputArgs(), func(a ToolArg) bool { return a.Name == name })
}

// ArgError is a call that ToolSpec.Call refuses to build: a required
// argument is missing, or an argument is one the tool does not take.
type ArgError struct {
	Tool, Arg string
	// Missing is true for a missing required argument, false for an
	// argument the tool does not take.
	Missing bool
}

func (e *ArgError) Error() string {
	if e.Missing {
		return fmt.Sprintf("%s needs %s", e.Tool, e.Arg)
	}
	return fmt.Sprintf("%s takes no argument %s", e.Tool, e.Arg)
}
