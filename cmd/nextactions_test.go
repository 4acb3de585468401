package cmd

import (
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/cmd/iostreams"
	"github.com/visualq/vq/format"
	"github.com/visualq/vq/internal/testkit"
)

// Every tool a command fronts is printed as that command, and the printed
// line, split by bash and run, sends exactly the action's arguments: the
// printer and the commands come from the same row of the command table.
func TestPrintedTaskCommandsSendTheActionsArguments(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	srv := testkit.NewServer(t, testkit.Always(200, `{"ok":true,"tool":"t","summary":"done","data":{"jobId":"job_1","status":"completed","runId":"run_1"}}`))

	fronted := 0
	for _, row := range cmdutil.TaskCommands {
		if front, _ := cmdutil.FrontingRow(row.Tool); front.Path != row.Path {
			continue // its tool prints as the command of its first row
		}
		spec := row.Spec()
		fronted++
		args := map[string]any{}
		for _, a := range spec.Args {
			args[a.Name] = "it's " + a.Name // quoting, and no value a flag would eat
		}
		if spec.ExtraArgs {
			args["extra"] = "pair value"
		}
		a := api.NextAction{Tool: spec.Name, Args: args}
		line, why := format.ActionCommand(a, cmdutil.FrontingLine)
		if why != "" || !strings.HasPrefix(line, "vq "+row.Path+" ") {
			t.Errorf("%s printed as %q, want its command vq %s", spec.Name, line, row.Path)
			continue
		}
		out, err := exec.Command(bash, "-c", `printf '%s\0' `+strings.TrimPrefix(line, "vq ")).Output()
		if err != nil {
			t.Fatalf("bash could not split %q: %v", line, err)
		}
		words := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
		before := srv.Count()
		runVQ(t, srv.Env(), append(words, "--no-tui")...)
		if got := srv.Calls()[before:]; len(got) == 0 {
			t.Errorf("%s: nothing sent", line)
		} else if got[0].Tool != spec.Name || !reflect.DeepEqual(got[0].Args, args) {
			t.Errorf("%s\nsent %s %v\nwant %s %v", line, got[0].Tool, got[0].Args, spec.Name, args)
		}
	}
	if fronted < 10 {
		t.Errorf("only %d fronted tools in the command table", fronted)
	}
}

// frontedTools is which command fronts which tool, as the spec fixes it:
// written out rather than read from the table, so that a change to the
// table that breaks it fails.
var frontedTools = map[string]string{
	"failures": "get_run_failures", "diff": "get_diff_stats", "approve": "approve_vrt_results",
	"scenario create": "create_frt_scenario", "scenario find": "frt_find_scenarios",
	"tracking plan": "tracking_get_plan", "tracking run": "run_tracking",
	"prove": "tracking_prove_jira_ticket", "watch": "get_job_status",
	"ci run-vrt": "run_vrt", "ci run-perf": "run_perf", "ci status": "get_run_status",
}

// The table is the spec's: each command of the spec fronts its tool and is
// the one its next actions print as, and each row names a command of the
// tree whose flags are the row's argument flags.
func TestTheCommandTableIsTheSpecs(t *testing.T) {
	t.Parallel()
	root := NewRootCmd(&cmdutil.Factory{IOStreams: &iostreams.IOStreams{}, Getenv: func(string) string { return "" }})
	for path, tool := range frontedTools {
		if row, fronted := cmdutil.FrontingRow(tool); !fronted || row.Path != path {
			t.Errorf("%s prints as vq %s, want vq %s", tool, row.Path, path)
		}
	}
	for _, row := range cmdutil.TaskCommands {
		c, rest, err := root.Find(strings.Fields(row.Path))
		if err != nil || len(rest) > 0 || c.CommandPath() != "vq "+row.Path {
			t.Errorf("vq %s is no command of the tree: found %s %v %v", row.Path, c.CommandPath(), rest, err)
			continue
		}
		for _, fl := range row.Flags {
			if c.Flags().Lookup(fl.Name) == nil {
				t.Errorf("vq %s has no flag --%s for %s", row.Path, fl.Name, fl.Arg)
			}
		}
	}
}
