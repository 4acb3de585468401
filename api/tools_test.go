package api

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// fixedSurface is the part of vq's surface that users, scripts and the
// service rely on: the tools the task commands call, with which argument
// names (a trailing ? marks an optional one), and what each tool is
// (which command fronts which tool is cmd's command table, held to the
// spec by its own test). It is written out here rather than read from the
// registry so that a change to the registry that breaks it fails.
var fixedSurface = []struct {
	tool         string
	args         []string
	extra        bool // KEY=VALUE pairs pass through
	write, async bool
	ci           bool
}{
	{"get_run_failures", []string{"runId"}, false, false, false, false},
	{"get_diff_stats", []string{"runId", "scenarioLabel", "viewport"}, false, false, false, false},
	{"approve_vrt_results", []string{"runId", "scenarioLabel?", "viewport?"}, false, true, false, false},
	{"create_frt_scenario", []string{"goal", "startPath?"}, false, true, false, false},
	{"frt_find_scenarios", []string{"query"}, false, false, false, false},
	{"tracking_get_plan", []string{"scenarioId?"}, true, false, false, false},
	{"run_tracking", []string{"scenarioId?"}, true, false, true, false},
	{"tracking_prove_jira_ticket", []string{"ticket"}, false, false, true, false},
	{"get_job_status", []string{"jobId"}, false, false, false, false},
	{"run_vrt", []string{"branch?", "commit?", "url?", "baselineBranch?"}, true, false, false, true},
	{"run_perf", []string{"branch?", "commit?", "url?", "baselineBranch?"}, true, false, false, true},
	{"get_run_status", []string{"runId"}, false, false, false, true},
}

// Every tool of the fixed surface is in the registry as the surface says;
// the registry may know more (a new task command adds its tool there).
func TestRegistryIsTheFixedSurface(t *testing.T) {
	t.Parallel()
	for _, want := range fixedSurface {
		spec, ok := LookupTool(want.tool)
		if !ok {
			t.Errorf("%s is not in the registry", want.tool)
			continue
		}
		var args []string
		for _, a := range spec.Args {
			if a.Description == "" || a.Type != "string" {
				t.Errorf("%s.%s: type %q, description %q: want a string with a description", spec.Name, a.Name, a.Type, a.Description)
			}
			if !a.Required {
				a.Name += "?"
			}
			args = append(args, a.Name)
		}
		got := fmt.Sprint(args, spec.ExtraArgs, spec.Write, spec.Async, spec.CI)
		if w := fmt.Sprint(want.args, want.extra, want.write, want.async, want.ci); got != w {
			t.Errorf("%s: args, extra, write, async, ci = %s, want %s", want.tool, got, w)
		}
		if spec.Summary == "" || strings.Contains(spec.Summary, "\n") {
			t.Errorf("%s: summary %q, want one line", spec.Name, spec.Summary)
		}
	}
	if !slices.IsSortedFunc(KnownTools(), func(a, b ToolSpec) int { return strings.Compare(a.Name, b.Name) }) {
		t.Error("KnownTools is not in name order")
	}
}

func TestKnownWriteToolsAreTheRegistrysWrites(t *testing.T) {
	t.Parallel()
	for tool, want := range map[string]bool{
		ToolApprove: true, ToolCreateScenario: true,
		ToolRunFailures: false, ToolRunTracking: false, ToolRunVRT: false, "delete_everything": false,
	} {
		if KnownWriteTool(tool) != want {
			t.Errorf("KnownWriteTool(%s) = %v, want %v", tool, !want, want)
		}
	}
}

func TestInputArgsAddConsentToWrites(t *testing.T) {
	t.Parallel()
	names := func(args []ToolArg) (out []string) {
		for _, a := range args {
			out = append(out, a.Name+":"+a.Type)
		}
		return out
	}
	if got := names(MustTool(ToolCreateScenario).InputArgs()); !slices.Equal(got, []string{"goal:string", "startPath:string", "confirm:boolean"}) {
		t.Errorf("create_frt_scenario input args = %q", got)
	}
	if got := names(MustTool(ToolRunFailures).InputArgs()); !slices.Equal(got, []string{"runId:string"}) {
		t.Errorf("get_run_failures input args = %q", got)
	}
}

func TestCallBuildsWhatACommandSends(t *testing.T) {
	t.Parallel()
	cases := []struct {
		tool   string
		values map[string]any
		want   string // the call, or the error
	}{
		{ToolApprove, map[string]any{"runId": "run_1", "scenarioLabel": "", "viewport": "desktop"},
			`{approve_vrt_results map[runId:run_1 viewport:desktop]}`},
		{ToolApprove, map[string]any{"runId": "run_1", ArgConfirm: true}, `{approve_vrt_results map[confirm:true runId:run_1]}`},
		{ToolTrackingPlan, map[string]any{"scenarioId": nil, "depth": 2.0}, `{tracking_get_plan map[depth:2]}`},
		{ToolRunVRT, map[string]any{"branch": "main", "commit": "abc"}, `{run_vrt map[branch:main commit:abc]}`},
		{ToolDiffStats, map[string]any{"runId": "run_1", "scenarioLabel": "", "viewport": "desktop"}, `get_diff_stats needs scenarioLabel`},
		{ToolRunFailures, map[string]any{}, `get_run_failures needs runId`},
		{ToolRunFailures, map[string]any{"runId": "run_1", "viewprot": "desktop", "b": "x"}, `get_run_failures takes no argument b`},
		{ToolRunFailures, map[string]any{"runId": "run_1", ArgConfirm: true}, `get_run_failures takes no argument confirm`},
	}
	for _, tc := range cases {
		call, err := MustTool(tc.tool).Call(tc.values)
		got := fmt.Sprint(call)
		if err != nil {
			got = err.Error()
			var argErr *ArgError
			if !errors.As(err, &argErr) || argErr.Tool != tc.tool {
				t.Errorf("%s: error %#v is not the tool's *ArgError", tc.tool, err)
			}
		}
		if got != tc.want {
			t.Errorf("%s.Call(%v) = %s, want %s", tc.tool, tc.values, got, tc.want)
		}
	}
}

func TestTheRegistryCannotBeChangedThroughWhatItReturns(t *testing.T) {
	t.Parallel()
	MustTool(ToolDiffStats).Args[0].Name = "changed"
	KnownTools()[0].Args[0].Required = false
	if got := MustTool(ToolDiffStats).Args[0].Name; got != "runId" {
		t.Errorf("a spec LookupTool returned renamed the registry's argument to %q", got)
	}
	if !KnownTools()[0].Args[0].Required {
		t.Error("a spec KnownTools returned made the registry's argument optional")
	}
}

func TestMustToolPanicsOnANameNotInTheRegistry(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Error("MustTool(no_such_tool) did not panic")
		}
	}()
	MustTool("no_such_tool")
}

// A server cannot consent for the person: a next action's confirm is not
// part of the call it becomes, so consent is asked for as for any write.
func TestANextActionsCallCarriesNoConsent(t *testing.T) {
	t.Parallel()
	a := NextAction{Tool: ToolApprove, Args: map[string]any{"runId": "run_abc", ArgConfirm: true}}
	call := a.Call()
	if _, set := call.Args[ArgConfirm]; set || call.Args["runId"] != "run_abc" {
		t.Errorf("call args %v", call.Args)
	}
	if a.Args[ArgConfirm] != true {
		t.Error("the action itself was changed")
	}
}
