package failures_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/visualq/vq/cmd"
	"github.com/visualq/vq/cmd/cmdtest"
	"github.com/visualq/vq/cmd/failures"
)

func TestMain(m *testing.M) { cmdtest.Main(m, cmd.Main) }

func TestScripts(t *testing.T) { cmdtest.Scripts(t, "testdata/script") }

func TestFlagParsing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		diff    bool
		args    []string
		want    string // the call run; "" when parsing must fail first
		wantErr string
	}{
		{false, []string{"run_1"}, `{Tool:get_run_failures Args:map[runId:run_1]}`, ""},
		{false, []string{"run_1", "run_2"}, "", "takes only RUN_ID, got 2 arguments"},
		{false, nil, "", "needs RUN_ID"},
		{true, []string{"run_1", "--scenario", "Home", "--viewport", "mobile"}, `{Tool:get_diff_stats Args:map[runId:run_1 scenarioLabel:Home viewport:mobile]}`, ""},
		{true, []string{"run_1", "--scenario", "Home"}, "", `required flag(s) "viewport" not set`},
	} {
		newCmd := failures.NewCmdFailures
		if tc.diff {
			newCmd = failures.NewCmdDiff
		}
		o, ran, err := cmdtest.Parse(t, newCmd, tc.args...)
		switch {
		case tc.wantErr != "" && (ran || err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%v: ran %v, err %v; want an error about %s before running", tc.args, ran, err, tc.wantErr)
		case tc.wantErr == "" && (err != nil || !ran || fmt.Sprintf("%+v", o.Call) != tc.want):
			t.Errorf("%v: err %v, ran %v\nwant %s", tc.args, err, ran, tc.want)
		case tc.wantErr == "" && o.Pipeline == nil:
			t.Errorf("%v: no pipeline", tc.args)
		}
	}
}
