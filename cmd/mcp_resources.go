package cmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/api/mcpclient"
	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/textsafe"
)

// The commands that read what an MCP server offers besides tools:
// resources (and their templates) and prompts. Like vq tools they always
// speak MCP, and with --json each prints one ToolResponse, the MCP result
// (or the lists) under .data.

func newCmdMCPResources(f *cmdutil.Factory) *cobra.Command {
	return mcpReadCommand(f, &cobra.Command{
		Use:     "resources [URI]",
		Aliases: []string{"resource"},
		Short:   "List the server's resources and templates, or read one (MCP resources/list, resources/read)",
		Long: `Without a URI, list the resources an MCP server offers (URI, name, MIME
type, description) and its resource templates (URI template, name, MIME type,
description); a server that declares no resources lists none. With --json the
data is {"endpoint", "resources": [...], "resourceTemplates": [...]}.

With a URI (one listed, or a template's filled in), read that resource: text
contents are printed as they are, binary ones (blobs) summarised, and saved
with --save-dir DIR. With --json the data is the MCP result, the contents as
the server sent them. vq mcp resource URI is the same command.`,
		Example: `  vq mcp resources
  vq mcp resources --endpoint https://mcp.example.com/mcp --json`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: cmdutil.NewCompleter(f).Resource,
	}, func(ctx context.Context, f *cmdutil.Factory, p *cmdutil.Pipeline, client *mcpclient.Client, args []string) error {
		if len(args) == 1 {
			resp, err := client.ReadResource(ctx, args[0])
			if err != nil {
				return err
			}
			return p.Show(ctx, cmdutil.WithHint(resp, p.Settings()))
		}
		resp, list, err := client.ListResources(ctx)
		switch {
		case err != nil:
			return err
		case p.Output.Structured() || !resp.OK:
			return p.Show(ctx, cmdutil.WithHint(resp, p.Settings()))
		case len(list.Resources) == 0 && len(list.Templates) == 0:
			f.Terminal().Print.Note(textsafe.SanitizeLine(list.Endpoint) + " offers no resources.")
			return nil
		}
		return f.Terminal().Print.Resources(list.Resources, list.Templates)
	})
}

func newCmdMCPPrompts(f *cmdutil.Factory) *cobra.Command {
	return mcpReadCommand(f, &cobra.Command{
		Use:     "prompts [NAME [KEY=VALUE...]]",
		Aliases: []string{"prompt"},
		Short:   "List the server's prompts, or get one with its arguments (MCP prompts/list, prompts/get)",
		Long: `Without a name, list the prompts an MCP server offers with their arguments
(* marks a required one) and descriptions; a server that declares no prompts
lists none. With --json the data is {"endpoint", "prompts": [...]}.

With a name, get that prompt with its arguments, each KEY=VALUE (prompt
arguments are strings): each message is printed as a line naming its role
([user], [assistant]) followed by its content. With --json the data is the
MCP result. vq mcp prompt NAME KEY=VALUE... is the same command.`,
		Example: `  vq mcp prompts
  vq mcp prompts --endpoint https://mcp.example.com/mcp --json`,
		ValidArgsFunction: cmdutil.NewCompleter(f).Prompt,
	}, func(ctx context.Context, f *cmdutil.Factory, p *cmdutil.Pipeline, client *mcpclient.Client, args []string) error {
		if len(args) > 0 {
			return getPrompt(ctx, p, client, args[0], args[1:])
		}
		resp, list, err := client.ListPrompts(ctx)
		switch {
		case err != nil:
			return err
		case p.Output.Structured() || !resp.OK:
			return p.Show(ctx, cmdutil.WithHint(resp, p.Settings()))
		case len(list.Prompts) == 0:
			f.Terminal().Print.Note(textsafe.SanitizeLine(list.Endpoint) + " offers no prompts.")
			return nil
		}
		return f.Terminal().Print.Prompts(list.Prompts)
	})
}

func getPrompt(ctx context.Context, p *cmdutil.Pipeline, client *mcpclient.Client, name string, pairs []string) error {
	values := map[string]string{}
	for _, pair := range pairs {
		key, value, ok := strings.Cut(pair, "=")
		if !ok || key == "" {
			return &exitcode.UsageError{Reason: fmt.Sprintf("argument %q is not KEY=VALUE", pair), Hint: "example: vq mcp prompt NAME style=terse"}
		}
		values[key] = value
	}
	resp, err := client.GetPrompt(ctx, name, values)
	if err != nil {
		return err
	}
	return p.Show(ctx, cmdutil.WithHint(resp, p.Settings()))
}

// mcpReadCommand gives a command that reads from an MCP server its output
// flags and a run that connects over MCP (whatever --transport says: these
// methods have no invoke counterpart) and refuses to send without a
// credential, as vq tools does.
func mcpReadCommand(f *cmdutil.Factory, c *cobra.Command, run func(context.Context, *cmdutil.Factory, *cmdutil.Pipeline, *mcpclient.Client, []string) error) *cobra.Command {
	p := cmdutil.NewPipeline(f)
	c.RunE = func(c *cobra.Command, args []string) error {
		ctx := c.Context()
		f.Global.Transport = api.TransportMCP
		client, s, err := p.Connect(ctx)
		if err != nil {
			return err
		}
		if !s.HasCredential() {
			return p.Show(ctx, cmdutil.WithHint(api.MissingCredential(c.Name()), s))
		}
		return run(ctx, f, p, client, args)
	}
	cmdutil.AddOutputFlags(c, &p.Output)
	return cmdutil.CallsMCP(c, &f.Global)
}
