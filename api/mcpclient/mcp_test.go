package mcpclient_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/api/mcpclient"
	"github.com/visualq/vq/internal/testkit"
)

// mcpServer is an in-process MCP server (the SDK's) whose tools record
// what they received.
type mcpServer struct {
	*httptest.Server
	mu       sync.Mutex
	calls    map[string]int
	auth     []string
	meta     []mcp.Meta
	sessions atomic.Int32
	// restart replaces the server's HTTP handler, forgetting its sessions
	// as a restarted server does.
	restart func()
}

func (m *mcpServer) count(tool string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls[tool]
}

func newMCPServer(t *testing.T) *mcpServer {
	t.Helper()
	m := &mcpServer{calls: map[string]int{}}
	server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	add := func(name string, readOnly bool, h func(args map[string]any) (*mcp.CallToolResult, error)) {
		server.AddTool(&mcp.Tool{
			Name: name, Title: "Title of " + name, Description: "does " + name,
			InputSchema: map[string]any{"type": "object", "properties": map[string]any{
				"runId": map[string]any{"type": "string"}, "limit": map[string]any{"type": []any{"integer", "null"}},
			}, "required": []string{"runId"}},
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: readOnly},
		}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args map[string]any
			_ = json.Unmarshal(req.Params.Arguments, &args)
			m.mu.Lock()
			m.calls[name]++
			m.auth = append(m.auth, req.Extra.Header.Get("Authorization"))
			m.meta = append(m.meta, req.Params.Meta)
			m.mu.Unlock()
			return h(args)
		})
	}
	add("structured", true, func(args map[string]any) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: "3 of 12 checks failed."}},
			StructuredContent: json.RawMessage(`{"ok":true,"tool":"structured","summary":"3 of 12 checks failed.","data":{"runId":"` + args["runId"].(string) + `"},"warnings":[],"nextActions":[]}`),
		}, nil
	})
	add("plain", true, func(map[string]any) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello\nworld"}}}, nil
	})
	add("broken", false, func(map[string]any) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "database unavailable"}}}, nil
	})
	add("broken_readonly", true, func(map[string]any) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "database unavailable"}}}, nil
	})
	add("locked", false, func(map[string]any) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{
			Text: "The first import is still being analysed: 3 of 5 sources analysed. Do not retry in a loop."}}}, nil
	})
	add("picky", false, func(map[string]any) (*mcp.CallToolResult, error) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "runId must look like run_…"}
	})
	add("needs_sampling", true, func(map[string]any) (*mcp.CallToolResult, error) {
		return nil, &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities, Message: "sampling capability required"}
	})
	var polls atomic.Int32
	add("render", false, func(args map[string]any) (*mcp.CallToolResult, error) {
		token, _ := args["token"].(string)
		switch {
		case token == "":
			return &mcp.CallToolResult{StructuredContent: json.RawMessage(`{"ok":true,"tool":"render","summary":"started","data":{"status":"started","token":"tok1"}}`)}, nil
		case polls.Add(1) < 3:
			return &mcp.CallToolResult{StructuredContent: json.RawMessage(`{"ok":true,"tool":"render","summary":"rendering","data":{"status":"running","token":"tok1","progress":{"current":1,"total":2}}}`)}, nil
		}
		return &mcp.CallToolResult{StructuredContent: json.RawMessage(`{"ok":true,"tool":"render","summary":"rendered","data":{"file":"out.mp4"}}`)}, nil
	})
	var handler atomic.Pointer[mcp.StreamableHTTPHandler]
	m.restart = func() {
		for ss := range server.Sessions() {
			ss.Close()
		}
		handler.Store(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	}
	m.restart()
	m.Server = testkit.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/locked-out":
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="https://example.test/.well-known/oauth-protected-resource/api/mcp"`)
			http.Error(w, "no", http.StatusUnauthorized)
		case r.URL.Path == "/cut":
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
		case r.URL.Path != "/api/mcp":
			http.NotFound(w, r)
		default:
			if r.Method == http.MethodPost && strings.Contains(peekMethod(r), `"initialize"`) {
				m.sessions.Add(1)
			}
			handler.Load().ServeHTTP(w, r)
		}
	}))
	return m
}

// peekMethod reads the JSON-RPC method of a POST without consuming it.
func peekMethod(r *http.Request) string {
	var buf strings.Builder
	body := r.Body
	data := make([]byte, 0, 512)
	chunk := make([]byte, 512)
	for {
		n, err := body.Read(chunk)
		data = append(data, chunk[:n]...)
		if err != nil {
			break
		}
	}
	r.Body = http.NoBody
	if len(data) > 0 {
		r.Body = readCloser{strings.NewReader(string(data))}
	}
	buf.Write(data)
	return buf.String()
}

type readCloser struct{ *strings.Reader }

func (readCloser) Close() error { return nil }

func mcpClient(t *testing.T, m *mcpServer, opts api.Options) *mcpclient.Client {
	t.Helper()
	opts.BaseURL = m.URL
	if opts.APIKey == "" {
		opts.APIKey = "vqs_test_key"
	}
	c := mcpclient.New(mcpclient.Options{Options: opts, OverMCP: true})
	t.Cleanup(func() { c.Close() })
	return c
}

// A server that restarted has forgotten the session: the call opens a new
// one and goes through, once, without the user seeing the hiccup.
func TestMCPSessionForgottenByTheServerIsReopened(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	m := newMCPServer(t)
	c := mcpClient(t, m, api.Options{NoRetry: true})
	call := api.Call{Tool: "structured", Args: map[string]any{"runId": "run_abc"}}
	for i := range 2 {
		resp, err := c.Invoke(ctx, call)
		if err != nil || !resp.OK {
			t.Fatalf("call %d: %v %+v", i+1, err, resp)
		}
		m.restart()
	}
	if sessions, calls := m.sessions.Load(), m.count("structured"); sessions != 2 || calls != 2 {
		t.Errorf("%d sessions and %d calls, want 2 and 2 (one new session, nothing sent twice)", sessions, calls)
	}
}

func TestMCPStructuredContentIsTheToolResponse(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	m := newMCPServer(t)
	c := mcpClient(t, m, api.Options{Project: "shop-web", Environment: "staging"})
	for range 2 {
		resp, err := c.Invoke(ctx, api.Call{Tool: "structured", Args: map[string]any{"runId": "run_abc"}})
		if err != nil {
			t.Fatal(err)
		}
		if !resp.OK || resp.Summary != "3 of 12 checks failed." || string(resp.Data) != `{"runId":"run_abc"}` {
			t.Fatalf("resp = %+v data %s", resp, resp.Data)
		}
	}
	if got := m.sessions.Load(); got != 1 {
		t.Errorf("initialize sent %d times; the session must be reused", got)
	}
	if m.auth[0] != "Bearer vqs_test_key" {
		t.Errorf("Authorization = %q", m.auth[0])
	}
	if m.meta[0][api.MetaProject] != "shop-web" || m.meta[0][api.MetaEnvironment] != "staging" {
		t.Errorf("_meta = %v", m.meta[0])
	}
}

func TestMCPTextContentBecomesAToolResponse(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	m := newMCPServer(t)
	c := mcpClient(t, m, api.Options{})
	resp, _ := c.Invoke(ctx, api.Call{Tool: "plain", Args: map[string]any{"runId": "r"}})
	content := resp.Content
	if !resp.OK || resp.Summary != "hello" || string(resp.Data) != `{"content":[{"type":"text","text":"hello\nworld"}]}` ||
		content == nil || len(content.Blocks) != 1 || content.Blocks[0].Text != "hello\nworld" {
		t.Fatalf("resp = %+v data %s", resp, resp.Data)
	}
}

// A server that sends no ToolResponse does not say whether its failure
// left a change behind: only a tool it annotates read-only is sent a
// second time.
func TestMCPIsErrorWithoutStructureIsRetriedOnlyWhenRepeatable(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	m := newMCPServer(t)
	c := mcpClient(t, m, api.Options{})
	for tool, want := range map[string]int{"broken": 1, "broken_readonly": 2} {
		resp, _ := c.Invoke(ctx, api.Call{Tool: tool, Args: map[string]any{"runId": "r"}})
		if resp.ErrorCode() != api.CodeToolError || resp.ErrorMessage() != "database unavailable" || !resp.IsRecoverable() {
			t.Fatalf("%s: resp = %+v", tool, resp)
		}
		if got := m.count(tool); got != want {
			t.Errorf("%s: server saw %d calls, want %d", tool, got, want)
		}
	}
}

func TestMCPJSONRPCErrors(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	m := newMCPServer(t)
	c := mcpClient(t, m, api.Options{})
	cases := map[string]string{"no_such_tool": api.CodeNotFound, "picky": api.CodeValidation, "needs_sampling": api.CodeToolError}
	for tool, want := range cases {
		resp, _ := c.Invoke(ctx, api.Call{Tool: tool})
		if resp.ErrorCode() != want {
			t.Errorf("%s: code %q, want %q (%s)", tool, resp.ErrorCode(), want, resp.ErrorMessage())
		}
	}
	// A refusal, even of a read-only tool, is not asked again.
	for _, tool := range []string{"picky", "needs_sampling"} {
		if got := m.count(tool); got != 1 {
			t.Errorf("%s: a refusal was sent %d times, want 1", tool, got)
		}
	}
}

func TestMCPTransportFailures(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	m := newMCPServer(t)
	cases := []struct {
		path, code, contains string
	}{
		{"/locked-out", api.CodeUnauthorized, "HTTP 401"},
		{"/wrong", api.CodeHTTPError, "HTTP 404 Not Found (vq speaks MCP over streamable HTTP"},
		{"/cut", api.CodeHTTPError, "connection"},
	}
	for _, tc := range cases {
		c := mcpclient.New(mcpclient.Options{Options: api.Options{APIKey: "k", NoRetry: true}, OverMCP: true, Endpoint: m.URL + tc.path})
		resp, err := c.Invoke(ctx, api.Call{Tool: "structured"})
		c.Close()
		if err != nil {
			t.Fatal(err)
		}
		if resp.ErrorCode() != tc.code || !strings.Contains(resp.ErrorMessage(), tc.contains) {
			t.Errorf("%s: %s %q, want %s containing %q", tc.path, resp.ErrorCode(), resp.ErrorMessage(), tc.code, tc.contains)
		}
		if meta, refused := resp.Failure.ResourceMetadata, resp.Failure.CredentialRefused; refused != (tc.code == api.CodeUnauthorized) ||
			refused && meta != "https://example.test/.well-known/oauth-protected-resource/api/mcp" {
			t.Errorf("%s: CredentialRefused = %q, %v", tc.path, meta, refused)
		}
	}
}

func TestMCPReadinessLockIsARefusalSentOnce(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	m := newMCPServer(t)
	c := mcpClient(t, m, api.Options{})
	resp, _ := c.Invoke(ctx, api.Call{Tool: "locked", Args: map[string]any{"runId": "r"}})
	state, locked := api.ReadinessLock(resp)
	if !locked || resp.ErrorCode() != api.CodeProjectNotReady || state.Analysed != 3 || state.Total != 5 {
		t.Fatalf("lock = %v %+v, resp %+v", locked, state, resp)
	}
	if got := m.count("locked"); got != 1 {
		t.Errorf("server saw %d calls, want exactly 1", got)
	}
}

func TestMCPTokenWorkWatchedToCompletion(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	m := newMCPServer(t)
	c := mcpClient(t, m, api.Options{})
	call := api.Call{Tool: "render", Args: map[string]any{"runId": "r"}}
	first, _ := c.Invoke(ctx, call)
	id, poll, ok := c.FollowUp(call, first)
	if !ok || id != "tok1" {
		t.Fatalf("FollowUp = %q %v for %s", id, ok, first.Data)
	}
	var updates []api.JobUpdate
	final, err := api.Watch(ctx, id, poll, api.WatchOptions{Interval: time.Millisecond, OnUpdate: func(u api.JobUpdate) { updates = append(updates, u) }})
	if err != nil {
		t.Fatal(err)
	}
	status, _ := api.ParseJobStatus(final)
	if status.Status != api.JobCompleted || string(status.Result) != `{"file":"out.mp4"}` || final.Summary != "rendered" {
		t.Fatalf("final = %+v data %s", final, final.Data)
	}
	if len(updates) == 0 || !updates[0].HasProgress || updates[0].Total != 2 {
		t.Errorf("updates = %+v, want progress 1 of 2 first", updates)
	}
	if got := m.count("render"); got != 4 {
		t.Errorf("render called %d times, want 4 (start, 2 running, final)", got)
	}
}

func TestListToolsReadsAnnotationsAndSchemas(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	m := newMCPServer(t)
	c := mcpclient.New(mcpclient.Options{Options: api.Options{BaseURL: m.URL, APIKey: "k"}}) // invoke transport: tools/list still speaks MCP
	defer c.Close()
	tools, failure, err := c.ListTools(ctx)
	if err != nil || failure != nil {
		t.Fatal(err, failure)
	}
	byName := map[string]api.Tool{}
	for _, tool := range tools {
		byName[tool.Name] = tool
	}
	s := byName["structured"]
	if s.Title != "Title of structured" || !s.ReadOnly || len(s.Arguments) != 2 ||
		!reflect.DeepEqual(s.Arguments[0], api.ToolArg{Name: "runId", Type: "string", Required: true}) ||
		!reflect.DeepEqual(s.Arguments[1], api.ToolArg{Name: "limit", Type: "integer|null"}) {
		t.Errorf("structured = %+v", s)
	}
	writes := api.WriteTools(tools)
	if writes("structured") || !writes("broken") || writes("unknown") {
		t.Error("WriteTools misreads the read-only annotations")
	}
}

// A credential given with --header is a credential too: --debug never
// shows its value, with or without its scheme, whatever the header's name,
// nor where the server echoes it.
func TestDebugRedactsHeaderCredentials(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	srv := testkit.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Echo", "token b34rer-value")
		http.Error(w, "no", http.StatusInternalServerError)
	}))
	var trace syncBuffer
	c := mcpclient.New(mcpclient.Options{Options: api.Options{Debug: &trace, NoRetry: true}, Endpoint: srv.URL,
		Headers: http.Header{"X-Token": {"t0k3n-value"}, "Proxy-Auth": {"Bearer b34rer-value"}}})
	if _, failure, err := c.ListTools(ctx); err != nil || failure == nil {
		t.Fatalf("tools/list from a failing server: %+v, %v", failure, err)
	}
	c.Close()
	out := trace.String()
	if strings.Contains(out, "t0k3n-value") || strings.Contains(out, "b34rer-value") || !strings.Contains(out, "> X-Token: ") || !strings.Contains(out, "< X-Echo: ") {
		t.Errorf("the trace shows a header's credential, or not the header:\n%s", out)
	}
}

// syncBuffer is a trace the transport's goroutines write while the test
// reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
