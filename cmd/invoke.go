package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/exitcode"
)

// InvokeOptions are the inputs of vq invoke.
type InvokeOptions struct {
	Tool     string
	Pairs    []string
	ArgsJSON string
	Pipeline *Pipeline
}

// NewCmdInvoke calls any tool. runF replaces the behaviour in tests of flag
// parsing.
func NewCmdInvoke(f *Factory, runF func(context.Context, *InvokeOptions) error) *cobra.Command {
	opts := &InvokeOptions{Pipeline: newPipeline(f)}
	c := &cobra.Command{
		Use:   "invoke TOOL [KEY=VALUE | KEY:=JSON]...",
		Short: "Call any VisualQ tool",
		Long: `Call any VisualQ tool with arguments.

KEY=VALUE sends a string and KEY:=JSON a raw JSON value (number, boolean,
array, object), as HTTPie does. Over MCP, KEY=VALUE is converted to the type
the tool's input schema declares (number, integer, boolean, array as a,b,c
or JSON, object as JSON), as the MCP Inspector does; a value that does not
convert is a usage error. --args gives a whole JSON object, inline,
from @FILE, or from - (stdin); KEY pairs then override its members.`,
		Example: `  vq invoke get_run_failures runId=run_abc
  vq invoke get_diff_stats runId=run_abc scenarioLabel=Homepage viewport=desktop
  vq invoke frt_find_scenarios query=checkout limit:=5 --json
  echo '{"runId":"run_abc"}' | vq invoke get_run_failures --args -
  vq invoke get_run_failures runId=run_abc --endpoint https://mcp.example.com/mcp --save-dir ./answers --log-level info`,
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: f.completeInvoke,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Tool, opts.Pairs = args[0], args[1:]
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runInvoke(c.Context(), f, opts)
		},
	}
	c.Flags().StringVar(&opts.ArgsJSON, "args", "", "tool arguments as a JSON object, @FILE or - for stdin")
	addOutputFlags(c, &opts.Pipeline.Output)
	addExitStatusFlag(c, &opts.Pipeline.Reports)
	addWaitFlags(c, &opts.Pipeline.Wait, true)
	return c
}

func runInvoke(ctx context.Context, f *Factory, opts *InvokeOptions) error {
	if !api.ValidToolName(opts.Tool) {
		return &exitcode.UsageError{
			Reason: fmt.Sprintf("%q is not a tool name: 1 to 128 letters, digits, '_', '-' or '.', not starting with '-'", opts.Tool),
			Hint:   "list the server's tools with: vq tools",
		}
	}
	args, err := parseArgs(opts.Pairs, opts.ArgsJSON, f.IO.In)
	if err != nil {
		return err
	}
	call := api.Call{Tool: opts.Tool, Args: args}
	if err := opts.Pipeline.typeArgs(ctx, call, opts.Pairs); err != nil {
		return err
	}
	return opts.Pipeline.Run(ctx, call)
}
