package cmdutil

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/api/mcpclient"
	"github.com/visualq/vq/completions"
	"github.com/visualq/vq/internal/layout"
	"github.com/visualq/vq/internal/textsafe"
)

// completionBudget bounds every network call made while completing: a TAB
// must never hang the shell, so past it completion offers nothing.
const completionBudget = 900 * time.Millisecond

// Completer completes command lines from the cache and the server: reads only,
// within completionBudget, any failure offering nothing.
type Completer struct {
	client func(context.Context) (*mcpclient.Client, Settings, error)
	getenv func(string) string // the cache is found only when completing
	// transport is --transport, set to mcp to complete prompts and resources.
	transport *string
}

func NewCompleter(f *Factory) Completer {
	return Completer{client: f.Client, getenv: f.Getenv, transport: &f.Global.Transport}
}

// CompleteCheckFlags completes --scenario and --viewport from the run's failures.
func CompleteCheckFlags(f *Factory, c *cobra.Command) {
	_ = c.RegisterFlagCompletionFunc("scenario", NewCompleter(f).checkFlag("scenarioLabel", "viewport"))
	_ = c.RegisterFlagCompletionFunc("viewport", NewCompleter(f).checkFlag("viewport", "scenario"))
}

func (cp Completer) recent(kind string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return withPrefix(completions.Open(cp.getenv).Recent(kind), toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// tools is the server's tools/list via the cache, else the built-in catalogue.
func (cp Completer) tools(ctx context.Context) []completions.Tool {
	client, s, err := cp.client(ctx)
	if err != nil || s.APIKey == "" {
		return completions.BuiltinTools()
	}
	list := func(ctx context.Context) ([]completions.Tool, error) {
		tools, failure, err := client.ListTools(ctx)
		if err == nil && failure != nil {
			err = errors.New(failure.ErrorMessage())
		}
		return completions.FromAPI(tools), err
	}
	return completions.Open(cp.getenv).Tools(ctx, s.BaseURL+" "+s.Endpoint, list)
}

// Invoke completes vq invoke TOOL KEY=VALUE...
func (cp Completer) Invoke(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	ctx, cancel := context.WithTimeout(commandContext(c), completionBudget)
	defer cancel()
	given := map[string]string{}
	for _, pair := range args[min(1, len(args)):] {
		if key, value, ok := strings.Cut(pair, "="); ok {
			given[strings.TrimSuffix(key, ":")] = value
		}
	}
	if key, _, ok := strings.Cut(toComplete, "="); ok && len(args) > 0 {
		values := cp.argValues(ctx, key, given)
		for i, v := range values {
			values[i] = key + "=" + v
		}
		return withPrefix(values, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
	tools := cp.tools(ctx)
	if len(args) == 0 {
		var names []string
		for _, t := range tools {
			names = append(names, t.Name)
		}
		return withPrefix(names, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
	tool, _ := completions.Find(tools, args[0])
	var keys []string
	for _, arg := range tool.Args {
		if _, done := given[arg]; done {
			continue
		}
		if arg == api.ArgConfirm {
			keys = append(keys, "confirm:=true") // typed by the person: their consent
		} else {
			keys = append(keys, arg+"=")
		}
	}
	return withPrefix(keys, toComplete), cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

// withPrefix keeps candidates extending what was typed: some shells do not filter.
func withPrefix(candidates []string, typed string) []string {
	return slices.DeleteFunc(candidates, func(c string) bool { return !strings.HasPrefix(c, typed) })
}

func (cp Completer) argValues(ctx context.Context, key string, given map[string]string) []string {
	switch key {
	case completions.RunID, completions.JobID:
		return completions.Open(cp.getenv).Recent(key)
	case "scenarioLabel", "viewport":
		filter := map[string]string{"scenarioLabel": "viewport", "viewport": "scenarioLabel"}[key]
		return checkValues(cp.failedChecks(ctx, given[completions.RunID]), key, given[filter])
	}
	return nil
}

// checkFlag completes key's flag from the run's failures, narrowed by otherFlag.
func (cp Completer) checkFlag(key, otherFlag string) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) == 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		ctx, cancel := context.WithTimeout(commandContext(c), completionBudget)
		defer cancel()
		other, _ := c.Flags().GetString(otherFlag)
		return checkValues(cp.failedChecks(ctx, args[0]), key, other), cobra.ShellCompDirectiveNoFileComp
	}
}

// checkValues are the distinct key values of checks, narrowed by other.
func checkValues(checks []layout.Check, key, other string) []string {
	var values Distinct
	for _, ch := range checks {
		value, otherValue := ch.Scenario, ch.Viewport
		if key == "viewport" {
			value, otherValue = otherValue, value
		}
		if other == "" || other == otherValue {
			values.Add(value)
		}
	}
	return values.List
}

// Distinct is values each once, none empty, in first-added order; its set keeps
// the work linear (a run may fail on 100k scenario labels).
type Distinct struct {
	List []string
	seen map[string]bool
}

func (d *Distinct) Add(v string) {
	if v == "" || d.seen[v] {
		return
	}
	if d.seen == nil {
		d.seen = map[string]bool{}
	}
	d.seen[v] = true
	d.List = append(d.List, v)
}

// failedChecks asks the server for a run's failures within ctx: completion
// never asks, retries past its budget or signs in.
func (cp Completer) failedChecks(ctx context.Context, runID string) []layout.Check {
	if runID == "" {
		return nil
	}
	client, s, err := cp.client(ctx)
	if err != nil || s.APIKey == "" {
		return nil
	}
	resp, err := client.Invoke(ctx, api.RunFailuresCall(runID))
	if err != nil || !resp.OK {
		return nil
	}
	checks, ok := layout.ChecksOf(resp.Data)
	if !ok {
		return nil
	}
	return slices.DeleteFunc(checks.Listed, func(ch layout.Check) bool {
		return textsafe.SanitizeLine(ch.Scenario) != ch.Scenario || textsafe.SanitizeLine(ch.Viewport) != ch.Viewport
	})
}

func commandContext(c *cobra.Command) context.Context {
	if ctx := c.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}
