package invoke_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/visualq/vq/cmd"
	"github.com/visualq/vq/cmd/cmdtest"
	"github.com/visualq/vq/cmd/invoke"
)

func TestMain(m *testing.M) { cmdtest.Main(m, cmd.Main) }

func TestScripts(t *testing.T) { cmdtest.Scripts(t, "testdata/script") }

func TestNewCmdInvoke(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args           []string
		tool, argsJSON string
		pairs          []string
		json           bool
		wantErr        string
	}{
		{args: []string{"get_run", "runId=r1", "n:=2", "--args", `{"x":true}`}, tool: "get_run", pairs: []string{"runId=r1", "n:=2"}, argsJSON: `{"x":true}`},
		{args: []string{"get_run", "--json"}, tool: "get_run", pairs: []string{}, json: true},
		{args: nil, wantErr: "requires at least 1 arg"},
		{args: []string{"get_run", "--args"}, wantErr: "flag needs an argument"},
	} {
		var got *invoke.InvokeOptions
		err := cmdtest.Execute(invoke.NewCmdInvoke(cmdtest.NewFactory(), func(_ context.Context, o *invoke.InvokeOptions) error { got = o; return nil }), tc.args...)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || got != nil {
				t.Errorf("%q: ran %v, err %v; want an error about %q before running", tc.args, got != nil, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got == nil {
			t.Fatalf("%q: err %v", tc.args, err)
		}
		if got.Tool != tc.tool || !slices.Equal(got.Pairs, tc.pairs) || got.ArgsJSON != tc.argsJSON || got.Pipeline.Output.JSON != tc.json {
			t.Errorf("%q: tool %q pairs %q args %q json %v", tc.args, got.Tool, got.Pairs, got.ArgsJSON, got.Pipeline.Output.JSON)
		}
	}
}

func TestNewCmdTools(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args    []string
		jq      string
		wantErr string
	}{
		{args: nil},
		{args: []string{"--jq", ".data.tools[].name"}, jq: ".data.tools[].name"},
		{args: []string{"get_run"}, wantErr: `unknown command "get_run"`},
	} {
		var got *invoke.ToolsOptions
		err := cmdtest.Execute(invoke.NewCmdTools(cmdtest.NewFactory(), func(_ context.Context, o *invoke.ToolsOptions) error { got = o; return nil }), tc.args...)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || got != nil {
				t.Errorf("%q: ran %v, err %v; want an error about %q before running", tc.args, got != nil, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got == nil || got.Pipeline.Output.JQ != tc.jq {
			t.Errorf("%q: err %v, options %+v", tc.args, err, got)
		}
	}
}
