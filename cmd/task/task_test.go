package task_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/cmd"
	"github.com/visualq/vq/cmd/cmdtest"
	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/cmd/task"
)

func TestMain(m *testing.M) { cmdtest.Main(m, cmd.Main) }

func TestScripts(t *testing.T) { cmdtest.Scripts(t, "testdata/script") }

// tasks is the task commands under one parent, as the root holds them.
func tasks(f *cmdutil.Factory, runF func(context.Context, *cmdutil.TaskOptions) error) *cobra.Command {
	c := &cobra.Command{Use: "vq"}
	c.AddCommand(task.NewCmdTasks(f, runF)...)
	return c
}

func TestFlagParsing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args    []string
		want    string // the call run; "" when parsing must fail first
		wantErr string
	}{
		{[]string{"scenario", "create", "--goal", "Buy a hat", "--start-path", "/hats"}, `{Tool:create_frt_scenario Args:map[goal:Buy a hat startPath:/hats]}`, ""},
		{[]string{"scenario", "create"}, "", `required flag(s) "goal" not set`},
		{[]string{"scenario", "find", "checkout"}, `{Tool:frt_find_scenarios Args:map[query:checkout]}`, ""},
		{[]string{"scenario", "find"}, "", "needs QUERY"},
		{[]string{"tracking", "plan", "--scenario", "scn_1", "market=fr"}, `{Tool:tracking_get_plan Args:map[market:fr scenarioId:scn_1]}`, ""},
		{[]string{"tracking", "plan"}, `{Tool:tracking_get_plan Args:map[]}`, ""},
		{[]string{"tracking", "run", "--scenario", "scn_1"}, `{Tool:run_tracking Args:map[scenarioId:scn_1]}`, ""},
	} {
		o, ran, err := cmdtest.Parse(t, tasks, tc.args...)
		switch {
		case tc.wantErr != "" && (ran || err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%v: ran %v, err %v; want an error about %s before running", tc.args, ran, err, tc.wantErr)
		case tc.wantErr == "" && (err != nil || !ran || fmt.Sprintf("%+v", o.Call) != tc.want):
			t.Errorf("%v: err %v, ran %v\nwant %s", tc.args, err, ran, tc.want)
		}
	}
}
