package cmd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/cmd/approve"
	"github.com/visualq/vq/cmd/auth"
	"github.com/visualq/vq/cmd/ci"
	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/cmd/completion"
	"github.com/visualq/vq/cmd/failures"
	"github.com/visualq/vq/cmd/invoke"
	"github.com/visualq/vq/cmd/iostreams"
	"github.com/visualq/vq/cmd/mcp"
	"github.com/visualq/vq/cmd/mcpserve"
	"github.com/visualq/vq/cmd/prove"
	"github.com/visualq/vq/cmd/sandbox"
	"github.com/visualq/vq/cmd/task"
	vqversion "github.com/visualq/vq/cmd/version"
	"github.com/visualq/vq/completions"
	"github.com/visualq/vq/format"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/textsafe"
	"github.com/visualq/vq/internal/update"
)

// Main runs vq and returns its exit code. SIGPIPE is ignored, so a reader
// that leaves early (vq ... | head -1) makes writes fail with EPIPE, which
// ends vq quietly, instead of killing it.
func Main() int {
	signal.Ignore(syscall.SIGPIPE)
	f := cmdutil.NewFactory(versionString())
	args := os.Args[1:]
	ctx, caught := context.Background(), func() {}
	if !onlyVersion(args) {
		// Words that may run a command: it can be interrupted. The
		// version line alone is no wait to interrupt, and catching
		// signals costs the runtime threads of their own. Decided here,
		// from the words, so the catching overlaps building the tree:
		// catching as the command starts instead made one invoke 5%
		// slower.
		ctx, caught = signalContext()
	}
	err := cmdutil.ExitError(ctx, execute(ctx, f, args, caught))
	report(f, err)
	return exitcode.Of(err)
}

// execute runs the command tree once and returns its typed error; a
// command runs once caught returns (signalContext).
func execute(ctx context.Context, f *cmdutil.Factory, args []string, caught func()) error {
	f.IOStreams.GuardCommands(f.Getenv)
	root := newRoot(f, args)
	root.SetArgs(args)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return flagError(c, err, args) })
	started := wireRuns(root, f, caught)
	check := startUpdateCheck(ctx, f, root, args)
	c, err := executeRecovering(ctx, root)
	defer func() {
		if notice := check.Notice(); notice != "" {
			f.Terminal().Print.Hint(notice)
		}
	}()
	if perr := f.Terminal().EndPager(); perr != nil && (err == nil || iostreams.ClosedPipe(err)) {
		err = perr
	}
	f.CloseClients()
	if iostreams.ClosedPipe(err) {
		return nil // the reader left; what it read was right
	}
	_, panicked := errors.AsType[*exitcode.PanicError](err)
	if err != nil && !*started && exitcode.Of(err) == exitcode.Internal && !panicked {
		// cobra's own complaints (a missing required flag, a bad argument
		// count) come before any command runs: they are usage errors.
		err = &exitcode.UsageError{Reason: err.Error(), Hint: "see: " + c.CommandPath() + " --help"}
	}
	if err != nil && !f.IOStreams.Documented && cmdutil.AsksForJSON(c, args) {
		writeFailureDocument(f, c, err)
	}
	return err
}

// startUpdateCheck starts the daily check for a newer vq (internal/update)
// unless the command serves a program rather than a person, or completes.
func startUpdateCheck(ctx context.Context, f *cmdutil.Factory, root *cobra.Command, args []string) *update.Check {
	if !f.IOStreams.ErrTTY {
		return nil // the common case, decided before any other work
	}
	c, _, _ := root.Find(args)
	if c == nil || len(args) > 0 && strings.HasPrefix(args[0], "__complete") ||
		slices.Contains([]string{"vq mcp serve", "vq sandbox", "vq completion"}, c.CommandPath()) {
		return nil
	}
	exe, _ := os.Executable()
	v, _, _ := buildInfo()
	return update.Start(ctx, f.Getenv, f.IOStreams.ErrTTY, v, completions.Open(f.Getenv).Dir, exe, version == "")
}

// executeRecovering runs the command tree; a panic becomes an error, so vq
// exits with the internal code rather than the runtime's exit 2, which
// scripts would read as a usage error.
func executeRecovering(ctx context.Context, root *cobra.Command) (c *cobra.Command, err error) {
	defer func() {
		if r := recover(); r != nil {
			c, err = root, exitcode.Recovered(r)
		}
	}()
	return root.ExecuteContextC(ctx)
}

// writeFailureDocument gives a script that asked for JSON its one document
// when vq failed before any answer.
func writeFailureDocument(f *cmdutil.Factory, c *cobra.Command, err error) {
	exit := exitcode.Of(err)
	_, usage := errors.AsType[*exitcode.UsageError](err)
	resp := api.ClientError(toolOf(c), exitcode.CodeOf(exit), err.Error(), usage)
	print := f.Terminal().Print
	_ = format.JSON(print.Out, resp, print.Terminal)
}

// toolOf is the tool a command calls, or "".
func toolOf(c *cobra.Command) string {
	if c.Name() == "invoke" {
		return c.Flags().Arg(0)
	}
	path := strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" ")
	for _, t := range cmdutil.TaskCommands {
		if t.Path == path {
			return t.Tool
		}
	}
	return ""
}

// wireRuns wraps every command's RunE to record that a command began (so
// execute can tell cobra's argument errors from the command's own), to
// wait until signals are caught, and to resolve the global flags first. A
// PersistentPreRunE would be replaced by a command's own.
func wireRuns(c *cobra.Command, f *cmdutil.Factory, caught func()) *bool {
	started := new(bool)
	var wrap func(*cobra.Command)
	wrap = func(c *cobra.Command) {
		if c.HasSubCommands() && c.RunE == nil {
			c.Args, c.RunE = cobra.ArbitraryArgs, runGroup
		}
		if run := c.RunE; run != nil {
			c.RunE = func(c *cobra.Command, args []string) error {
				*started = true
				caught()
				if err := f.Global.Resolve(c, f.Getenv); err != nil {
					return err
				}
				return run(c, args)
			}
		}
		for _, sub := range c.Commands() {
			wrap(sub)
		}
	}
	wrap(c)
	return started
}

// runGroup shows a group's help; given words, it is an unknown command,
// never a silent exit 0.
func runGroup(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return c.Help()
	}
	return unknownCommand(c, args[0])
}

func unknownCommand(c *cobra.Command, name string) error {
	hint := "see: " + c.CommandPath() + " --help"
	c.SuggestionsMinimumDistance = 2
	if s := c.SuggestionsFor(name); len(s) > 0 {
		hint = "did you mean " + strings.Join(s, " or ") + "?\n" + hint
	}
	return &exitcode.UsageError{Reason: fmt.Sprintf("unknown command %q for %q", name, c.CommandPath()), Hint: hint}
}

// flagError makes cobra's flag complaints usage errors that say what to
// do; args are the words vq was given.
func flagError(c *cobra.Command, err error, args []string) error {
	if rest := c.Flags().Args(); c.HasSubCommands() && len(rest) > 0 {
		return unknownCommand(c, rest[0])
	}
	hint := "see: " + c.CommandPath() + " --help"
	name, unknown := strings.CutPrefix(err.Error(), "unknown flag: --")
	switch {
	case unknown && isSharedFlag(c, name):
		// One of vq's flags, which this command cannot honour.
		return &exitcode.UsageError{Reason: fmt.Sprintf("--%s does not apply to %s", name, c.CommandPath()), Hint: hint}
	case !unknown:
	case argumentOf(c, name) != "":
		hint = "did you mean " + textsafe.ShellQuote(argumentOf(c, name)+"="+flagValue(args, name)) + "? " +
			textsafe.SanitizeLine(calledTool(c)) + "'s arguments are KEY=VALUE pairs\n" + hint
	default:
		if meant := closestFlag(c, name); meant != "" {
			hint = "did you mean --" + meant + "?\n" + hint
		}
	}
	return &exitcode.UsageError{Reason: err.Error(), Hint: hint}
}

// calledTool is the tool c calls with KEY=VALUE pairs, or "".
func calledTool(c *cobra.Command) string {
	if c.Name() == "call" && c.HasParent() && c.Parent().Name() == "ci" {
		return c.Flags().Arg(0)
	}
	tool := toolOf(c)
	if spec, known := api.LookupTool(tool); c.Name() != "invoke" && (!known || !spec.ExtraArgs) {
		return ""
	}
	return tool
}

// argumentOf is the argument of c's tool that name names but for case, or "".
func argumentOf(c *cobra.Command, name string) string {
	spec, known := api.LookupTool(calledTool(c))
	if !known {
		return ""
	}
	for _, a := range spec.InputArgs() {
		if strings.EqualFold(a.Name, name) {
			return a.Name
		}
	}
	return ""
}

// flagValue is the value given to --name in args ("VALUE" when there is
// none to show).
func flagValue(args []string, name string) string {
	for i, word := range args {
		if value, ok := strings.CutPrefix(word, "--"+name+"="); ok {
			return value
		}
		if word == "--"+name && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			return args[i+1]
		}
	}
	return "VALUE"
}

// isSharedFlag reports one of vq's shared flags, all of which the root takes.
func isSharedFlag(c *cobra.Command, name string) bool {
	f := c.Root().Flags().Lookup(name)
	return f != nil && cmdutil.IsShared(f)
}

// closestFlag is the flag of c near enough to name to be a typo, or "".
func closestFlag(c *cobra.Command, name string) string {
	best, bestDistance := "", 3
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if d := cmdutil.EditDistance(name, f.Name); d < bestDistance {
			best, bestDistance = f.Name, d
		}
	})
	return best
}

// report prints an error the command did not already show; a panic's
// stack only under --debug (or VQ_DEBUG: the panic may have come before
// the flags were resolved).
func report(f *cmdutil.Factory, err error) {
	if err == nil || exitcode.Silent(err) {
		return
	}
	print := f.Terminal().Print
	if p, ok := errors.AsType[*exitcode.PanicError](err); ok {
		print.Error(textsafe.SanitizeLine(p.Error()))
		if f.Global.Debug || f.Getenv != nil && f.Getenv("VQ_DEBUG") != "" {
			print.Note(fmt.Sprintf("panic: %s\n\n%s", textsafe.Sanitize(fmt.Sprint(p.Value)), p.Stack))
		}
		return
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, exitcode.ErrTerminated) {
		print.Error("interrupted")
		return
	}
	if usage, ok := errors.AsType[*exitcode.UsageError](err); ok {
		print.Error(usage.Reason)
		if usage.Hint != "" {
			print.Hint(usage.Hint)
		}
		return
	}
	print.Error(err.Error())
}

// signalContext is cancelled by SIGINT or SIGTERM (cause ErrTerminated).
// Each caught signal is a hand-off to the runtime's signal thread (up to a
// millisecond on a small machine), so this happens while the command tree
// is built; caught returns once it has. The handlers stay until vq exits:
// removing them would be one more hand-off each.
func signalContext() (ctx context.Context, caught func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 1)
	ready := make(chan struct{})
	go func() {
		signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
		close(ready)
		if <-ch == syscall.SIGTERM {
			cancel(exitcode.ErrTerminated)
		} else {
			cancel(context.Canceled)
		}
	}()
	return ctx, func() { <-ready }
}

// NewRootCmd builds the whole command tree around a factory.
func NewRootCmd(f *cmdutil.Factory) *cobra.Command { return newRoot(f, nil) }

// newRoot builds the root and the commands args can reach: only the one
// they name, none when they only ask for the version, every one otherwise
// (help, completion, a mistyped name's suggestions). Building a command
// defines its flags, which was most of vq's own start-up.
func newRoot(f *cmdutil.Factory, args []string) *cobra.Command {
	root := &cobra.Command{
		Use:   "vq",
		Short: "Call VisualQ tools, triage failed runs, prove JIRA tickets",
		Long: `vq is the command-line client of VisualQ, the visual-regression and
functional-testing service. It calls VisualQ's tools, shows the answer to a
person (a TUI on a terminal) or to a script (plain text, JSON, exit codes),
chains the follow-up calls the service suggests, and watches long jobs.

Try it with no account: vq demo`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(f.IOStreams.In)
	root.SetOut(f.IOStreams.Out)
	root.SetErr(f.IOStreams.ErrOut)
	root.SetUsageFunc(cmdutil.Usage)
	root.CompletionOptions.DisableDefaultCmd = true // vq completion is vq's own
	root.PersistentFlags().AddFlagSet(f.Global.FlagsOf(cmdutil.DisplayFlags))
	// Every shared flag, so that one may stand before the command's name.
	cmdutil.CallsTools(root, &f.Global)

	// vq's own --version, not cobra's: cobra prints "vq version X" unless
	// given a template, and a template links text/template's calls by
	// reflection, which keep every exported method in the binary (a sixth
	// of its size, paid at every start).
	version := root.Flags().BoolP("version", "v", false, "version for vq")
	root.Args, root.RunE = cobra.ArbitraryArgs, func(c *cobra.Command, args []string) error {
		if *version {
			_, err := fmt.Fprintln(c.OutOrStdout(), "vq", versionString())
			return err
		}
		return runGroup(c, args)
	}
	name := commandName(root, args)
	named := slices.ContainsFunc(rootCommands, func(c rootCommand) bool { return slices.Contains(c.names, name) })
	if !named && asksVersion(args) {
		return root
	}
	if !named {
		// The words may show the root's help: its exit codes, made only then.
		root.Long += "\n\n" + vqversion.ExitCodeSummary()
	}
	for _, c := range rootCommands {
		if !named || slices.Contains(c.names, name) {
			root.AddCommand(c.build(f)...)
		}
	}
	groupsTakeSharedFlags(root)
	return root
}

// rootCommand is a command under the root (a task group: several), by the
// names that run it.
type rootCommand struct {
	names []string
	build func(*cmdutil.Factory) []*cobra.Command
}

// rootCommands are the root's commands;
// TestRootBuildsOnlyTheCommandItsWordsName holds each entry's names to
// what it builds.
var rootCommands = []rootCommand{
	{[]string{"invoke"}, func(f *cmdutil.Factory) []*cobra.Command { return one(invoke.NewCmdInvoke(f, nil)) }},
	{[]string{"failures"}, func(f *cmdutil.Factory) []*cobra.Command { return one(failures.NewCmdFailures(f, nil)) }},
	{[]string{"diff"}, func(f *cmdutil.Factory) []*cobra.Command { return one(failures.NewCmdDiff(f, nil)) }},
	{[]string{"approve"}, func(f *cmdutil.Factory) []*cobra.Command { return one(approve.NewCmdApprove(f, nil)) }},
	{[]string{"prove"}, func(f *cmdutil.Factory) []*cobra.Command { return one(prove.NewCmdProve(f, nil)) }},
	{[]string{"watch"}, func(f *cmdutil.Factory) []*cobra.Command { return one(prove.NewCmdWatch(f, nil)) }},
	{[]string{"ci"}, func(f *cmdutil.Factory) []*cobra.Command { return one(ci.NewCmdCI(f, nil)) }},
	{[]string{"auth"}, func(f *cmdutil.Factory) []*cobra.Command { return one(auth.NewCmdAuth(f)) }},
	{[]string{"tools"}, func(f *cmdutil.Factory) []*cobra.Command { return one(invoke.NewCmdTools(f, nil)) }},
	{[]string{"mcp"}, func(f *cmdutil.Factory) []*cobra.Command { return one(newCmdMCP(f)) }},
	{[]string{"exit-codes"}, func(f *cmdutil.Factory) []*cobra.Command { return one(vqversion.NewCmdExitCodes(f, nil)) }},
	{[]string{"version"}, func(f *cmdutil.Factory) []*cobra.Command { return one(vqversion.NewCmdVersion(f, nil)) }},
	{[]string{"sandbox"}, func(f *cmdutil.Factory) []*cobra.Command { return one(sandbox.NewCmdSandbox(f, nil)) }},
	{[]string{"demo"}, func(f *cmdutil.Factory) []*cobra.Command { return one(sandbox.NewCmdDemo(f, nil)) }},
	{task.Groups(), func(f *cmdutil.Factory) []*cobra.Command { return task.NewCmdTasks(f, nil) }},
	{[]string{"completion"}, func(f *cmdutil.Factory) []*cobra.Command { return one(completion.NewCmdCompletion(f, nil)) }},
	{[]string{"environment"}, func(*cmdutil.Factory) []*cobra.Command { return one(NewCmdEnvironment()) }},
	{[]string{"formats"}, func(*cmdutil.Factory) []*cobra.Command { return one(NewCmdFormats()) }},
}

func one(c *cobra.Command) []*cobra.Command { return []*cobra.Command{c} }

// commandName is the name of the command args run under the root ("" for
// none): their first word that is neither a flag nor a flag's value, read
// as cobra finds a command (a flag root does not know takes a value).
func commandName(root *cobra.Command, args []string) string {
	for i := 0; i < len(args); i++ {
		word := args[i]
		if word == "--" {
			return ""
		}
		if !strings.HasPrefix(word, "-") {
			return word
		}
		name, _, valued := strings.Cut(strings.TrimLeft(word, "-"), "=")
		var fl *pflag.Flag
		switch {
		case valued:
			continue
		case strings.HasPrefix(word, "--"):
			fl = cmp.Or(root.Flags().Lookup(name), root.PersistentFlags().Lookup(name))
		case len(name) == 1:
			fl = cmp.Or(root.Flags().ShorthandLookup(name), root.PersistentFlags().ShorthandLookup(name))
		default:
			continue // -abc: short flags together
		}
		if fl == nil || fl.NoOptDefVal == "" {
			i++ // its value
		}
	}
	return ""
}

// onlyVersion reports vq --version (or -v) and no other word.
func onlyVersion(args []string) bool { return len(args) == 1 && asksVersion(args) }

// asksVersion reports words that ask for vq's version and not for help.
func asksVersion(args []string) bool {
	has := func(words ...string) bool {
		return slices.ContainsFunc(args, func(a string) bool { return slices.Contains(words, a) })
	}
	return has("--version", "-v") && !has("--help", "-h")
}

// newCmdMCP is vq mcp with vq mcp serve under it.
func newCmdMCP(f *cmdutil.Factory) *cobra.Command {
	c := mcp.NewCmdMCP(f)
	c.AddCommand(mcpserve.NewCmdServe(f, nil))
	return c
}

// groupsTakeSharedFlags gives every group the shared flags its commands
// take, so that one may stand before the name of the command that takes it
// (vq --profile prod ci run-vrt: finding the command, cobra must know which
// flags take a value), and its help lists no flag all of them refuse.
func groupsTakeSharedFlags(c *cobra.Command) {
	for _, sub := range c.Commands() {
		if sub.HasSubCommands() {
			groupsTakeSharedFlags(sub)
		}
		sub.Flags().VisitAll(func(f *pflag.Flag) {
			if cmdutil.IsShared(f) && c.Flags().Lookup(f.Name) == nil && c.PersistentFlags().Lookup(f.Name) == nil {
				c.Flags().AddFlag(f)
			}
		})
	}
}
