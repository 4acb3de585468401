package format

import (
	"strings"
	"testing"

	"github.com/visualq/vq/api"
)

// A next action is printed as the command the printer gives, which sees
// the action without the server's consent; as vq invoke when it gives
// none, or when there is no printer.
func TestActionCommandPrintsTheFrontingCommandElseInvoke(t *testing.T) {
	t.Parallel()
	var seen []api.NextAction
	front := func(a api.NextAction) (string, bool) {
		seen = append(seen, a)
		return "vq failures run_abc", a.Tool == api.ToolRunFailures
	}
	for _, c := range []struct {
		tool  string
		args  map[string]any
		front CommandPrinter
		want  string
	}{
		{api.ToolRunFailures, map[string]any{"runId": "run_abc", "confirm": true}, front, "vq failures run_abc"},
		{api.ToolRunFailures, map[string]any{"runId": "run_abc"}, nil, "vq invoke get_run_failures runId=run_abc"},
		// A server's consent is never printed: the person gives it.
		{"get_magic", map[string]any{"confirm": true, "x": "y"}, front, "vq invoke get_magic x=y"},
		{api.ToolRunFailures, map[string]any{"runId": 5}, nil, "vq invoke get_run_failures runId:=5"},
		{api.ToolRunFailures, map[string]any{"runId": ""}, nil, "vq invoke get_run_failures runId="},
		{"get_magic", map[string]any{"runId": "run_abc", "limit": 5}, nil, "vq invoke get_magic limit:=5 runId=run_abc"},
		// An argument the registry's tool does not take goes as JSON: vq
		// invoke would refuse it as a pair.
		{api.ToolRunFailures, map[string]any{"runId": "run_abc", "limit": 5}, nil, `vq invoke get_run_failures --args '{"limit":5,"runId":"run_abc"}'`},
		{api.ToolTrackingPlan, map[string]any{"--yes": "1"}, front, `vq invoke tracking_get_plan --args '{"--yes":"1"}'`},
	} {
		got, why := ActionCommand(api.NextAction{Tool: c.tool, Args: c.args}, c.front)
		if why != "" || got != c.want {
			t.Errorf("%s %v:\n got %q (%s)\nwant %q", c.tool, c.args, got, why, c.want)
		}
	}
	for _, a := range seen {
		if _, consent := a.Args[api.ArgConfirm]; consent {
			t.Errorf("the printer was shown the server's consent: %v", a.Args)
		}
	}
}

// A next action that no command line may carry is described, never
// printed as a command: a tool name MCP does not allow (one like a flag
// would set vq's options when pasted), an argument name that is not plain
// (the one rule vq mcp serve applies too), an argument with a NUL byte
// (which a shell would cut short).
func TestActionCommandRefusesWhatAShellCannotCarry(t *testing.T) {
	t.Parallel()
	for _, a := range []api.NextAction{
		{Tool: "-h"}, {Tool: "--yes"}, {Tool: "--base-url=http://127.0.0.1:1/evil"}, {Tool: "--args=@~/.docker/config.json"},
		{Tool: ""}, {Tool: "a b"}, {Tool: "x;rm"}, {Tool: strings.Repeat("t", 129)},
		{Tool: "get_run_failures", Args: map[string]any{"runId": "run\x00abc"}},
		{Tool: "t", Args: map[string]any{"deep": []any{map[string]any{"k": "v\x00"}}}},
		{Tool: "get_diff_stats", Args: map[string]any{"run\x1bId": "r"}}, {Tool: "t", Args: map[string]any{"": "v"}},
	} {
		if line, why := ActionCommand(a, nil); why == "" {
			t.Errorf("%q %v printed as %q", a.Tool, a.Args, line)
		}
	}
	for _, tool := range []string{"get_run_failures", "a.b-c_1", strings.Repeat("t", 128)} {
		if _, why := ActionCommand(api.NextAction{Tool: tool}, nil); why != "" {
			t.Errorf("%s refused: %s", tool, why)
		}
	}
	var out, errOut strings.Builder
	r := &api.ToolResponse{OK: true, Summary: "s", NextActions: []api.NextAction{{Label: "Trap", Tool: "--yes", Args: map[string]any{"a": "\x1b[2J"}}}}
	if err := Plain(&out, &errOut, r, nil); err != nil {
		t.Fatal(err)
	}
	want := "\nNext actions:\n  # Trap\n  warning: not printed as a command: the suggested tool \"--yes\" is not a valid tool name\n"
	if !strings.HasSuffix(out.String(), want) {
		t.Errorf("plain output %q\nwant it to end %q", out.String(), want)
	}
}
