package cmd

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/testkit"
	"github.com/visualq/vq/sandbox"
)

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
