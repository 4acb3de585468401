package cmdutil

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/completions"
	"github.com/visualq/vq/format"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/textsafe"
)

// TaskCommands is the one table of task commands: each fronted tool and where its
// arguments go (wire facts: api/tools.go); a tool's first row is its FrontingLine.
var TaskCommands = []TaskCommand{
	{Path: "failures", Tool: api.ToolRunFailures, Positional: []string{"runId"}},
	{Path: "diff", Tool: api.ToolDiffStats, Positional: []string{"runId"}, Flags: []ArgFlag{
		{Arg: "scenarioLabel", Name: "scenario", Value: "LABEL", Usage: "scenario label (required)"},
		{Arg: "viewport", Name: "viewport", Value: "NAME", Usage: "viewport name (required)"},
	}},
	{Path: "approve", Tool: api.ToolApprove, Positional: []string{"runId"}, Flags: []ArgFlag{
		{Arg: "scenarioLabel", Name: "scenario", Value: "LABEL", Usage: "scenario label; repeat for several checks", Repeated: true},
		{Arg: "viewport", Name: "viewport", Value: "NAME", Usage: "viewport; repeat for several checks", Repeated: true},
	}},
	{Path: "scenario create", Tool: api.ToolCreateScenario, Flags: []ArgFlag{
		{Arg: "goal", Name: "goal", Value: "TEXT", Usage: "what the scenario should do (required)"},
		{Arg: "startPath", Name: "start-path", Value: "PATH", Usage: "path the scenario starts from, e.g. /checkout"},
	}},
	{Path: "scenario find", Tool: api.ToolFindScenarios, Positional: []string{"query"}},
	{Path: "tracking plan", Tool: api.ToolTrackingPlan, Flags: []ArgFlag{{Arg: "scenarioId", Name: "scenario", Value: "ID", Usage: "scenario id"}}},
	{Path: "tracking run", Tool: api.ToolRunTracking, Flags: []ArgFlag{{Arg: "scenarioId", Name: "scenario", Value: "ID", Usage: "scenario id"}}},
	{Path: "prove", Tool: api.ToolProve, Positional: []string{"ticket"}},
	{Path: "watch", Tool: api.ToolJobStatus, Positional: []string{"jobId"}, Repeats: true},
	{Path: "ci run-vrt", Tool: api.ToolRunVRT},
	{Path: "ci run-perf", Tool: api.ToolRunPerf},
	{Path: "ci status", Tool: api.ToolRunStatus, Positional: []string{"runId"}},
}

// TaskCommand is one row of TaskCommands.
type TaskCommand struct {
	Path       string // as typed after "vq": "scenario create"
	Tool       string
	Positional []string // arguments given as words, in order
	// Repeats: the last word may repeat, one call each (vq watch JOB_ID...).
	Repeats bool
	Flags   []ArgFlag // a required argument's flag is required
}

// ArgFlag is a tool argument given by a flag of its own.
type ArgFlag struct {
	// Arg is the tool argument, Name the flag, Value its usage-line name.
	Arg, Name, Value, Usage string
	// Repeated flags pair up in order, read by the command (vq approve's --scenario, --viewport).
	Repeated bool
}

// TaskRow is the row of the command at path; it panics without one.
func TaskRow(path string) TaskCommand {
	i := slices.IndexFunc(TaskCommands, func(t TaskCommand) bool { return t.Path == path })
	if i < 0 {
		panic("cmd: no task command " + path + " in taskCommands")
	}
	return TaskCommands[i]
}

// FrontingRow is the first row of tool, if any.
func FrontingRow(tool string) (TaskCommand, bool) {
	i := slices.IndexFunc(TaskCommands, func(t TaskCommand) bool { return t.Tool == tool })
	if i < 0 {
		return TaskCommand{}, false
	}
	return TaskCommands[i], true
}

// FrontingCommand is the command that fronts tool ("vq approve"), if any.
func FrontingCommand(tool string) (string, bool) {
	t, ok := FrontingRow(tool)
	return "vq " + t.Path, ok
}

// Spec is the registry's entry of the row's tool.
func (t TaskCommand) Spec() api.ToolSpec { return api.MustTool(t.Tool) }

func (t TaskCommand) required(arg string) bool {
	return slices.ContainsFunc(t.Spec().Args, func(a api.ToolArg) bool { return a.Name == arg && a.Required })
}

// Shape gives c the row's usage line, word check, argument flags and ID completion.
func (t TaskCommand) Shape(f *Factory, c *cobra.Command, more string) *cobra.Command {
	c.Use, c.Args, c.ValidArgsFunction = t.usage(more), t.checkWords(), t.completeWords(f)
	if slices.Equal(t.Positional, []string{completions.RunID}) {
		offerRuns(f, c)
	}
	for _, fl := range t.Flags {
		if fl.Repeated {
			c.Flags().StringArray(fl.Name, nil, fl.Usage)
			continue
		}
		c.Flags().String(fl.Name, "", fl.Usage)
		if t.required(fl.Arg) {
			_ = c.MarkFlagRequired(fl.Name)
		}
	}
	return c
}

func (t TaskCommand) usage(more string) string {
	words := []string{t.Path[strings.LastIndexByte(t.Path, ' ')+1:]}
	for _, arg := range t.Positional {
		words = append(words, usageName(arg))
	}
	if t.Repeats {
		words[len(words)-1] += "..."
	}
	var repeated []string
	for _, fl := range t.Flags {
		switch {
		case fl.Repeated:
			repeated = append(repeated, "--"+fl.Name+" "+fl.Value)
		case t.required(fl.Arg):
			words = append(words, "--"+fl.Name+" "+fl.Value)
		default:
			words = append(words, "[--"+fl.Name+" "+fl.Value+"]")
		}
	}
	if len(repeated) > 0 {
		words = append(words, "["+strings.Join(repeated, " ")+"]...")
	}
	if t.Spec().ExtraArgs {
		words = append(words, "[KEY=VALUE | KEY:=JSON]...")
	}
	if more != "" {
		words = append(words, more)
	}
	return strings.Join(words, " ")
}

// usageName is an argument's name in a usage line: runId is RUN_ID.
func usageName(arg string) string {
	var b strings.Builder
	for i, r := range arg {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToUpper(r))
	}
	return b.String()
}

// checkWords wants exactly the words; at least those when the last repeats or pairs follow.
func (t TaskCommand) checkWords() cobra.PositionalArgs {
	names := make([]string, len(t.Positional))
	for i, arg := range t.Positional {
		names[i] = usageName(arg)
	}
	atLeast := t.Repeats || t.Spec().ExtraArgs
	switch {
	case len(names) == 0 && !atLeast:
		return cobra.NoArgs
	case !atLeast:
		return ExactArgs(len(names), strings.Join(names, " "))
	}
	return func(c *cobra.Command, args []string) error {
		if len(args) >= len(names) {
			return nil
		}
		reason := fmt.Sprintf("%s needs %s", c.CommandPath(), strings.Join(names, " "))
		if t.Repeats {
			reason = fmt.Sprintf("%s needs at least one %s", c.CommandPath(), names[len(names)-1])
		}
		return &exitcode.UsageError{Reason: reason, Hint: "usage: " + c.UseLine()}
	}
}

// completeWords completes run or job IDs with recent ones; nil when no word is one.
func (t TaskCommand) completeWords(f *Factory) cobra.CompletionFunc {
	isID := func(arg string) bool { return slices.Contains(completions.IDKinds, arg) }
	if !slices.ContainsFunc(t.Positional, isID) {
		return nil
	}
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		i := len(args)
		if t.Repeats {
			i = min(i, len(t.Positional)-1)
		}
		if i >= len(t.Positional) || !isID(t.Positional[i]) {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return NewCompleter(f).recent(t.Positional[i])(c, args, toComplete)
	}
}

// Values are c's tool arguments: words, flags (first value) and pairs, flags winning.
func (t TaskCommand) Values(c *cobra.Command, words []string) (map[string]any, error) {
	values := map[string]any{}
	if t.Spec().ExtraArgs {
		pairs := words[min(len(t.Positional), len(words)):]
		parsed, err := ParseArgs(pairs, "", nil)
		if err != nil {
			return nil, err
		}
		if err := CheckKnownArgs(t.Tool, PairKeys(pairs)); err != nil {
			return nil, err
		}
		values = parsed
	}
	for i, arg := range t.Positional {
		if i < len(words) {
			values[arg] = words[i]
		}
	}
	for _, fl := range t.Flags {
		v, _ := c.Flags().GetString(fl.Name)
		if all, _ := c.Flags().GetStringArray(fl.Name); fl.Repeated && len(all) > 0 {
			v = all[0]
		}
		if v != "" {
			values[fl.Arg] = v
		}
	}
	return values, nil
}

// FrontingLine is a next action as its tool's fronting command when every argument
// fits (format's CommandPrinter; the rest print as vq invoke).
func FrontingLine(a api.NextAction) (string, bool) {
	t, fronted := FrontingRow(a.Tool)
	if !fronted || !t.hasRequired(a.Args) {
		return "", false
	}
	words, used, fits := t.argumentWords(a.Args)
	if !fits {
		return "", false
	}
	var rest []string
	for k := range a.Args {
		if !used[k] {
			rest = append(rest, k)
		}
	}
	if len(rest) > 0 && !t.Spec().ExtraArgs {
		return "", false
	}
	slices.Sort(rest)
	pairs, ok := format.PairWords(a.Args, rest)
	return strings.Join(append(words, pairs...), " "), ok
}

func (t TaskCommand) hasRequired(args map[string]any) bool {
	return !slices.ContainsFunc(t.Spec().Args, func(arg api.ToolArg) bool {
		_, set := args[arg.Name]
		return arg.Required && !set
	})
}

// argumentWords are args' shell-quoted words and the arguments they carry; fits
// is false for a non-string, empty or flag-like value.
func (t TaskCommand) argumentWords(args map[string]any) (words []string, used map[string]bool, fits bool) {
	words, used = append([]string{"vq"}, strings.Fields(t.Path)...), map[string]bool{}
	add := func(arg string, before ...string) bool {
		v, set := args[arg]
		if !set {
			return true
		}
		s, isString := v.(string)
		if !isString || s == "" || strings.HasPrefix(s, "-") {
			return false
		}
		words, used[arg] = append(append(words, before...), textsafe.ShellQuote(s)), true
		return true
	}
	for _, arg := range t.Positional {
		if !add(arg) {
			return nil, nil, false
		}
	}
	for _, fl := range slices.SortedFunc(slices.Values(t.Flags), func(x, y ArgFlag) int { return strings.Compare(x.Arg, y.Arg) }) {
		if !add(fl.Arg, "--"+fl.Name) {
			return nil, nil, false
		}
	}
	return words, used, true
}
