// Package failures holds vq failures and vq diff: the reads that triage a
// run, each one call of its tool through the pipeline.
package failures

import (
	"context"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/cmd/cmdutil"
)

// NewCmdFailures lists the failed checks of a run.
func NewCmdFailures(f *cmdutil.Factory, runF func(context.Context, *cmdutil.TaskOptions) error) *cobra.Command {
	return cmdutil.TaskCmd(f, "failures", &cobra.Command{
		Short: "List the failed checks of a run (get_run_failures)",
		Long: `List the failed checks of a run (get_run_failures): on a terminal the TUI,
to triage them; otherwise a table, or --json, --format markdown|junit|github.

In a pipeline, --exit-status makes the read gate the step: exit 3
(run_failed) when the run failed or has failed checks, 0 when it passed
with none, 54 (no_verdict) when its counts or status cannot be read
(without it an answer is exit 0 whatever it lists). --junit PATH also writes the JUnit
report to PATH beside what stdout shows (like --format, it prints the
answer instead of opening the TUI). --save-dir DIR saves the failed checks'
diff images there (NN-scenario-viewport.png, from the server's origin only,
at most --save-max-images 50 and --save-max-mb 50), which the JUnit report
attaches and the Markdown report links.`,
		Example: "  vq failures run_abc\n  vq failures run_abc --json --jq '.data.failures[].scenarioLabel'\n" +
			"  vq failures run_abc --format github --exit-status --junit vq-junit.xml --save-dir vq-diffs",
	}, "", runF)
}

// NewCmdDiff shows the diff statistics of one check.
func NewCmdDiff(f *cmdutil.Factory, runF func(context.Context, *cmdutil.TaskOptions) error) *cobra.Command {
	c := cmdutil.TaskCmd(f, "diff", &cobra.Command{
		Short:   "Show the diff of one failed check (get_diff_stats)",
		Example: "  vq diff run_abc --scenario Homepage --viewport desktop",
	}, "", runF)
	cmdutil.CompleteCheckFlags(f, c)
	return c
}
