package mcp_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/cmd"
	"github.com/visualq/vq/cmd/cmdtest"
	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/cmd/iostreams"
	"github.com/visualq/vq/cmd/mcp"
)

func TestMain(m *testing.M) { cmdtest.Main(m, cmd.Main) }

func TestScripts(t *testing.T) { cmdtest.Scripts(t, "testdata/script") }

func TestFlagParsing(t *testing.T) {
	t.Parallel()
	resources := func(f *cmdutil.Factory, got func(any)) *cobra.Command {
		return mcp.NewCmdResources(f, func(_ context.Context, o *mcp.ResourcesOptions) error {
			got(fmt.Sprintf("URI:%s JSON:%v JQ:%s", o.URI, o.Pipeline.Output.JSON, o.Pipeline.Output.JQ))
			return nil
		})
	}
	prompts := func(f *cmdutil.Factory, got func(any)) *cobra.Command {
		return mcp.NewCmdPrompts(f, func(_ context.Context, o *mcp.PromptsOptions) error {
			got(fmt.Sprintf("Name:%s Pairs:%q JSON:%v JQ:%s", o.Name, o.Pairs, o.Pipeline.Output.JSON, o.Pipeline.Output.JQ))
			return nil
		})
	}
	for _, tc := range []struct {
		cmd     func(*cmdutil.Factory, func(any)) *cobra.Command
		args    []string
		want    string // the options run with; "" when parsing must fail first
		wantErr string
	}{
		{resources, nil, "URI: JSON:false JQ:", ""},
		{resources, []string{"test://static/1", "--json"}, "URI:test://static/1 JSON:true JQ:", ""},
		{resources, []string{"test://a", "test://b"}, "", "accepts at most 1 arg(s)"},
		{prompts, nil, `Name: Pairs:[] JSON:false JQ:`, ""},
		{prompts, []string{"styled", "style=terse", "length=short", "--jq", ".data"}, `Name:styled Pairs:["style=terse" "length=short"] JSON:false JQ:.data`, ""},
		{prompts, []string{"--transport", "invoke"}, "", "unknown flag: --transport"},
	} {
		f := &cmdutil.Factory{IOStreams: &iostreams.IOStreams{In: &bytes.Buffer{}, Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}, Getenv: func(string) string { return "" }}
		got := ""
		c := tc.cmd(f, func(v any) { got = v.(string) })
		c.SetArgs(tc.args)
		c.SetOut(io.Discard)
		c.SetErr(io.Discard)
		err := c.ExecuteContext(context.Background())
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || got != "" {
				t.Errorf("%v: ran with %s, err %v; want an error about %s before running", tc.args, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%v:\n got %s (err %v)\nwant %s", tc.args, got, err, tc.want)
		}
	}
}
