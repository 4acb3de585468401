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

// ReportOptions are the CI reports beside the output, of the answer shown last.
type ReportOptions struct {
	JUnit       string // --junit
	ExitStatus  bool   // --exit-status
	StepOutputs bool   // to $GITHUB_OUTPUT when set
	// ChangesExitZero (--exit-zero-on-changes): a run failed only by changed checks exits 0.
	ChangesExitZero bool

	saved  format.Saved // the diff images --save-dir saved, which the JUnit report attaches
	failed bool         // a report was not written (said on stderr)
}

// addJUnitFlag gives c --junit, which turns the TUI off: the report is of what is printed.
func addJUnitFlag(c *cobra.Command, r *ReportOptions) {
	c.Flags().StringVar(&r.JUnit, "junit", "", "also write the answer as a JUnit report to `PATH`, beside what --format prints")
	_ = c.MarkFlagFilename("junit", "xml")
}

// AddExitStatusFlag gives c --exit-status: exit as vq ci status would.
func AddExitStatusFlag(c *cobra.Command, r *ReportOptions) {
	c.Flags().BoolVar(&r.ExitStatus, "exit-status", false, "exit 3 (run_failed) when the answer lists failed checks, 0 when it lists none, 54 (no_verdict) when its counts cannot be read")
}

// finish writes shown's reports and returns the exit error; an unwritable report
// never turns failure into success, nor one verdict into another.
func (r ReportOptions) finish(ctx context.Context, f *Factory, shown *api.ToolResponse, err error) error {
	print := f.Terminal().Print
	if r.JUnit != "" && shown != nil {
		if werr := format.WriteJUnitFile(r.JUnit, shown, r.saved); werr != nil {
			print.Error("--junit: " + textsafe.SanitizeLine(werr.Error()))
			r.failed = true
		}
	}
	if r.failed && err == nil {
		err = &exitcode.Error{Code: exitcode.Internal}
	}
	if r.ExitStatus && err == nil && shown != nil {
		err = checksExit(shown)
	}
	if r.ChangesExitZero && exitcode.Of(err) == exitcode.RunFailed && onlyChanged(shown) {
		print.Note("exit 0 though checks changed (--exit-zero-on-changes): review them")
		err = nil
	}
	if path := f.Getenv("GITHUB_OUTPUT"); r.StepOutputs && path != "" {
		outputs := format.RunOutputs(shown, exitcode.Of(ExitError(ctx, err)))
		if werr := format.AppendStepOutputs(path, outputs); werr != nil {
			print.Warning("step outputs not written: " + textsafe.SanitizeLine(werr.Error()))
		}
	}
	return err
}

// onlyChanged reports a failed run whose failure is changed checks: it counts some.
func onlyChanged(shown *api.ToolResponse) bool {
	if shown == nil {
		return false
	}
	checks, ok := layout.ChecksOf(shown.Data)
	return ok && checks.Verdict() == exitcode.RunFailed && checks.Failed > 0
}

// checksExit is --exit-status's exit for an ok answer; nil if checks passed or none.
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

// ExitError is err, or ErrTerminated after SIGTERM whatever the command made of it.
func ExitError(ctx context.Context, err error) error {
	if errors.Is(context.Cause(ctx), exitcode.ErrTerminated) {
		return exitcode.ErrTerminated
	}
	return err
}

// addReportFlags gives a task command the report flags its answer takes.
func addReportFlags(c *cobra.Command, tool string, r *ReportOptions) {
	switch tool {
	case api.ToolRunFailures:
		addJUnitFlag(c, r)
		AddExitStatusFlag(c, r)
	case api.ToolDiffStats:
		AddExitStatusFlag(c, r)
	}
}

// AddRunReports gives a CI run --junit, step outputs, and under GitHub
// Actions the github format when no other was asked for.
func AddRunReports(c *cobra.Command, f *Factory, p *Pipeline) {
	addJUnitFlag(c, &p.Reports)
	TakesFlags(c, &f.Global, SaveFlags)
	c.Flags().BoolVar(&p.Reports.ChangesExitZero, "exit-zero-on-changes", false, "exit 0 when the run failed only because checks changed (not error, cancel or no verdict), "+
		`the one exception to "no failure exits 0": the ok:false document and every report still show the changes`)
	p.Reports.StepOutputs = true
	c.PreRunE = chainPreRun(c.PreRunE, func(*cobra.Command, []string) error {
		if f.Getenv("GITHUB_ACTIONS") == "true" && p.Output.Format == "" && p.Output.query == nil {
			p.Output.Format = "github"
		}
		return nil
	})
}
