package invoke

import (
	"context"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/format"
	"github.com/visualq/vq/internal/textsafe"
)

// ToolsOptions are the inputs of vq tools.
type ToolsOptions struct {
	Factory  *cmdutil.Factory
	Pipeline *cmdutil.Pipeline
}

// NewCmdTools is vq tools; runF is for flag-parsing tests.
func NewCmdTools(f *cmdutil.Factory, runF func(context.Context, *ToolsOptions) error) *cobra.Command {
	opts := &ToolsOptions{Factory: f, Pipeline: cmdutil.NewPipeline(f)}
	c := &cobra.Command{
		Use:   "tools",
		Short: "List the tools the server offers (MCP tools/list)",
		Long: `List the server's tools, from MCP tools/list: a table of each tool's name,
access (the read-only and destructive hints), arguments (* marks a required
one) and description, then a block per tool with every annotation hint
(read-only, destructive, idempotent, open world; "presumed" where the server
did not say), its task support, each argument's type, description, allowed
values and default, and what it returns (its output schema's properties).

tools/list exists only on the MCP endpoint, so vq tools always speaks MCP: at
--endpoint when given, else at {base-url}/api/mcp, whatever --transport says.
With --json it prints one ToolResponse whose data is {"endpoint", "tools": [...]},
each tool's inputSchema and outputSchema as the server sent them.`,
		Example: `  vq tools
  vq tools --jq '.data.tools[] | select(.readOnly | not) | .name'
  vq tools --endpoint https://mcp.example.com/mcp`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return toolsRun(c.Context(), opts)
		},
	}
	cmdutil.AddOutputFlags(c, &opts.Pipeline.Output)
	return cmdutil.CallsMCP(c, &f.Global)
}

func toolsRun(ctx context.Context, opts *ToolsOptions) error {
	f, p := opts.Factory, opts.Pipeline
	f.Global.Transport = api.TransportMCP
	client, s, err := p.Connect(ctx)
	if err != nil {
		return err
	}
	if !s.HasCredential() {
		return p.Show(ctx, cmdutil.WithHint(api.MissingCredential(api.MethodToolsList), s))
	}
	tools, failure, err := client.ListTools(ctx)
	if err != nil {
		return err
	}
	if failure != nil {
		return p.Show(ctx, cmdutil.WithHint(failure, s))
	}
	if p.Output.Structured() {
		return p.Show(ctx, api.ToolListResponse(client.MCPEndpoint(), tools))
	}
	if len(tools) == 0 {
		f.Terminal().Print.Note(textsafe.SanitizeLine(client.MCPEndpoint()) + " offers no tools.")
		return nil
	}
	f.Terminal().Page(ctx)
	return format.Tools(f.Terminal().Print.Out, tools, cmdutil.FrontingCommand)
}
