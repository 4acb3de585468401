package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/format"
)

// Main runs vq with the process's arguments and returns its exit code.
// It is the one place where errors become exit codes.
func Main() int {
	startingHeap(32 << 20)
	ctx, stop := signalContext()
	defer stop()
	f := NewFactory()
	err := execute(ctx, f, os.Args[1:])
	if errors.Is(context.Cause(ctx), format.ErrTerminated) {
		err = format.ErrTerminated
	}
	report(f.IO, err)
	return format.Exit(err)
}

// execute runs the command tree once and returns its typed error.
func execute(ctx context.Context, f *Factory, args []string) error {
	root := NewRootCmd(f)
	root.SetArgs(args)
	started := trackStart(root)
	err := root.ExecuteContext(ctx)
	f.closeClients()
	if err != nil && !*started && !typed(err) {
		// cobra's own complaints (unknown command, missing required flag)
		// come before any command runs: they are usage errors.
		err = &format.UsageError{Reason: err.Error(), Hint: "see: vq --help"}
	}
	return err
}

// trackStart wraps every command's RunE to record that a command began, so
// Main can tell cobra's argument errors from the command's own failures.
func trackStart(c *cobra.Command) *bool {
	started := new(bool)
	var wrap func(*cobra.Command)
	wrap = func(c *cobra.Command) {
		if run := c.RunE; run != nil {
			c.RunE = func(c *cobra.Command, args []string) error {
				*started = true
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

func typed(err error) bool {
	return format.Exit(err) != format.ExitInternal
}

// report prints an error that the command did not already show.
func report(io *IOStreams, err error) {
	if err == nil || format.Silent(err) {
		return
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, format.ErrTerminated) {
		fmt.Fprintln(io.ErrOut, "vq: interrupted")
		return
	}
	fmt.Fprintln(io.ErrOut, "vq: "+format.Sanitize(err.Error()))
}

// signalContext is cancelled by SIGINT (cause context.Canceled) or SIGTERM
// (cause format.ErrTerminated), so in-flight requests stop at once.
func signalContext() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case sig := <-ch:
			if sig == syscall.SIGTERM {
				cancel(format.ErrTerminated)
			} else {
				cancel(context.Canceled)
			}
		case <-ctx.Done():
		}
	}()
	return ctx, func() { signal.Stop(ch); cancel(nil) }
}

// NewRootCmd builds the whole command tree around a factory.
func NewRootCmd(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "vq",
		Short: "Call VisualQ tools, triage failed runs, prove JIRA tickets",
		Long: `vq is the command-line client of VisualQ, the visual-regression and
functional-testing service. It calls VisualQ's tools, shows the answer to a
person (a TUI on a terminal) or to a script (plain text, JSON, exit codes),
chains the follow-up calls the service suggests, and watches long jobs.

Try it with no account: vq demo

` + exitCodeSummary(),
		Version:       versionString(),
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(c *cobra.Command, _ []string) error {
			return validateGlobals(c, &f.Global, f.Getenv)
		},
	}
	root.SetIn(f.IO.In)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	root.SetVersionTemplate("vq {{.Version}}\n")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &format.UsageError{Reason: err.Error(), Hint: "see: " + c.CommandPath() + " --help"}
	})

	g := &f.Global
	pf := root.PersistentFlags()
	pf.StringVar(&g.BaseURL, "base-url", "", "VisualQ server URL (env VQ_BASE_URL)")
	pf.StringVar(&g.Project, "project", "", "project sent with every call (env VQ_PROJECT)")
	pf.StringVar(&g.Environment, "environment", "", "environment sent with every call (env VQ_ENVIRONMENT)")
	pf.StringVar(&g.Transport, "transport", "", "endpoint to use: invoke or mcp (env VQ_TRANSPORT; default invoke)")
	pf.StringVar(&g.Endpoint, "endpoint", "", "full URL of an MCP endpoint; implies --transport mcp (env VQ_ENDPOINT)")
	pf.BoolVar(&g.JSON, "json", false, "print the ToolResponse as JSON on stdout (same as --format json)")
	pf.StringVar(&g.Format, "format", "", "output format: text, json, markdown, junit or github (see vq help formats)")
	pf.BoolVar(&g.Wait, "wait", false, "watch the job an async tool returns until it ends")
	pf.DurationVar(&g.Interval, "interval", 0, "poll interval for --wait and watch (default: adaptive, 1s growing to 10s)")
	pf.StringVar(&g.JQ, "jq", "", "filter the JSON output with a jq expression")
	pf.BoolVar(&g.Yes, "yes", false, "consent to write tools: send confirm: true")
	pf.BoolVar(&g.NoTUI, "no-tui", false, "plain output even on a terminal (env VQ_NO_TUI)")
	pf.DurationVar(&g.Timeout, "timeout", 60*time.Second, "timeout of each request; given, it also bounds the whole of watch, prove and --wait (default there 30m)")
	pf.BoolVar(&g.NoRetry, "no-retry", false, "disable automatic retries of rate limits and unexpected errors")
	pf.BoolVar(&g.Debug, "debug", false, "trace HTTP on stderr, credentials redacted (env VQ_DEBUG)")
	pf.BoolVar(&g.NoColor, "no-color", false, "no colours (env NO_COLOR)")

	root.AddCommand(
		NewCmdInvoke(f, nil),
		NewCmdFailures(f, nil),
		NewCmdDiff(f, nil),
		NewCmdApprove(f, nil),
		NewCmdScenario(f),
		NewCmdTracking(f),
		NewCmdProve(f, nil),
		NewCmdWatch(f, nil),
		NewCmdCI(f, nil),
		NewCmdAuth(f),
		NewCmdTools(f, nil),
		NewCmdExitCodes(f),
		NewCmdVersion(f),
		NewCmdSandbox(f, nil),
		NewCmdDemo(f),
	)
	root.AddCommand(NewCmdCompletion(f), NewCmdEnvironment(), NewCmdFormats())
	registerCompletions(root, f)
	return root
}

// validateGlobals checks flag combinations before any command runs, so a
// mistake costs nothing on the network.
func validateGlobals(c *cobra.Command, g *GlobalOptions, getenv func(string) string) error {
	// The environment stands in for these flags (vq help environment): read
	// once here, so every later test of them is the flag's.
	g.NoTUI = g.NoTUI || getenv("VQ_NO_TUI") != ""
	g.NoColor = g.NoColor || getenv("NO_COLOR") != ""
	g.Debug = g.Debug || getenv("VQ_DEBUG") != ""
	if g.Format != "" && !slices.Contains(format.Formats, g.Format) {
		return &format.UsageError{Reason: fmt.Sprintf("unknown --format %q", g.Format), Hint: "use one of: " + strings.Join(format.Formats, ", ")}
	}
	if g.JQ != "" && format.IsCI(g.Format) {
		return format.Usagef("--jq filters the JSON output; it does not combine with --format %s", g.Format)
	}
	if g.JSON {
		if g.Format != "" && g.Format != "json" {
			return format.Usagef("--json and --format %s contradict each other", g.Format)
		}
		g.Format = "json"
	}
	if g.JQ != "" {
		if _, err := format.CompileJQ(g.JQ); err != nil {
			return err
		}
	}
	if g.Timeout <= 0 {
		return format.Usagef("--timeout must be positive, got %s", g.Timeout)
	}
	g.TimeoutGiven = c.Flags().Changed("timeout")
	if c.Flags().Changed("interval") && g.Interval <= 0 {
		return format.Usagef("--interval must be positive, got %s", g.Interval)
	}
	return nil
}
