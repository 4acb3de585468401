package sandbox

import (
	"context"
	"maps"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/api/mcpclient"
)

// The sandbox keeps its own tool table, as a real server would; these tests
// hold what it serves to what vq's registry says of each tool, so that the
// two cannot drift apart unnoticed.

// argFacts renders arguments comparably: name, JSON type, * when required.
func argFacts(args []api.ToolArg) []string {
	facts := make([]string, 0, len(args))
	for _, a := range args {
		f := a.Name + ":" + a.Type
		if a.Required {
			f += "*"
		}
		facts = append(facts, f)
	}
	slices.Sort(facts)
	return facts
}

func TestToolsListIsTheRegistrysInvokeTools(t *testing.T) {
	t.Parallel()
	ts := testServer(t, Options{})
	client := mcpclient.New(mcpclient.Options{Options: api.Options{BaseURL: ts.URL, APIKey: KeyAdmin, NoRetry: true}, OverMCP: true})
	defer client.Close() // ends the session's standalone stream before the server closes
	listed, failure, err := client.ListTools(context.Background())
	if err != nil || failure != nil {
		t.Fatalf("tools/list: %v %+v", err, failure)
	}
	served := map[string]api.Tool{}
	for _, tool := range listed {
		served[tool.Name] = tool
	}
	for _, spec := range api.KnownTools() {
		tool, ok := served[spec.Name]
		delete(served, spec.Name)
		switch {
		case spec.CI && ok:
			t.Errorf("%s is a CI endpoint tool, but the MCP endpoint lists it", spec.Name)
		case spec.CI:
		case !ok:
			t.Errorf("the sandbox does not list %s", spec.Name)
		default:
			// A tool that starts work (a tracking run, a proof) is no
			// write, and no read either.
			if tool.ReadOnly != spec.ReadOnly {
				t.Errorf("%s: the sandbox says read-only %v, the registry %v", spec.Name, tool.ReadOnly, spec.ReadOnly)
			}
			// Long-running MCP tools are called again with their token:
			// the MCP form of an async tool.
			args := slices.DeleteFunc(slices.Clone(tool.Arguments), func(a api.ToolArg) bool { return a.Name == api.ArgToken })
			if hasToken := len(args) < len(tool.Arguments); hasToken != spec.Async {
				t.Errorf("%s: the sandbox lists a token %v, the registry says async %v", spec.Name, hasToken, spec.Async)
			}
			if got, want := argFacts(args), argFacts(spec.InputArgs()); !slices.Equal(got, want) {
				t.Errorf("%s: the sandbox lists arguments %q, the registry %q", spec.Name, got, want)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(served)) {
		t.Errorf("the sandbox lists %s, which the registry lacks", name)
	}
	for _, name := range ciToolNames {
		if spec, ok := api.LookupTool(name); !ok || !spec.CI {
			t.Errorf("the sandbox's CI endpoint serves %s, which the registry lacks as a CI tool", name)
		}
	}
}

// TestToolsBehaveAsTheRegistrySays calls every registry tool on its
// endpoint: it answers the arguments the registry requires (and no more are
// needed), refuses each required one missing and each string one mistyped,
// asks consent exactly for writes, and answers a queued job exactly for
// async tools.
func TestToolsBehaveAsTheRegistrySays(t *testing.T) {
	t.Parallel()
	ts := testServer(t, Options{})
	send := sender(t, ts)
	job, _ := api.AcceptedJob(send(api.MustTool(api.ToolRunTracking), map[string]any{}))
	run, _ := api.ParseCIRun(send(api.MustTool(api.ToolRunVRT), map[string]any{}))
	// Seeded values for each tool's required arguments only.
	samples := map[string]map[string]any{
		api.ToolApprove:        {"runId": "run_abc"},
		api.ToolCreateScenario: {"goal": "add a product to the cart"},
		api.ToolFindScenarios:  {"query": "cart"},
		api.ToolDiffStats:      {"runId": "run_abc", "scenarioLabel": "Homepage", "viewport": "desktop"},
		api.ToolJobStatus:      {"jobId": job},
		api.ToolRunFailures:    {"runId": "run_abc"},
		api.ToolRunStatus:      {"runId": run.RunID},
		api.ToolProve:          {"ticket": "BN-470"},
	}
	for _, spec := range api.KnownTools() {
		sample, ok := samples[spec.Name]
		if !ok && !slices.ContainsFunc(spec.Args, func(a api.ToolArg) bool { return a.Required }) {
			sample, ok = map[string]any{}, true
		}
		if !ok {
			t.Errorf("%s: no sample arguments for it in this test", spec.Name)
			continue
		}
		confirmed := maps.Clone(sample)
		if spec.Write {
			confirmed[api.ArgConfirm] = true
		}
		// with is the confirmed sample with one argument set, or removed
		// for a nil value.
		with := func(name string, value any) map[string]any {
			args := maps.Clone(confirmed)
			args[name] = value
			if value == nil {
				delete(args, name)
			}
			return args
		}
		unconfirmed := send(spec, sample)
		if spec.Write && unconfirmed.ErrorCode() != api.CodeConfirmRequired || !spec.Write && !unconfirmed.OK {
			t.Errorf("%s without consent: %s %s (the registry says write %v)", spec.Name, unconfirmed.ErrorCode(), unconfirmed.ErrorMessage(), spec.Write)
		}
		resp := send(spec, confirmed)
		if !resp.OK {
			t.Errorf("%s with its required arguments: %s %s", spec.Name, resp.ErrorCode(), resp.ErrorMessage())
		}
		// get_job_status answers about the job it is asked about: only
		// another job id is a job the call started.
		id, accepted := api.AcceptedJob(resp)
		if started := accepted && id != sample["jobId"]; started != spec.Async {
			t.Errorf("%s started a job %v, the registry says async %v: %s", spec.Name, started, spec.Async, resp.Data)
		}
		for _, a := range spec.Args {
			refusals := map[string]any{"mistyped": 42}
			if a.Required {
				refusals["missing"] = nil
			}
			for what, value := range refusals {
				resp := send(spec, with(a.Name, value))
				if resp.ErrorCode() != api.CodeValidation || !strings.Contains(resp.ErrorMessage(), a.Name) {
					t.Errorf("%s with %s %s: %s %q, want a validation_error naming it", spec.Name, what, a.Name, resp.ErrorCode(), resp.ErrorMessage())
				}
			}
		}
	}
}

// sender calls a tool on the endpoint the registry routes it to, as vq's
// client does, once (no retries), with the admin key.
func sender(t *testing.T, ts *httptest.Server) func(api.ToolSpec, map[string]any) *api.ToolResponse {
	client := api.New(api.Options{BaseURL: ts.URL, APIKey: KeyAdmin, NoRetry: true})
	return func(spec api.ToolSpec, args map[string]any) *api.ToolResponse {
		t.Helper()
		var resp *api.ToolResponse
		var err error
		if spec.CI {
			resp, err = client.CallCI(context.Background(), spec.Name, args)
		} else {
			resp, err = client.Invoke(context.Background(), api.Call{Tool: spec.Name, Args: args})
		}
		if err != nil {
			t.Fatalf("%s: %v", spec.Name, err)
		}
		return resp
	}
}
