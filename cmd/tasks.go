package cmd

import (
	"context"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/cmd/cmdutil"
)

// The task commands name a tool and its arguments for the common jobs;
// each builds one api.Call and runs it through the pipeline like vq invoke.

// NewCmdFailures lists the failed checks of a run.
func NewCmdFailures(f *cmdutil.Factory, runF func(context.Context, *cmdutil.TaskOptions) error) *cobra.Command {
	return cmdutil.TaskCmd(f, "failures", &cobra.Command{
		Short: "List the failed checks of a run (get_run_failures)",
		Long: `List the failed checks of a run (get_run_failures): on a terminal the TUI,
to triage them; otherwise a table, or --json, --format markdown|junit|github.

In a pipeline, --exit-status makes the read gate the step: exit 3
(run_failed) when the run has failed checks, 0 when it has none (without it
an answer is exit 0 whatever it lists). --junit PATH also writes the JUnit
report to PATH beside what stdout shows (like --format, it prints the
answer instead of opening the TUI).`,
		Example: "  vq failures run_abc\n  vq failures run_abc --json --jq '.data.failures[].scenarioLabel'\n" +
			"  vq failures run_abc --format github --exit-status --junit vq-junit.xml",
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

// NewCmdScenario groups the FRT scenario commands.
func NewCmdScenario(f *cmdutil.Factory) *cobra.Command {
	c := &cobra.Command{Use: "scenario", Short: "Find and create functional-test (FRT) scenarios"}
	c.AddCommand(newCmdScenarioCreate(f, nil), newCmdScenarioFind(f, nil))
	return c
}

func newCmdScenarioCreate(f *cmdutil.Factory, runF func(context.Context, *cmdutil.TaskOptions) error) *cobra.Command {
	return cmdutil.TaskCmd(f, "scenario create", &cobra.Command{
		Short: "Create an FRT scenario from a goal (write)",
		Long: `Create a functional-test scenario from a plain-language goal
(create_frt_scenario). An existing scenario that matches is reused rather than
duplicated. This writes: consent with --yes or at the prompt.`,
		Example: `  vq scenario create --goal "add a product to the cart" --start-path /products --yes`,
	}, "", runF)
}

func newCmdScenarioFind(f *cmdutil.Factory, runF func(context.Context, *cmdutil.TaskOptions) error) *cobra.Command {
	return cmdutil.TaskCmd(f, "scenario find", &cobra.Command{
		Short:   "Find FRT scenarios (frt_find_scenarios)",
		Example: `  vq scenario find "checkout"`,
	}, "", runF)
}

// NewCmdTracking groups the tracking plan and run commands.
func NewCmdTracking(f *cmdutil.Factory) *cobra.Command {
	c := &cobra.Command{Use: "tracking", Short: "Tracking plans and tracking runs"}
	c.AddCommand(
		newCmdTrackingTool(f, "plan", "Show the tracking plan of a scenario", nil),
		newCmdTrackingTool(f, "run", "Run tracking verification (async; --wait to watch it)", nil),
	)
	return c
}

func newCmdTrackingTool(f *cmdutil.Factory, name, short string, runF func(context.Context, *cmdutil.TaskOptions) error) *cobra.Command {
	path := "tracking " + name
	return cmdutil.TaskCmd(f, path, &cobra.Command{
		Short:   short + " (" + cmdutil.TaskRow(path).Tool + ")",
		Example: "  vq tracking " + name + " --scenario scn_add_to_cart",
	}, "", runF)
}
