// Package mcp holds vq mcp, the commands that speak MCP for their own
// sake rather than as a transport of the task commands: vq mcp resources
// and vq mcp prompts. vq mcp serve is a group of its own (cmd/mcpserve),
// which the root adds under vq mcp.
//
// It may import cmd/cmdutil, cmd/iostreams, api and the leaves; never cmd
// nor another command group.
package mcp

import (
	"github.com/spf13/cobra"
	"github.com/visualq/vq/cmd/cmdutil"
)

// NewCmdMCP groups the MCP commands. A new one is one more entry in its
// AddCommand.
func NewCmdMCP(f *cmdutil.Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "mcp",
		Short: "Model Context Protocol: serve VisualQ's tools to IDE agents; read a server's resources and prompts",
	}
	c.AddCommand(NewCmdResources(f, nil), NewCmdPrompts(f, nil))
	return c
}
