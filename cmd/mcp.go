package cmd

import (
	"github.com/spf13/cobra"
	"github.com/visualq/vq/cmd/cmdutil"
)

// NewCmdMCP groups the commands that speak MCP for their own sake rather
// than as a transport of the task commands. A new one is one more entry
// in its AddCommand.
func NewCmdMCP(f *cmdutil.Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "mcp",
		Short: "Model Context Protocol: serve VisualQ's tools to IDE agents; read a server's resources and prompts",
	}
	c.AddCommand(newCmdMCPServe(f), newCmdMCPResources(f), newCmdMCPPrompts(f))
	return c
}
