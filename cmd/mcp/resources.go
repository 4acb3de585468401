package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/api/mcpclient"
	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/format"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/textsafe"
)

// The commands that read what an MCP server offers besides tools:
// resources (and their templates) and prompts. Like vq tools they always
// speak MCP, and with --json each prints one ToolResponse, the MCP result
// (or the lists) under .data.

// ResourcesOptions are the inputs of vq mcp resources.
type ResourcesOptions struct {
	URI      string // the resource to read; "" lists them.
	Pipeline *cmdutil.Pipeline
}

// NewCmdResources lists or reads a server's resources. runF replaces the
// behaviour in tests of flag parsing.
func NewCmdResources(f *cmdutil.Factory, runF func(context.Context, *ResourcesOptions) error) *cobra.Command {
	opts := &ResourcesOptions{Pipeline: cmdutil.NewPipeline(f)}
	c := &cobra.Command{
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
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.URI = args[0]
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return resourcesRun(c.Context(), f, opts)
		},
	}
	cmdutil.AddOutputFlags(c, &opts.Pipeline.Output)
	return cmdutil.CallsMCP(c, &f.Global)
}

func resourcesRun(ctx context.Context, f *cmdutil.Factory, opts *ResourcesOptions) error {
	p := opts.Pipeline
	client, err := connect(ctx, f, p, "resources")
	if client == nil {
		return err
	}
	if opts.URI != "" {
		resp, err := client.ReadResource(ctx, opts.URI)
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
		p.Terminal().Print.Note(textsafe.SanitizeLine(list.Endpoint) + " offers no resources.")
		return nil
	}
	return format.Resources(p.Terminal().Print.Out, list.Resources, list.Templates)
}

// PromptsOptions are the inputs of vq mcp prompts.
type PromptsOptions struct {
	Name     string // the prompt to get, with its KEY=VALUE Pairs; "" lists them.
	Pairs    []string
	Pipeline *cmdutil.Pipeline
}

// NewCmdPrompts lists a server's prompts or gets one. runF replaces the
// behaviour in tests of flag parsing.
func NewCmdPrompts(f *cmdutil.Factory, runF func(context.Context, *PromptsOptions) error) *cobra.Command {
	opts := &PromptsOptions{Pipeline: cmdutil.NewPipeline(f)}
	c := &cobra.Command{
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
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				opts.Name, opts.Pairs = args[0], args[1:]
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return promptsRun(c.Context(), f, opts)
		},
	}
	cmdutil.AddOutputFlags(c, &opts.Pipeline.Output)
	return cmdutil.CallsMCP(c, &f.Global)
}

func promptsRun(ctx context.Context, f *cmdutil.Factory, opts *PromptsOptions) error {
	p := opts.Pipeline
	client, err := connect(ctx, f, p, "prompts")
	if client == nil {
		return err
	}
	if opts.Name != "" {
		values := map[string]string{}
		for _, pair := range opts.Pairs {
			key, value, ok := strings.Cut(pair, "=")
			if !ok || key == "" {
				return &exitcode.UsageError{Reason: fmt.Sprintf("argument %q is not KEY=VALUE", pair), Hint: "example: vq mcp prompt NAME style=terse"}
			}
			values[key] = value
		}
		resp, err := client.GetPrompt(ctx, opts.Name, values)
		if err != nil {
			return err
		}
		return p.Show(ctx, cmdutil.WithHint(resp, p.Settings()))
	}
	resp, list, err := client.ListPrompts(ctx)
	switch {
	case err != nil:
		return err
	case p.Output.Structured() || !resp.OK:
		return p.Show(ctx, cmdutil.WithHint(resp, p.Settings()))
	case len(list.Prompts) == 0:
		p.Terminal().Print.Note(textsafe.SanitizeLine(list.Endpoint) + " offers no prompts.")
		return nil
	}
	return format.Prompts(p.Terminal().Print.Out, list.Prompts)
}

// connect connects the pipeline over MCP, whatever --transport says
// (these methods have no invoke counterpart). Without a credential it
// shows the refusal vq tools shows, sends nothing and returns no client.
func connect(ctx context.Context, f *cmdutil.Factory, p *cmdutil.Pipeline, command string) (*mcpclient.Client, error) {
	f.Global.Transport = api.TransportMCP
	client, s, err := p.Connect(ctx)
	if err != nil {
		return nil, err
	}
	if !s.HasCredential() {
		return nil, p.Show(ctx, cmdutil.WithHint(api.MissingCredential(command), s))
	}
	return client, nil
}
