package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/testkit"
	"github.com/visualq/vq/sandbox"
)

// A script's misspelt argument is a usage error before anything is sent,
// naming the argument meant, against the registry's arguments of a
// VisualQ or CI tool: as the binary runs it, in a CI step.
func TestAMisspeltArgumentIsRefusedBeforeAnythingIsSent(t *testing.T) {
	t.Parallel()
	s := testkit.NewServer(t, testkit.Always(200, runFailuresBody))
	cmd := exec.Command(vqBinary(t), "ci", "run-vrt", "brnch=feature/new-header", "--wait")
	cmd.Env = []string{"VQ_BASE_URL=" + s.URL, "VQ_API_KEY=" + testkit.DefaultKey, "VQ_CONFIG=" + t.TempDir() + "/c.json", "VQ_NO_KEYRING=1"}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Run()
	if exit := cmd.ProcessState.ExitCode(); exit != exitcode.Usage || stdout.Len() != 0 ||
		!strings.HasPrefix(stderr.String(), "error: unknown argument brnch; did you mean branch?\n") {
		t.Errorf("exit %d, stdout %q, stderr %q", exit, stdout.String(), stderr.String())
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"invoke", "get_run_failures", "runid=run_abc"}, "unknown argument runid; did you mean runId?"},
		{[]string{"invoke", "get_run_failures", "runId=run_abc", "limit:=5"}, "unknown argument limit\nhint: get_run_failures takes runId; to send limit as it is: vq invoke get_run_failures --args JSON"},
		{[]string{"ci", "run-perf", "Branch=main"}, "unknown argument Branch; did you mean branch?\nhint: run_perf takes branch; to send Branch as it is: vq ci call run_perf --args JSON"},
		{[]string{"ci", "call", "get_run_status", "runid=run_1"}, "unknown argument runid; did you mean runId?"},
		{[]string{"tracking", "plan", "--scenario", "scn_1", "scenarioid=scn_2"}, "unknown argument scenarioid; did you mean scenarioId?"},
		{[]string{"tracking", "run", "secnarioId:=1"}, "did you mean scenarioId?"},
		// A flag that names an argument points at the pair.
		{[]string{"ci", "run-vrt", "--branch", "feature/x", "--wait"}, "unknown flag: --branch\nhint: did you mean branch=feature/x? run_vrt's arguments are KEY=VALUE pairs"},
		{[]string{"ci", "run-vrt", "--branch=main"}, "did you mean branch=main?"},
		{[]string{"invoke", "get_run_failures", "--runid", "run abc"}, "did you mean 'runId=run abc'? get_run_failures's arguments are KEY=VALUE pairs"},
		{[]string{"ci", "call", "run_vrt", "--branch", "main"}, "did you mean branch=main?"},
	} {
		stdout, stderr, exit := runVQ(t, s.Env(), tc.args...)
		if exit != exitcode.Usage || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("vq %s: exit %d, stdout %q, stderr %q; want 2 and %q", strings.Join(tc.args, " "), exit, stdout, stderr, tc.want)
		}
	}
	// A script that asked for JSON gets its one document.
	document, _, exit := runVQ(t, s.Env(), "ci", "run-vrt", "brnch=main", "--json")
	var doc struct {
		Error struct{ Code string } `json:"error"`
	}
	if json.Unmarshal([]byte(document), &doc) != nil || doc.Error.Code != "usage" || exit != exitcode.Usage {
		t.Errorf("--json: exit %d, stdout %q", exit, document)
	}
	if n := s.Count(); n != 0 {
		t.Errorf("the server received %d calls: %v", n, s.Calls())
	}
}

// What the registry does not forbid is sent: a tool that passes other
// arguments on gets any key that is no near miss of its own, --args is
// sent as it is, and a tool the registry does not know is the server's to
// judge.
func TestArgumentsTheToolMayTakeAreSent(t *testing.T) {
	t.Parallel()
	s := testkit.NewServer(t, func(c testkit.Call) testkit.Reply {
		if c.Tool == "run_vrt" {
			return testkit.Answer(200, `{"runId":"run_1","status":"queued"}`) // a run started: no ToolResponse
		}
		return testkit.Answer(200, runFailuresBody)
	})
	for _, tc := range []struct {
		args []string
		tool string
		sent string
	}{
		{[]string{"ci", "run-vrt", "branch=main", "commit=abc123", "ci:=true"}, "run_vrt", `{"branch":"main","ci":true,"commit":"abc123"}`},
		{[]string{"tracking", "plan", "--scenario", "scn_1", "market=fr"}, "tracking_get_plan", `{"market":"fr","scenarioId":"scn_1"}`},
		{[]string{"invoke", "get_run_failures", "--args", `{"runid":"run_abc","limit":5}`}, "get_run_failures", `{"limit":5,"runid":"run_abc"}`},
		{[]string{"invoke", "list_runs", "limt:=5"}, "list_runs", `{"limt":5}`},
		{[]string{"ci", "call", "list_runs", "limt:=5"}, "list_runs", `{"limt":5}`},
	} {
		before := s.Count()
		if _, stderr, exit := runVQ(t, s.Env(), tc.args...); exit != 0 {
			t.Errorf("vq %s: exit %d: %s", strings.Join(tc.args, " "), exit, stderr)
			continue
		}
		calls := s.Calls()[before:]
		if len(calls) == 0 {
			t.Errorf("vq %s: nothing sent", strings.Join(tc.args, " "))
			continue
		}
		if sent, _ := json.Marshal(calls[0].Args); calls[0].Tool != tc.tool || string(sent) != tc.sent {
			t.Errorf("vq %s: sent %s %s, want %s %s", strings.Join(tc.args, " "), calls[0].Tool, sent, tc.tool, tc.sent)
		}
	}
}

// Over MCP the tool's listed input schema says what it takes: every key
// it does not declare is refused when it allows no additional properties,
// only a near miss of one it declares when it does; no tools/call is sent
// for a refused one.
func TestMCPArgumentsAreCheckedAgainstTheListedSchema(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	called := map[string][]string{}
	server := mcp.NewServer(&mcp.Implementation{Name: "schemas", Version: "1"}, nil)
	for name, schema := range map[string]any{
		"closed": map[string]any{"type": "object", "properties": map[string]any{"runId": map[string]any{"type": "string"}}, "additionalProperties": false},
		"open":   map[string]any{"type": "object", "properties": map[string]any{"query": map[string]any{"type": "string"}}},
	} {
		server.AddTool(&mcp.Tool{Name: name, InputSchema: schema}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			mu.Lock()
			called[name] = append(called[name], string(req.Params.Arguments))
			mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	}
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	ts := testkit.Serve(t, handler)
	for _, tc := range []struct {
		args []string
		want string // the stderr of a refusal; "" when the call is sent
	}{
		{[]string{"invoke", "closed", "runid=run_abc"}, "unknown argument runid; did you mean runId?"},
		{[]string{"invoke", "closed", "runId=run_abc", "limit:=5"}, "unknown argument limit\nhint: closed takes runId"},
		{[]string{"invoke", "open", "qurey=cart"}, "unknown argument qurey; did you mean query?"},
		{[]string{"invoke", "closed", "runId=run_abc"}, ""},
		{[]string{"invoke", "closed", "--args", `{"runid":"run_abc"}`}, ""},
		{[]string{"invoke", "open", "query=cart", "limit:=5"}, ""},
	} {
		_, stderr, exit := runVQ(t, nil, append([]string{"--endpoint", ts.URL}, tc.args...)...)
		if tc.want == "" && exit != 0 || tc.want != "" && (exit != exitcode.Usage || !strings.Contains(stderr, tc.want)) {
			t.Errorf("vq %s: exit %d, stderr %q; want %q", strings.Join(tc.args, " "), exit, stderr, tc.want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	want := map[string][]string{"closed": {`{"runId":"run_abc"}`, `{"runid":"run_abc"}`}, "open": {`{"limit":5,"query":"cart"}`}}
	if got, _ := json.Marshal(called); string(got) != mustJSON(t, want) {
		t.Errorf("the server was called with %s, want %s", got, mustJSON(t, want))
	}

	// The sandbox's hosted endpoint allows additional properties: a near
	// miss is refused there too, with the same words as over invoke.
	sb := startSandbox(t)
	env := map[string]string{"VQ_BASE_URL": sb.URL, "VQ_API_KEY": sandbox.KeyAdmin}
	for _, transport := range []string{"invoke", "mcp"} {
		_, stderr, exit := runVQ(t, env, "--transport", transport, "invoke", "get_run_failures", "runid=run_abc")
		if exit != exitcode.Usage || !strings.Contains(stderr, "unknown argument runid; did you mean runId?") {
			t.Errorf("over %s: exit %d, stderr %q", transport, exit, stderr)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
