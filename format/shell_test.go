package format

import (
	"strings"
	"testing"

	"github.com/visualq/vq/api"
)

func TestActionCommandUsesTheFrontingCommandWhenTheArgumentsFit(t *testing.T) {
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{api.ToolDiffStats, map[string]any{"runId": "run_abc", "scenarioLabel": "Product page", "viewport": "desktop"},
			"vq diff run_abc --scenario 'Product page' --viewport desktop"},
		{api.ToolProve, map[string]any{"ticket": "BN-471"}, "vq prove BN-471"},
		{api.ToolJobStatus, map[string]any{"jobId": "job_1"}, "vq watch job_1"},
		{api.ToolCreateScenario, map[string]any{"goal": "Subscribe to the newsletter", "startPath": "/"},
			"vq scenario create --goal 'Subscribe to the newsletter' --start-path /"},
		{api.ToolTrackingPlan, map[string]any{"scenarioId": "scn_1", "depth": 2.0}, "vq tracking plan --scenario scn_1 depth:=2"},
		{api.ToolRunVRT, map[string]any{"branch": "main"}, "vq ci run-vrt branch=main"},
		// A server's consent is never printed: the person gives it.
		{api.ToolApprove, map[string]any{"runId": "run_abc", "confirm": true}, "vq approve run_abc"},
		{"get_magic", map[string]any{"confirm": true, "x": "y"}, "vq invoke get_magic x=y"},
		// What the command cannot carry goes through vq invoke.
		{api.ToolDiffStats, map[string]any{"runId": "run_abc", "viewport": "desktop"},
			"vq invoke get_diff_stats runId=run_abc viewport=desktop"}, // required scenarioLabel missing
		{api.ToolRunFailures, map[string]any{"runId": "-rf"}, "vq invoke get_run_failures runId=-rf"},
		{api.ToolRunFailures, map[string]any{"runId": ""}, "vq invoke get_run_failures runId="},
		{api.ToolRunFailures, map[string]any{"runId": 5}, "vq invoke get_run_failures runId:=5"},
		{api.ToolRunFailures, map[string]any{"runId": "run_abc", "limit": 5}, "vq invoke get_run_failures limit:=5 runId=run_abc"},
		{api.ToolTrackingPlan, map[string]any{"--yes": "1"}, `vq invoke tracking_get_plan --args '{"--yes":"1"}'`},
	} {
		got, why := ActionCommand(api.NextAction{Tool: c.tool, Args: c.args})
		if why != "" || got != c.want {
			t.Errorf("%s %v:\n got %q (%s)\nwant %q", c.tool, c.args, got, why, c.want)
		}
	}
}

// A next action that no command line may carry is described, never
// printed as a command: a tool name MCP does not allow (one like a flag
// would set vq's options when pasted), an argument with a NUL byte (which
// a shell would cut short).
func TestActionCommandRefusesWhatAShellCannotCarry(t *testing.T) {
	for _, a := range []api.NextAction{
		{Tool: "-h"}, {Tool: "--yes"}, {Tool: "--base-url=http://evil"}, {Tool: "--args=@~/.docker/config.json"},
		{Tool: ""}, {Tool: "a b"}, {Tool: "x;rm"}, {Tool: strings.Repeat("t", 129)},
		{Tool: "get_run_failures", Args: map[string]any{"runId": "run\x00abc"}},
		{Tool: "t", Args: map[string]any{"deep": []any{map[string]any{"k": "v\x00"}}}},
	} {
		if line, why := ActionCommand(a); why == "" {
			t.Errorf("%q %v printed as %q", a.Tool, a.Args, line)
		}
	}
	for _, tool := range []string{"get_run_failures", "a.b-c_1", strings.Repeat("t", 128)} {
		if _, why := ActionCommand(api.NextAction{Tool: tool}); why != "" {
			t.Errorf("%s refused: %s", tool, why)
		}
	}
	var out, errOut strings.Builder
	r := &api.ToolResponse{OK: true, Summary: "s", NextActions: []api.NextAction{{Label: "Trap", Tool: "--yes", Args: map[string]any{"a": "\x1b[2J"}}}}
	if err := Plain(&out, &errOut, r); err != nil {
		t.Fatal(err)
	}
	want := "\nNext actions:\n  # Trap\n  warning: not printed as a command: the suggested tool \"--yes\" is not a valid tool name\n"
	if !strings.HasSuffix(out.String(), want) {
		t.Errorf("plain output %q\nwant it to end %q", out.String(), want)
	}
}
