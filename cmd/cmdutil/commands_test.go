package cmdutil

import (
	"testing"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/format"
)

// A next action is its fronting command when every argument fits it;
// otherwise vq invoke, which carries anything.
func TestFrontingLineWhenTheArgumentsFit(t *testing.T) {
	t.Parallel()
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
		{api.ToolRunFailures, map[string]any{"runId": "run_abc", "limit": 5}, `vq invoke get_run_failures --args '{"limit":5,"runId":"run_abc"}'`},
		{api.ToolTrackingPlan, map[string]any{"--yes": "1"}, `vq invoke tracking_get_plan --args '{"--yes":"1"}'`},
	} {
		got, why := format.ActionCommand(api.NextAction{Tool: c.tool, Args: c.args}, FrontingLine)
		if why != "" || got != c.want {
			t.Errorf("%s %v:\n got %q (%s)\nwant %q", c.tool, c.args, got, why, c.want)
		}
	}
}
