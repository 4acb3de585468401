package cmdutil

import (
	"context"
	"strings"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/api/mcpclient"
)

// mcpCompletion is the budget's context, an MCP client (nil if none) and their end.
func (cp Completer) mcpCompletion(c *cobra.Command) (context.Context, *mcpclient.Client, func()) {
	ctx, cancel := context.WithTimeout(commandContext(c), completionBudget)
	*cp.transport = api.TransportMCP
	client, _, err := cp.client(ctx)
	if err != nil {
		return ctx, nil, cancel
	}
	return ctx, client, func() { client.Close(); cancel() }
}

// Prompt completes vq mcp prompt NAME KEY=VALUE...
func (cp Completer) Prompt(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	ctx, client, done := cp.mcpCompletion(c)
	defer done()
	if client == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	if key, typed, ok := strings.Cut(toComplete, "="); ok && len(args) > 0 {
		given := map[string]string{}
		for _, pair := range args[1:] {
			if k, v, ok := strings.Cut(pair, "="); ok {
				given[k] = v
			}
		}
		var values []string
		for _, v := range client.Complete(ctx, args[0], "", key, typed, given) {
			values = append(values, key+"="+v)
		}
		return withPrefix(values, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
	_, list, err := client.ListPrompts(ctx)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var candidates []string
	for _, p := range list.Prompts {
		switch {
		case len(args) == 0:
			candidates = append(candidates, p.Name)
		case p.Name == args[0]:
			for _, a := range p.Arguments {
				candidates = append(candidates, a.Name+"=")
			}
		}
	}
	directive := cobra.ShellCompDirectiveNoFileComp
	if len(args) > 0 {
		directive |= cobra.ShellCompDirectiveNoSpace
	}
	return withPrefix(candidates, toComplete), directive
}

// Resource completes vq mcp resource URI, templates filled in by the server.
func (cp Completer) Resource(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	ctx, client, done := cp.mcpCompletion(c)
	defer done()
	if client == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	_, list, err := client.ListResources(ctx)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var candidates []string
	for _, r := range list.Resources {
		candidates = append(candidates, r.URI)
	}
	for _, t := range list.Templates {
		name, typed, given, ok := mcpclient.TemplateArgument(t.URITemplate, toComplete)
		if !ok {
			continue
		}
		start := strings.TrimSuffix(toComplete, typed)
		for _, v := range client.Complete(ctx, "", t.URITemplate, name, typed, given) {
			candidates = append(candidates, start+v)
		}
	}
	return withPrefix(candidates, toComplete), cobra.ShellCompDirectiveNoFileComp
}
