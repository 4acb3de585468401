package cmdutil

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/format"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/layout"
	"github.com/visualq/vq/internal/textsafe"
)

// ReportOptions are what a command gives CI beside what it prints: the
// JUnit file of --junit, the exit status of --exit-status, and under
// GitHub Actions the step outputs of a CI run. Each reads the answer the
// command showed last.
type ReportOptions struct {
	// JUnit is the path of --junit ("" for none).
	JUnit string
	// ExitStatus is --exit-status: failed checks exit as a failed run.
	ExitStatus bool
	// StepOutputs: write the run's outputs to $GITHUB_OUTPUT when set.
	StepOutputs bool
}

// addJUnitFlag gives c --junit. Like --format, it turns the TUI off: the
// report is of the answer printed, not of a screen a person moved to.
func addJUnitFlag(c *cobra.Command, r *ReportOptions) {
	c.Flags().StringVar(&r.JUnit, "junit", "", "also write the answer as a JUnit report to `PATH`, beside what --format prints")
	_ = c.MarkFlagFilename("junit", "xml")
}

// AddExitStatusFlag gives c --exit-status, for a read whose answer lists
// checks: it then exits as vq ci status would for the run.
func AddExitStatusFlag(c *cobra.Command, r *ReportOptions) {
	c.Flags().BoolVar(&r.ExitStatus, "exit-status", false, "exit 3 (run_failed) when the answer lists failed checks, 0 when it lists none, 54 (no_verdict) when its counts cannot be read")
}

// finish writes the reports of shown, the answer the command showed last,
// and returns the error it exits with: err, unless --exit-status finds
// failed checks in an answer that was ok. A report that cannot be written
// says so and never turns a failure into a success, nor a verdict into
// another.
func (r ReportOptions) finish(ctx context.Context, f *Factory, shown *api.ToolResponse, err error) error {
	print := f.Terminal().Print
	if r.JUnit != "" && shown != nil {
		if werr := format.WriteJUnitFile(r.JUnit, shown); werr != nil {
			print.Error("--junit: " + textsafe.SanitizeLine(werr.Error()))
			if err == nil {
				err = &exitcode.Error{Code: exitcode.Internal}
			}
		}
	}
	if r.ExitStatus && err == nil && shown != nil {
		err = checksExit(shown)
	}
	if path := f.Getenv("GITHUB_OUTPUT"); r.StepOutputs && path != "" {
		outputs := format.RunOutputs(shown, exitcode.Of(ExitError(ctx, err)))
		if werr := format.AppendStepOutputs(path, outputs); werr != nil {
			print.Warning("step outputs not written: " + textsafe.SanitizeLine(werr.Error()))
		}
	}
	return err
}

// checksExit is the exit of --exit-status for an ok answer: the verdict of
// the checks it lists, as vq ci status gives a run's; nil for an answer
// whose checks all passed, or that lists none.
func checksExit(resp *api.ToolResponse) error {
	checks, ok := layout.ChecksOf(resp.Data)
	if !ok || checks.Verdict() == exitcode.OK {
		return nil
	}
	run := "the run"
	if checks.RunID != "" {
		run = "run " + textsafe.SanitizeLine(checks.RunID)
	}
	why := map[int]string{
		exitcode.RunFailed:    run + " failed",
		exitcode.NoVerdict:    run + " has no verdict vq can read: " + checks.Unreadable,
		exitcode.RunError:     run + " ended in error",
		exitcode.RunCancelled: run + " was cancelled",
		exitcode.Pending:      run + " has no verdict yet",
	}[checks.Verdict()]
	if checks.Verdict() == exitcode.RunFailed && checks.Failed > 0 {
		why = fmt.Sprintf("%d of %d checks failed", checks.Failed, checks.Total)
	}
	return &exitcode.Error{Code: checks.Verdict(), Message: why + " (--exit-status)"}
}

// ExitError is the error vq exits with for a command's err: a SIGTERM
// ends it as terminated, whatever the command made of its cancelled
// context.
func ExitError(ctx context.Context, err error) error {
	if errors.Is(context.Cause(ctx), exitcode.ErrTerminated) {
		return exitcode.ErrTerminated
	}
	return err
}

// addReportFlags gives a task command the report flags that act on its
// tool's answer: --exit-status where it lists checks (a run's failures, a
// diff), --junit where it is a run's checks.
func addReportFlags(c *cobra.Command, tool string, r *ReportOptions) {
	switch tool {
	case api.ToolRunFailures:
		addJUnitFlag(c, r)
		AddExitStatusFlag(c, r)
	case api.ToolDiffStats:
		AddExitStatusFlag(c, r)
	}
}

// AddRunReports gives a command that reports a CI run its reports:
// --junit, the step outputs under GitHub Actions ($GITHUB_OUTPUT), and
// there (GITHUB_ACTIONS=true) the github format when no other output was
// asked for, so annotations and the step summary come without a flag.
func AddRunReports(c *cobra.Command, f *Factory, p *Pipeline) {
	addJUnitFlag(c, &p.Reports)
	p.Reports.StepOutputs = true
	c.PreRunE = chainPreRun(c.PreRunE, func(*cobra.Command, []string) error {
		if f.Getenv("GITHUB_ACTIONS") == "true" && p.Output.Format == "" && p.Output.query == nil {
			p.Output.Format = "github"
		}
		return nil
	})
}
