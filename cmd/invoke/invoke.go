// Package invoke holds vq invoke, which calls any tool, and vq tools, which
// lists the tools a server offers.
package invoke

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/internal/exitcode"
)

// InvokeOptions are the inputs of vq invoke.
type InvokeOptions struct {
	Factory  *cmdutil.Factory
	Tool     string
	Pairs    []string
	ArgsJSON string
	Pipeline *cmdutil.Pipeline
}

// NewCmdInvoke is vq invoke; runF is for flag-parsing tests.
func NewCmdInvoke(f *cmdutil.Factory, runF func(context.Context, *InvokeOptions) error) *cobra.Command {
	opts := &InvokeOptions{Factory: f, Pipeline: cmdutil.NewPipeline(f)}
	c := &cobra.Command{
		Use:   "invoke TOOL [KEY=VALUE | KEY:=JSON]...",
		Short: "Call any VisualQ tool",
		Long: `Call any VisualQ tool with arguments.

KEY=VALUE sends a string and KEY:=JSON a raw JSON value (number, boolean,
array, object), as HTTPie does. Over MCP, KEY=VALUE is converted to the type
the tool's input schema declares (number, integer, boolean, array as a,b,c
or JSON, object as JSON), as the MCP Inspector does; a value that does not
convert is a usage error. A KEY the tool does not take is a usage error
that names the argument meant, and nothing is sent: the registry says what
a VisualQ tool takes, over MCP the tool's input schema (any KEY when it
allows additional properties, but a near miss of one it declares). --args
gives a whole JSON object, inline, from @FILE, or from - (stdin), sent as it
is (for arguments a newer server knows and vq does not); KEY pairs then
override its members.`,
		Example: `  vq invoke get_run_failures runId=run_abc
  vq invoke get_diff_stats runId=run_abc scenarioLabel=Homepage viewport=desktop
  vq invoke frt_find_scenarios query=checkout --json
  vq invoke frt_find_scenarios --args '{"query": "checkout", "limit": 5}'
  echo '{"runId":"run_abc"}' | vq invoke get_run_failures --args -
  vq invoke get_run_failures runId=run_abc --endpoint https://mcp.example.com/mcp --save-dir ./answers --log-level info`,
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: cmdutil.NewCompleter(f).Invoke,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Tool, opts.Pairs = args[0], args[1:]
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return invokeRun(c.Context(), opts)
		},
	}
	c.Flags().StringVar(&opts.ArgsJSON, "args", "", "tool arguments as a JSON object, @FILE or - for stdin")
	cmdutil.AddOutputFlags(c, &opts.Pipeline.Output)
	cmdutil.AddExitStatusFlag(c, &opts.Pipeline.Reports)
	cmdutil.AddWaitFlags(c, &opts.Pipeline.Wait, true)
	return cmdutil.CallsTools(c, &f.Global)
}

func invokeRun(ctx context.Context, opts *InvokeOptions) error {
	if !api.ValidToolName(opts.Tool) {
		return &exitcode.UsageError{
			Reason: fmt.Sprintf("%q is not a tool name: 1 to 128 letters, digits, '_', '-' or '.', not starting with '-'", opts.Tool),
			Hint:   "list the server's tools with: vq tools",
		}
	}
	args, err := cmdutil.ParseArgs(opts.Pairs, opts.ArgsJSON, opts.Factory.IOStreams.In)
	if err != nil {
		return err
	}
	call := api.Call{Tool: opts.Tool, Args: args}
	client, s, err := opts.Pipeline.Connect(ctx)
	if err != nil {
		return err
	}
	var listed func(context.Context, string) (api.Tool, bool)
	if s.Transport == api.TransportMCP && s.HasCredential() {
		listed = client.ListedTool
	}
	if err := cmdutil.CheckPairs(ctx, listed, call, opts.Pairs); err != nil {
		return err
	}
	return opts.Pipeline.Run(ctx, call)
}
