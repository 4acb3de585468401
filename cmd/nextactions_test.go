package cmd

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/format"
)

// Every tool a command fronts is printed as that command, and the printed
// line, split by bash and run, sends exactly the action's arguments: the
// positional and flag mapping in format is held to the real commands.
func TestPrintedTaskCommandsSendTheActionsArguments(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	var mu sync.Mutex
	var got []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		if tool, ok := strings.CutPrefix(r.URL.Path, "/api/ci/"); ok {
			body = map[string]any{"tool": tool, "args": body}
		}
		mu.Lock()
		got = append(got, body)
		mu.Unlock()
		io.WriteString(w, `{"ok":true,"tool":"t","summary":"done","data":{"jobId":"job_1","status":"completed","runId":"run_1"}}`)
	}))
	defer srv.Close()

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
		mu.Lock()
		got = nil
		mu.Unlock()
		runVQ(t, map[string]string{"VQ_BASE_URL": srv.URL, "VQ_API_KEY": "k"}, append(words, "--no-tui")...)
		mu.Lock()
		if len(got) == 0 {
			t.Errorf("%s: nothing sent", line)
		} else if want := map[string]any{"tool": spec.Name, "args": args}; got[0]["tool"] != want["tool"] || !reflect.DeepEqual(got[0]["args"], want["args"]) {
			t.Errorf("%s\nsent %v\nwant %v", line, got[0], want)
		}
		mu.Unlock()
	}
	if fronted < 10 {
		t.Errorf("only %d fronted tools in the registry", fronted)
	}
}
