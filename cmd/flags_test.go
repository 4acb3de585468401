package cmd

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/sandbox"
)

// parse runs one command with its behaviour replaced (the runF each NewCmdX
// takes), so flag parsing is tested apart from the network: it returns
// what the command would have run with, printed, or its error.
func parse(t *testing.T, newCmd func(f *Factory, got func(any)) *cobra.Command, args ...string) (string, error) {
	t.Helper()
	f := &Factory{IO: &IOStreams{In: &bytes.Buffer{}, Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}, Getenv: func(string) string { return "" }}
	var parsed any
	c := newCmd(f, func(v any) { parsed = v })
	c.SetArgs(args)
	c.SetOut(&bytes.Buffer{})
	c.SetErr(&bytes.Buffer{})
	err := c.ExecuteContext(context.Background())
	if parsed == nil {
		return "", err
	}
	return fmt.Sprintf("%+v", parsed), err
}

// record is a runF that keeps what it was given.
func record[T any](got func(any)) func(context.Context, T) error {
	return func(_ context.Context, v T) error { got(v); return nil }
}

// recordOptions is record for options that carry a pipeline, which it
// leaves out: the pipeline's flags are tested through what a run sends.
func recordOptions[T any](got func(any), pipeline func(*T) **Pipeline) func(context.Context, *T) error {
	return func(_ context.Context, v *T) error {
		c := *v
		*pipeline(&c) = nil
		got(&c)
		return nil
	}
}

// recordCall is the runF of a task command: it keeps the call.
func recordCall(got func(any)) func(context.Context, *TaskOptions) error {
	return func(_ context.Context, o *TaskOptions) error { got(o.Call); return nil }
}

func TestFlagParsing(t *testing.T) {
	invoke := func(f *Factory, got func(any)) *cobra.Command {
		return NewCmdInvoke(f, recordOptions(got, func(o *InvokeOptions) **Pipeline { return &o.Pipeline }))
	}
	prove := func(f *Factory, got func(any)) *cobra.Command {
		return NewCmdProve(f, recordOptions(got, func(o *ProveOptions) **Pipeline { return &o.Pipeline }))
	}
	watch := func(f *Factory, got func(any)) *cobra.Command {
		return NewCmdWatch(f, recordOptions(got, func(o *WatchOptions) **Pipeline { return &o.Pipeline }))
	}
	ci := func(f *Factory, got func(any)) *cobra.Command {
		return NewCmdCI(f, recordOptions(got, func(o *CIOptions) **Pipeline { return &o.Pipeline }))
	}
	failures := func(f *Factory, got func(any)) *cobra.Command { return NewCmdFailures(f, recordCall(got)) }
	diff := func(f *Factory, got func(any)) *cobra.Command { return NewCmdDiff(f, recordCall(got)) }
	approve := func(f *Factory, got func(any)) *cobra.Command {
		return NewCmdApprove(f, recordOptions(got, func(o *ApproveOptions) **Pipeline { return &o.Pipeline }))
	}
	sb := func(f *Factory, got func(any)) *cobra.Command { return NewCmdSandbox(f, record[*SandboxOptions](got)) }
	tools := func(f *Factory, got func(any)) *cobra.Command {
		return NewCmdTools(f, func(context.Context, *Pipeline) error { got("tools/list"); return nil })
	}
	for _, tc := range []struct {
		cmd     func(*Factory, func(any)) *cobra.Command
		args    []string
		want    string // the options run with; "" when parsing must fail first
		wantErr string
	}{
		{invoke, []string{"get_run", "runId=r1", "n:=2", "--args", `{"x":true}`}, `&{Tool:get_run Pairs:[runId=r1 n:=2] ArgsJSON:{"x":true} Pipeline:<nil>}`, ""},
		{prove, []string{"BN-470", "--copy", "--markdown"}, `&{Ticket:BN-470 Copy:true Markdown:true NoWait:false Job: Pipeline:<nil>}`, ""},
		{prove, []string{"BN-470", "--job", "job_7"}, `&{Ticket:BN-470 Copy:false Markdown:false NoWait:false Job:job_7 Pipeline:<nil>}`, ""},
		{prove, []string{"BN-470", "--no-wait", "--markdown"}, "", "markdown"},
		{watch, []string{"job_1", "job_2"}, `&{JobIDs:[job_1 job_2] Pipeline:<nil>}`, ""},
		{watch, nil, "", "JOB_ID"},
		{failures, []string{"run_1"}, `{Tool:get_run_failures Args:map[runId:run_1]}`, ""},
		{failures, []string{"run_1", "run_2"}, "", "RUN_ID"},
		{tools, nil, "tools/list", ""},
		{diff, []string{"run_1", "--scenario", "Home", "--viewport", "mobile"}, `{Tool:get_diff_stats Args:map[runId:run_1 scenarioLabel:Home viewport:mobile]}`, ""},
		{diff, []string{"run_1", "--scenario", "Home"}, "", "viewport"},
		{approve, []string{"run_1", "--viewport", "desktop"}, `&{RunID:run_1 Checks:[viewport desktop] Calls:[{Tool:approve_vrt_results Args:map[runId:run_1 viewport:desktop]}] DryRun:false Pipeline:<nil>}`, ""},
		{ci, []string{"run-vrt", "branch=main", "ci:=true"}, `&{Tool:run_vrt Args:map[branch:main ci:true] Raw:false Pipeline:<nil>}`, ""},
		{ci, []string{"status", "run_9"}, `&{Tool:get_run_status Args:map[runId:run_9] Raw:false Pipeline:<nil>}`, ""},
		{ci, []string{"call", "list_runs", "limit:=5"}, `&{Tool:list_runs Args:map[limit:5] Raw:true Pipeline:<nil>}`, ""},
		{sb, []string{"--addr", "127.0.0.1:0", "--latency", "300ms", "--fail-rate", "0.2"},
			fmt.Sprintf("%+v", &SandboxOptions{sandbox.Options{Addr: "127.0.0.1:0", Latency: 300 * time.Millisecond, FailRate: 0.2}}), ""},
	} {
		got, err := parse(t, tc.cmd, tc.args...)
		if tc.wantErr != "" {
			if err == nil || !bytes.Contains([]byte(err.Error()), []byte(tc.wantErr)) || got != "" {
				t.Errorf("%v: ran with %s, err %v; want an error about %s before running", tc.args, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%v:\n got %s (err %v)\nwant %s", tc.args, got, err, tc.want)
		}
	}
}
