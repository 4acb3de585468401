package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/completions"
	"github.com/visualq/vq/internal/exitcode"
)

// The task commands name a tool and its arguments for the common jobs;
// each builds one api.Call and runs it through the pipeline like vq invoke.

// TaskOptions are the inputs of a task command: the call its arguments
// make and the pipeline its flags configure.
type TaskOptions struct {
	Call     api.Call
	Pipeline *Pipeline
}

// thin sets the behaviour of a thin command: build its options from the
// arguments, then run them — or hand them to runF, which flag-parsing
// tests set instead.
func thin[T any](c *cobra.Command, build func(args []string) (T, error), run, runF func(context.Context, T) error) *cobra.Command {
	if runF != nil {
		run = runF
	}
	c.RunE = func(c *cobra.Command, args []string) error {
		opts, err := build(args)
		if err != nil {
			return err
		}
		return run(c.Context(), opts)
	}
	return c
}

// taskCmd builds a command whose behaviour is "build this call and run
// it": output flags always; wait flags when the tool may start a job, or
// writes, and so may be held by the readiness lock.
func taskCmd(f *Factory, c *cobra.Command, tool string, build func(args []string) (map[string]any, error), runF func(context.Context, *TaskOptions) error) *cobra.Command {
	spec := api.MustTool(tool)
	p := newPipeline(f)
	addOutputFlags(c, &p.Output)
	addReportFlags(c, tool, &p.Reports)
	if spec.Async || spec.Write {
		addWaitFlags(c, &p.Wait, true)
	}
	return thin(c, func(args []string) (*TaskOptions, error) {
		values, err := build(args)
		if err != nil {
			return nil, err
		}
		call, err := spec.Call(values)
		if err != nil {
			return nil, &exitcode.UsageError{Reason: err.Error(), Hint: "usage: " + c.UseLine()}
		}
		return &TaskOptions{Call: call, Pipeline: p}, nil
	}, func(ctx context.Context, o *TaskOptions) error { return o.Pipeline.Run(ctx, o.Call) }, runF)
}

// NewCmdFailures lists the failed checks of a run.
func NewCmdFailures(f *Factory, runF func(context.Context, *TaskOptions) error) *cobra.Command {
	c := taskCmd(f, &cobra.Command{
		Use:   "failures RUN_ID",
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
		Args: exactArgs(1, "RUN_ID"),
	}, api.ToolRunFailures, func(args []string) (map[string]any, error) {
		return map[string]any{"runId": args[0]}, nil
	}, runF)
	c.ValidArgsFunction = firstArg(f.completeRecent(completions.RunID))
	return c
}

// NewCmdDiff shows the diff statistics of one check.
func NewCmdDiff(f *Factory, runF func(context.Context, *TaskOptions) error) *cobra.Command {
	var scenario, viewport string
	c := taskCmd(f, &cobra.Command{
		Use:     "diff RUN_ID --scenario LABEL --viewport NAME",
		Short:   "Show the diff of one failed check (get_diff_stats)",
		Example: "  vq diff run_abc --scenario Homepage --viewport desktop",
		Args:    exactArgs(1, "RUN_ID"),
	}, api.ToolDiffStats, func(args []string) (map[string]any, error) {
		return map[string]any{"runId": args[0], "scenarioLabel": scenario, "viewport": viewport}, nil
	}, runF)
	c.Flags().StringVar(&scenario, "scenario", "", "scenario label (required)")
	c.Flags().StringVar(&viewport, "viewport", "", "viewport name (required)")
	_ = c.MarkFlagRequired("scenario")
	_ = c.MarkFlagRequired("viewport")
	completeCheckFlags(f, c)
	return c
}

// NewCmdApprove accepts a run's changes as the new baseline: all of them,
// or the checks named by --scenario/--viewport pairs, asked for once.
func NewCmdApprove(f *Factory, runF func(context.Context, *TaskOptions) error) *cobra.Command {
	var scenarios, viewports []string
	var checks []check
	var dryRun bool
	var runID string
	run := runF
	if run == nil {
		run = func(ctx context.Context, o *TaskOptions) error { return o.Pipeline.Approve(ctx, runID, checks, dryRun) }
	}
	c := taskCmd(f, &cobra.Command{
		Use:   "approve RUN_ID [--scenario LABEL --viewport NAME]... [--dry-run]",
		Short: "Approve a run's visual changes as the new baseline (write)",
		Long: `Approve a run's visual changes (approve_vrt_results): all of them, or the
checks named by --scenario and --viewport. Repeat them to approve several checks
at once: the n-th --scenario pairs with the n-th --viewport, and a single one of
either applies to every one of the other. Several checks are sent as a batch (a
few calls at a time, rate limits waited out, none sent twice); Ctrl-C stops it and
says what was not sent.

This writes: the server requires consent, given with --yes or, on a terminal, at
a prompt that says how many checks it approves. --dry-run shows the calls and
sends nothing.`,
		Example: "  vq approve run_abc --scenario Homepage --viewport desktop --yes\n" +
			"  vq approve run_abc --scenario Homepage --viewport desktop --scenario Checkout --viewport mobile --dry-run",
		Args: exactArgs(1, "RUN_ID"),
	}, api.ToolApprove, func(args []string) (map[string]any, error) {
		var err error
		if checks, err = pairChecks(scenarios, viewports); err != nil {
			return nil, err
		}
		runID = args[0]
		return approveArgs(runID, checks[0]), nil
	}, run)
	c.Flags().StringArrayVar(&scenarios, "scenario", nil, "scenario label; repeat for several checks")
	c.Flags().StringArrayVar(&viewports, "viewport", nil, "viewport; repeat for several checks")
	c.Flags().BoolVar(&dryRun, "dry-run", false, "show the calls that would be sent, send nothing")
	completeCheckFlags(f, c)
	return c
}

// NewCmdScenario groups the FRT scenario commands.
func NewCmdScenario(f *Factory) *cobra.Command {
	c := &cobra.Command{Use: "scenario", Short: "Find and create functional-test (FRT) scenarios"}
	c.AddCommand(newCmdScenarioCreate(f, nil), newCmdScenarioFind(f, nil))
	return c
}

func newCmdScenarioCreate(f *Factory, runF func(context.Context, *TaskOptions) error) *cobra.Command {
	var goal, startPath string
	c := taskCmd(f, &cobra.Command{
		Use:   "create --goal TEXT [--start-path PATH]",
		Short: "Create an FRT scenario from a goal (write)",
		Long: `Create a functional-test scenario from a plain-language goal
(create_frt_scenario). An existing scenario that matches is reused rather than
duplicated. This writes: consent with --yes or at the prompt.`,
		Example: `  vq scenario create --goal "add a product to the cart" --start-path /products --yes`,
		Args:    cobra.NoArgs,
	}, api.ToolCreateScenario, func([]string) (map[string]any, error) {
		return map[string]any{"goal": goal, "startPath": startPath}, nil
	}, runF)
	c.Flags().StringVar(&goal, "goal", "", "what the scenario should do (required)")
	c.Flags().StringVar(&startPath, "start-path", "", "path the scenario starts from, e.g. /checkout")
	_ = c.MarkFlagRequired("goal")
	return c
}

func newCmdScenarioFind(f *Factory, runF func(context.Context, *TaskOptions) error) *cobra.Command {
	return taskCmd(f, &cobra.Command{
		Use:     "find QUERY",
		Short:   "Find FRT scenarios (frt_find_scenarios)",
		Example: `  vq scenario find "checkout"`,
		Args:    exactArgs(1, "QUERY"),
	}, api.ToolFindScenarios, func(args []string) (map[string]any, error) {
		return map[string]any{"query": args[0]}, nil
	}, runF)
}

// NewCmdTracking groups the tracking plan and run commands.
func NewCmdTracking(f *Factory) *cobra.Command {
	c := &cobra.Command{Use: "tracking", Short: "Tracking plans and tracking runs"}
	c.AddCommand(
		newCmdTrackingTool(f, "plan", api.ToolTrackingPlan, "Show the tracking plan of a scenario", nil),
		newCmdTrackingTool(f, "run", api.ToolRunTracking, "Run tracking verification (async; --wait to watch it)", nil),
	)
	return c
}

func newCmdTrackingTool(f *Factory, name, tool, short string, runF func(context.Context, *TaskOptions) error) *cobra.Command {
	var scenario string
	c := taskCmd(f, &cobra.Command{
		Use:     name + " [--scenario ID] [KEY=VALUE | KEY:=JSON]...",
		Short:   short + " (" + tool + ")",
		Example: "  vq tracking " + name + " --scenario scn_add_to_cart",
	}, tool, func(pairs []string) (map[string]any, error) {
		values, err := parseArgs(pairs, "", nil)
		if err != nil {
			return nil, err
		}
		if scenario != "" {
			values["scenarioId"] = scenario
		}
		return values, nil
	}, runF)
	c.Flags().StringVar(&scenario, "scenario", "", "scenario id")
	return c
}

// exactArgs is cobra.ExactArgs with a message that names what is missing.
func exactArgs(n int, names string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) == n {
			return nil
		}
		reason := fmt.Sprintf("%s needs %s", c.CommandPath(), names)
		if len(args) > n {
			reason = fmt.Sprintf("%s takes only %s, got %d arguments", c.CommandPath(), names, len(args))
		}
		return &exitcode.UsageError{Reason: reason, Hint: "usage: " + c.UseLine()}
	}
}
