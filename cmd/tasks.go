package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/api"
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

// taskCmd builds the task command at path from its row of taskCommands
// (usage line, words, argument flags; more ends the usage line) and c's
// help: the flags of a command that calls tools, output flags always; wait flags when the tool may start a job, or
// writes, and so may be held by the readiness lock. Its behaviour is
// "build this call and run it".
func taskCmd(f *Factory, path string, c *cobra.Command, more string, runF func(context.Context, *TaskOptions) error) *cobra.Command {
	row := taskRow(path)
	spec := row.spec()
	callsTools(row.shape(f, c, more), &f.Global)
	p := newPipeline(f)
	addOutputFlags(c, &p.Output)
	addReportFlags(c, row.Tool, &p.Reports)
	if spec.Async || spec.Write {
		addWaitFlags(c, &p.Wait, true)
	}
	return thin(c, func(args []string) (*TaskOptions, error) {
		values, err := row.values(c, args)
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
	return taskCmd(f, "failures", &cobra.Command{
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
func NewCmdDiff(f *Factory, runF func(context.Context, *TaskOptions) error) *cobra.Command {
	c := taskCmd(f, "diff", &cobra.Command{
		Short:   "Show the diff of one failed check (get_diff_stats)",
		Example: "  vq diff run_abc --scenario Homepage --viewport desktop",
	}, "", runF)
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
	return taskCmd(f, "scenario create", &cobra.Command{
		Short: "Create an FRT scenario from a goal (write)",
		Long: `Create a functional-test scenario from a plain-language goal
(create_frt_scenario). An existing scenario that matches is reused rather than
duplicated. This writes: consent with --yes or at the prompt.`,
		Example: `  vq scenario create --goal "add a product to the cart" --start-path /products --yes`,
	}, "", runF)
}

func newCmdScenarioFind(f *Factory, runF func(context.Context, *TaskOptions) error) *cobra.Command {
	return taskCmd(f, "scenario find", &cobra.Command{
		Short:   "Find FRT scenarios (frt_find_scenarios)",
		Example: `  vq scenario find "checkout"`,
	}, "", runF)
}

// NewCmdTracking groups the tracking plan and run commands.
func NewCmdTracking(f *Factory) *cobra.Command {
	c := &cobra.Command{Use: "tracking", Short: "Tracking plans and tracking runs"}
	c.AddCommand(
		newCmdTrackingTool(f, "plan", "Show the tracking plan of a scenario", nil),
		newCmdTrackingTool(f, "run", "Run tracking verification (async; --wait to watch it)", nil),
	)
	return c
}

func newCmdTrackingTool(f *Factory, name, short string, runF func(context.Context, *TaskOptions) error) *cobra.Command {
	path := "tracking " + name
	return taskCmd(f, path, &cobra.Command{
		Short:   short + " (" + taskRow(path).Tool + ")",
		Example: "  vq tracking " + name + " --scenario scn_add_to_cart",
	}, "", runF)
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
