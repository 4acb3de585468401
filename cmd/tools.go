package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/format"
)

// NewCmdTools lists the tools the server offers. runF replaces the
// behaviour in tests of flag parsing.
func NewCmdTools(f *Factory, runF func(context.Context) error) *cobra.Command {
	return &cobra.Command{
		Use:   "tools",
		Short: "List the tools the server offers (MCP tools/list)",
		Long: `List the server's tools with their title, description, whether they only
read or may change things (the server's read-only and destructive hints) and
their arguments (* marks a required one), from MCP tools/list.

tools/list exists only on the MCP endpoint, so vq tools always speaks MCP: at
--endpoint when given, else at {base-url}/api/mcp, whatever --transport says.
With --json it prints one ToolResponse whose data is {"endpoint", "tools": [...]}.`,
		Example: `  vq tools
  vq tools --jq '.data.tools[] | select(.readOnly | not) | .name'
  vq tools --endpoint https://mcp.example.com/mcp`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(c.Context())
			}
			return runTools(c.Context(), f)
		},
	}
}

func runTools(ctx context.Context, f *Factory) error {
	f.Global.Transport = api.TransportMCP
	client, s, err := f.Client()
	if err != nil {
		return err
	}
	if !s.hasCredential() {
		return f.show(ctx, withHint(api.MissingCredential(api.MethodToolsList)))
	}
	tools, failure, err := client.ListTools(ctx)
	if err != nil {
		return err
	}
	if failure != nil {
		return f.show(ctx, withHint(failure))
	}
	if f.structuredOutput() {
		return f.show(ctx, api.ToolListResponse(client.MCPEndpoint(), tools))
	}
	if len(tools) == 0 {
		fmt.Fprintf(f.IO.ErrOut, "%s offers no tools.\n", format.SanitizeLine(client.MCPEndpoint()))
		return nil
	}
	return format.Tools(f.IO.Out, tools)
}
