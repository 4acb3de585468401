package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/format"
)

// Main runs vq with the process's arguments and returns its exit code.
// It is the one place where errors become exit codes.
func Main() int {
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
	started := wireRuns(root, f)
	err := root.ExecuteContext(ctx)
	f.closeClients()
	if err != nil && !*started && !typed(err) {
		// cobra's own complaints (unknown command, missing required flag)
		// come before any command runs: they are usage errors.
		err = &format.UsageError{Reason: err.Error(), Hint: "see: vq --help"}
	}
	return err
}

// wireRuns wraps every command's RunE: it records that a command began, so
// execute can tell cobra's argument errors from the command's own
// failures, and resolves the global flags first. Doing it here, not in a
// PersistentPreRunE, keeps it working for commands that have their own.
func wireRuns(c *cobra.Command, f *Factory) *bool {
	started := new(bool)
	var wrap func(*cobra.Command)
	wrap = func(c *cobra.Command) {
		if run := c.RunE; run != nil {
			c.RunE = func(c *cobra.Command, args []string) error {
				*started = true
				if err := f.Global.resolve(c, f.Getenv); err != nil {
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
	}
	root.SetIn(f.IO.In)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	root.SetVersionTemplate("vq {{.Version}}\n")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &format.UsageError{Reason: err.Error(), Hint: "see: " + c.CommandPath() + " --help"}
	})
	addGlobalFlags(root.PersistentFlags(), &f.Global)
	_ = root.RegisterFlagCompletionFunc("transport", cobra.FixedCompletions([]string{"invoke", "mcp"}, cobra.ShellCompDirectiveNoFileComp))

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
		NewCmdMCP(f),
		NewCmdExitCodes(f),
		NewCmdVersion(f),
		NewCmdSandbox(f, nil),
		NewCmdDemo(f),
	)
	root.AddCommand(NewCmdCompletion(f), NewCmdEnvironment(), NewCmdFormats())
	return root
}
