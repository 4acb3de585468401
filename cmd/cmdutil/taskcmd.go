package cmdutil

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/exitcode"
)

// TaskOptions are the inputs of a task command.
type TaskOptions struct {
	Call     api.Call
	Pipeline *Pipeline
}

// Thin makes a command build its options, then run them or hand them to runF (tests).
func Thin[T any](c *cobra.Command, build func(args []string) (T, error), run, runF func(context.Context, T) error) *cobra.Command {
	if runF != nil {
		run = runF
	}
	c.RunE = func(c *cobra.Command, args []string) error {
		if id := c.Annotations[pickedRun]; id != "" && len(args) == 0 {
			args = []string{id}
		}
		opts, err := build(args)
		if err != nil {
			return err
		}
		return run(c.Context(), opts)
	}
	return c
}

// TaskCmd builds the task command at path; a tool that may start a job or writes
// (readiness lock) takes the wait flags.
func TaskCmd(f *Factory, path string, c *cobra.Command, more string, runF func(context.Context, *TaskOptions) error) *cobra.Command {
	row := TaskRow(path)
	spec := row.Spec()
	CallsTools(row.Shape(f, c, more), &f.Global)
	p := NewPipeline(f)
	AddOutputFlags(c, &p.Output)
	addReportFlags(c, row.Tool, &p.Reports)
	if spec.Async || spec.Write {
		AddWaitFlags(c, &p.Wait, true)
	}
	if spec.Write && !spec.Async {
		WaitsOutReadiness(c)
	}
	return Thin(c, func(args []string) (*TaskOptions, error) {
		values, err := row.Values(c, args)
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

// ExactArgs is cobra.ExactArgs naming what is missing.
func ExactArgs(n int, names string) cobra.PositionalArgs {
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
