package cmd

import (
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/format"
	"github.com/visualq/vq/internal/testkit"
)

// Every tool a command fronts is printed as that command, and the printed
// line, split by bash and run, sends exactly the action's arguments: the
// positional and flag mapping in format is held to the real commands.
func TestPrintedTaskCommandsSendTheActionsArguments(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	srv := testkit.NewServer(t, testkit.Always(200, `{"ok":true,"tool":"t","summary":"done","data":{"jobId":"job_1","status":"completed","runId":"run_1"}}`))

	fronted := 0
	for _, spec := range api.KnownTools() {
		if spec.Command == "" {
			continue
		}
		fronted++
		args := map[string]any{}
		for _, a := range spec.Args {
			args[a.Name] = "it's " + a.Name // quoting, and no value a flag would eat
		}
		if spec.ExtraArgs {
			args["extra"] = "pair value"
		}
		a := api.NextAction{Tool: spec.Name, Args: args}
		line, why := format.ActionCommand(a)
		if why != "" || !strings.HasPrefix(line, "vq "+spec.Command+" ") {
			t.Errorf("%s printed as %q, want its command vq %s", spec.Name, line, spec.Command)
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
		t.Errorf("only %d fronted tools in the registry", fronted)
	}
}
