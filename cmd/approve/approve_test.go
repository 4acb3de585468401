package approve_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/visualq/vq/cmd"
	"github.com/visualq/vq/cmd/approve"
	"github.com/visualq/vq/cmd/cmdtest"
)

func TestMain(m *testing.M) { cmdtest.Main(m, cmd.Main) }

func TestScripts(t *testing.T) { cmdtest.Scripts(t, "testdata/script") }

func TestFlagParsing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args    []string
		want    string // the options run with, but the pipeline; "" when parsing must fail first
		wantErr string
	}{
		{[]string{"run_1", "--viewport", "desktop"},
			`run_1 [viewport desktop] [{Tool:approve_vrt_results Args:map[runId:run_1 viewport:desktop]}] false`, ""},
		{[]string{"run_1", "--scenario", "A", "--scenario", "B", "--viewport", "d", "--dry-run"},
			`run_1 [A/d B/d] [{Tool:approve_vrt_results Args:map[runId:run_1 scenarioLabel:A viewport:d]} {Tool:approve_vrt_results Args:map[runId:run_1 scenarioLabel:B viewport:d]}] true`, ""},
		{[]string{"run_1", "--scenario", "A", "--scenario", "A", "--viewport", "d"},
			`run_1 [A/d] [{Tool:approve_vrt_results Args:map[runId:run_1 scenarioLabel:A viewport:d]}] false`, ""},
		{[]string{"run_1"}, `run_1 [every failing check] [{Tool:approve_vrt_results Args:map[runId:run_1]}] false`, ""},
		{[]string{"run_1", "--scenario", "A", "--scenario", "B", "--viewport", "d", "--viewport", "m", "--viewport", "t"}, "", "2 --scenario and 3 --viewport flags do not pair up"},
		{nil, "", "needs RUN_ID"},
	} {
		o, ran, err := cmdtest.Parse(t, approve.NewCmdApprove, tc.args...)
		switch {
		case tc.wantErr != "" && (ran || err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%v: ran %v, err %v; want an error about %s before running", tc.args, ran, err, tc.wantErr)
		case tc.wantErr != "":
		case err != nil || !ran:
			t.Errorf("%v: err %v, ran %v", tc.args, err, ran)
		case fmt.Sprintf("%s %v %+v %v", o.RunID, o.Checks, o.Calls, o.DryRun) != tc.want:
			t.Errorf("%v:\n got %s %v %+v %v\nwant %s", tc.args, o.RunID, o.Checks, o.Calls, o.DryRun, tc.want)
		}
	}
}
