//lint:file-ignore SA1019 the test server logs as servers of every revision before 2026-07-28 do.

package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/testkit"
)

// foreignServer is a general MCP server (the SDK's, over streamable HTTP),
// not VisualQ: it sends no ToolResponses. Its tools are the kinds of
// answer the reference "everything" servers give.
type foreignServer struct {
	*httptest.Server
	mu    sync.Mutex
	calls map[string]int
	args  map[string]json.RawMessage
	auth  []string
	xkey  []string
	// cancelled are the request IDs of the notifications/cancelled it
	// received.
	cancelled []any
}

func (s *foreignServer) count(tool string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[tool]
}

func newForeignServer(t *testing.T) *foreignServer {
	t.Helper()
	fs := &foreignServer{calls: map[string]int{}, args: map[string]json.RawMessage{}}
	server := mcp.NewServer(&mcp.Implementation{Name: "everything", Version: "1"}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}},
	})
	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if p, ok := req.GetParams().(*mcp.CancelledParams); ok {
				fs.mu.Lock()
				fs.cancelled = append(fs.cancelled, p.RequestID)
				fs.mu.Unlock()
			}
			return next(ctx, method, req)
		}
	})
	add := func(tool *mcp.Tool, h func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error)) {
		if tool.InputSchema == nil {
			tool.InputSchema = map[string]any{"type": "object"}
		}
		server.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			fs.mu.Lock()
			fs.calls[tool.Name]++
			fs.args[tool.Name] = req.Params.Arguments
			fs.auth = append(fs.auth, req.Extra.Header.Get("Authorization"))
			fs.xkey = append(fs.xkey, req.Extra.Header.Get("X-Api-Key"))
			fs.mu.Unlock()
			return h(ctx, req)
		})
	}
	text := func(s string) []mcp.Content { return []mcp.Content{&mcp.TextContent{Text: s}} }
	add(&mcp.Tool{Name: "echo"}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: text("line one\nline two\n\x1b[31mred\x1b[0m")}, nil
	})
	size := int64(2048)
	add(&mcp.Tool{Name: "media"}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.ImageContent{Data: []byte("\x89PNG fake"), MIMEType: "image/png", Annotations: &mcp.Annotations{Audience: []mcp.Role{"user"}, Priority: 0.5}},
			&mcp.AudioContent{Data: []byte("RIFF"), MIMEType: "audio/wav"},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "test://static/1", MIMEType: "text/plain", Text: "resource text\nsecond"}},
			&mcp.ResourceLink{URI: "file:///tmp/x.txt", Name: "x.txt", MIMEType: "text/plain", Size: &size},
		}}, nil
	})
	add(&mcp.Tool{Name: "empty"}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{}}, nil
	})
	add(&mcp.Tool{Name: "logs"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		for _, level := range []mcp.LoggingLevel{"debug", "warning"} {
			_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: level, Logger: "db", Data: "level " + string(level) + "\x1b]0;pwned\x07"})
		}
		return &mcp.CallToolResult{Content: text("done")}, nil
	})
	add(&mcp.Tool{Name: "counts", OutputSchema: map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: text(`{"n":"not-a-number"}`), StructuredContent: json.RawMessage(`{"n":"not-a-number"}`)}, nil
		})
	add(&mcp.Tool{Name: "either", InputSchema: map[string]any{"type": "object", "properties": map[string]any{
		"loud": map[string]any{"type": []any{"boolean", "string"}}}}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: text("ok")}, nil
		})
	add(&mcp.Tool{Name: "block"}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	add(&mcp.Tool{Name: "write_fails"}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: text("disk full")}, nil
	})
	add(&mcp.Tool{Name: "idempotent_fails", Annotations: &mcp.ToolAnnotations{IdempotentHint: true}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: text("backend down")}, nil
	})
	add(&mcp.Tool{Name: "read_fails", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: text("backend down")}, nil
	})
	add(&mcp.Tool{Name: "says_unknown"}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: text("Tool frobnicate not found")}, nil
	})
	add(&mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Which colour?\x1b[2J", RequestedSchema: &jsonschema.Schema{
			Type:       "object",
			Properties: map[string]*jsonschema.Schema{"colour": {Type: "string", Enum: []any{"red", "blue"}, Default: json.RawMessage(`"blue"`)}},
		}})
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: text(fmt.Sprint(res.Action, " ", res.Content["colour"]))}, nil
	})
	type addInput struct {
		A     int      `json:"a"`
		B     float64  `json:"b"`
		Loud  bool     `json:"loud,omitempty"`
		Tags  []int    `json:"tags,omitempty"`
		Label string   `json:"label,omitempty"`
		Extra []string `json:"extra,omitempty"`
	}
	mcp.AddTool(server, &mcp.Tool{Name: "add"}, func(_ context.Context, req *mcp.CallToolRequest, in addInput) (*mcp.CallToolResult, any, error) {
		fs.mu.Lock()
		fs.calls["add"]++
		fs.args["add"] = req.Params.Arguments
		fs.mu.Unlock()
		return &mcp.CallToolResult{Content: text(fmt.Sprint("sum ", float64(in.A)+in.B))}, nil, nil
	})
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	fs.Server = testkit.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/mcp":
			handler.ServeHTTP(w, r)
		case "/scoped":
			w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="files:write", resource_metadata="`+"http://"+r.Host+`/.well-known/oauth-protected-resource"`)
			http.Error(w, "forbidden", http.StatusForbidden)
		default:
			http.NotFound(w, r)
		}
	}))
	return fs
}

func TestForeignResultsAreShownBlockByBlock(t *testing.T) {
	t.Parallel()
	s := newForeignServer(t)
	endpoint := s.URL + "/mcp"
	out, errOut, exit := runVQ(t, nil, "--endpoint", endpoint, "invoke", "echo")
	// Multi-line text is a block, said once, and sanitized.
	if exit != 0 || out != "line one\nline two\nred\n" {
		t.Errorf("echo: exit %d, stdout %q, stderr %q", exit, out, errOut)
	}

	dir := t.TempDir()
	out, errOut, exit = runVQ(t, nil, "--endpoint", endpoint, "invoke", "media", "--save-dir", dir)
	for _, want := range []string{
		"[image image/png 9 bytes (audience user; priority 0.5)]\n",
		"[audio audio/wav 4 bytes]\n",
		"[resource test://static/1 text/plain]\nresource text\nsecond\n",
		"[resource_link file:///tmp/x.txt x.txt text/plain 2.0 KiB]\n",
	} {
		if exit != 0 || !strings.Contains(out, want) {
			t.Errorf("media: exit %d, stdout lacks %q:\n%s", exit, want, out)
		}
	}
	if png, err := os.ReadFile(filepath.Join(dir, "media-1.png")); err != nil || string(png) != "\x89PNG fake" {
		t.Errorf("image not saved: %q %v", png, err)
	}
	if wav, err := os.ReadFile(filepath.Join(dir, "media-2.wav")); err != nil || string(wav) != "RIFF" {
		t.Errorf("audio not saved: %q %v", wav, err)
	}
	if !strings.Contains(errOut, "saved image image/png 9 bytes (audience user; priority 0.5) to "+filepath.Join(dir, "media-1.png")) {
		t.Errorf("stderr does not say where the image went:\n%s", errOut)
	}
	_, errOut, _ = runVQ(t, nil, "--endpoint", endpoint, "invoke", "media")
	if !strings.Contains(errOut, "save them with --save-dir DIR") {
		t.Errorf("without --save-dir the person is not told how to save:\n%s", errOut)
	}

	// --json: the MCP result under .data, nothing lost.
	out, _, exit = runVQ(t, nil, "--endpoint", endpoint, "invoke", "media", "--json")
	var resp struct {
		OK      bool   `json:"ok"`
		Summary string `json:"summary"`
		Data    struct {
			Content []map[string]any `json:"content"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(out), &resp); err != nil || exit != 0 || len(resp.Data.Content) != 4 ||
		resp.Data.Content[0]["data"] != "iVBORyBmYWtl" || resp.Data.Content[0]["annotations"] == nil ||
		resp.Data.Content[3]["uri"] != "file:///tmp/x.txt" || resp.Summary == "" {
		t.Errorf("--json = %s (%v)", out, err)
	}

	// A result with no content is never an empty ok.
	out, _, exit = runVQ(t, nil, "--endpoint", endpoint, "invoke", "empty")
	if exit != 0 || out != "the tool returned no content\n" {
		t.Errorf("empty: exit %d, stdout %q", exit, out)
	}
}

func TestServerLogsGoToStderrAtTheAskedLevel(t *testing.T) {
	t.Parallel()
	s := newForeignServer(t)
	out, errOut, exit := runVQ(t, nil, "--endpoint", s.URL+"/mcp", "invoke", "logs", "--log-level", "warning")
	if exit != 0 || out != "done\n" {
		t.Fatalf("exit %d, stdout %q", exit, out)
	}
	if !strings.Contains(errOut, "server db [warning]: level warning") || strings.Contains(errOut, "level debug") || strings.Contains(errOut, "\x1b") {
		t.Errorf("stderr:\n%q", errOut)
	}
	if _, errOut, exit := runVQ(t, nil, "--endpoint", s.URL+"/mcp", "invoke", "logs", "--log-level", "loud"); exit != exitcode.Usage {
		t.Errorf("--log-level loud: exit %d: %s", exit, errOut)
	}
}

func TestForeignErrorsAreClassified(t *testing.T) {
	t.Parallel()
	s := newForeignServer(t)
	endpoint := s.URL + "/mcp"
	cases := []struct {
		args      []string
		code      string
		recovered bool
		sends     map[string]int
	}{
		// A tool that may write is never sent twice, idempotent or not:
		// only a read is retried (api.ReadOnlyTool).
		{[]string{"invoke", "write_fails"}, "tool_error", true, map[string]int{"write_fails": 1}},
		{[]string{"invoke", "idempotent_fails"}, "tool_error", true, map[string]int{"idempotent_fails": 1}},
		{[]string{"invoke", "read_fails"}, "tool_error", true, map[string]int{"read_fails": 2}},
		// The SDK's own input validation, and an unknown tool however said.
		{[]string{"invoke", "add", "a:=\"x\""}, "validation_error", true, nil},
		{[]string{"invoke", "no_such_tool"}, "not_found", false, nil},
		{[]string{"invoke", "says_unknown"}, "not_found", false, map[string]int{"says_unknown": 1}},
	}
	for _, tc := range cases {
		_, errOut, exit := runVQ(t, nil, append([]string{"--endpoint", endpoint}, tc.args...)...)
		want := exitcode.ForCode(tc.code, tc.recovered)
		if exit != want || !strings.Contains(errOut, "error: "+tc.code+": ") {
			t.Errorf("%v: exit %d (want %d), stderr:\n%s", tc.args, exit, want, errOut)
		}
		for tool, n := range tc.sends {
			if got := s.count(tool); got != n {
				t.Errorf("%v: %s sent %d times, want %d", tc.args, tool, got, n)
			}
		}
	}
}

func TestInsufficientScopeIsScopeDeniedNamingTheScope(t *testing.T) {
	t.Parallel()
	s := newForeignServer(t)
	_, errOut, exit := runVQ(t, nil, "--endpoint", s.URL+"/scoped", "invoke", "echo")
	if exit != exitcode.ForCode("scope_denied", false) ||
		!strings.Contains(errOut, "error: scope_denied: the server needs the scope files:write (HTTP 403 insufficient_scope from "+s.URL+"/scoped)") ||
		!strings.Contains(errOut, "; sign in again to be granted it: vq auth login --oauth --scope files:write") {
		t.Errorf("exit %d, stderr:\n%s", exit, errOut)
	}
}

func TestForeign404NamesTheURLTried(t *testing.T) {
	t.Parallel()
	s := newForeignServer(t)
	_, errOut, exit := runVQ(t, nil, "--endpoint", s.URL+"/nope", "invoke", "echo")
	if exit == 0 || !strings.Contains(errOut, "HTTP 404 Not Found (vq speaks MCP over streamable HTTP, not the legacy HTTP+SSE transport); nothing is served at "+s.URL+"/nope") || strings.Contains(errOut, "/api/mcp") {
		t.Errorf("exit %d, stderr:\n%s", exit, errOut)
	}
}

func TestKeyValueArgumentsTakeTheSchemaTypes(t *testing.T) {
	t.Parallel()
	s := newForeignServer(t)
	endpoint := s.URL + "/mcp"
	out, errOut, exit := runVQ(t, nil, "--endpoint", endpoint, "invoke", "add", "a=2", "b=3.5", "loud=true", "tags=1,2", "label=7", "extra:=[\"x\"]")
	if exit != 0 || out != "sum 5.5\n" {
		t.Fatalf("exit %d, stdout %q, stderr %s", exit, out, errOut)
	}
	var got map[string]any
	_ = json.Unmarshal(s.args["add"], &got)
	if got["a"] != 2.0 || got["b"] != 3.5 || got["loud"] != true || len(got["tags"].([]any)) != 2 || got["label"] != "7" {
		t.Errorf("the server received %s", s.args["add"])
	}
	_, errOut, exit = runVQ(t, nil, "--endpoint", endpoint, "invoke", "add", "a=two", "b=1")
	if exit != exitcode.Usage || !strings.Contains(errOut, "argument a=two: add takes a as integer") || s.count("add") != 1 {
		t.Errorf("a=two: exit %d, stderr:\n%s", exit, errOut)
	}
}

func TestAVisualQKeyStaysWithItsServer(t *testing.T) {
	t.Parallel()
	s := newForeignServer(t)
	env := map[string]string{"VQ_API_KEY": "vqs_secret_key", "VQ_BASE_URL": "https://visualq.example.com"}
	if _, errOut, exit := runVQ(t, env, "--endpoint", s.URL+"/mcp", "invoke", "echo"); exit != 0 {
		t.Fatalf("exit %d: %s", exit, errOut)
	}
	if _, errOut, exit := runVQ(t, env, "--endpoint", s.URL+"/mcp", "invoke", "echo", "--header", "X-Api-Key: own-key"); exit != 0 {
		t.Fatalf("exit %d: %s", exit, errOut)
	}
	if s.auth[0] != "" || s.auth[1] != "" || s.xkey[1] != "own-key" {
		t.Errorf("Authorization %q, X-Api-Key %q: the VisualQ key went to a foreign server, or --header did not", s.auth, s.xkey)
	}
	if _, errOut, exit := runVQ(t, nil, "--endpoint", s.URL+"/mcp", "invoke", "echo", "--header", "no colon"); exit != exitcode.Usage {
		t.Errorf("--header without a colon: exit %d: %s", exit, errOut)
	}
}

// A server's question is answered at once, never left hanging: declined,
// or with --elicit-defaults accepted with the schema's defaults.
func TestElicitationIsDeclinedOrAnsweredWithDefaults(t *testing.T) {
	t.Parallel()
	s := newForeignServer(t)
	out, errOut, exit := runVQ(t, nil, "--endpoint", s.URL+"/mcp", "invoke", "ask")
	if exit != 0 || out != "decline <nil>\n" || !strings.Contains(errOut, "the server asks: Which colour?: declined (on a terminal vq asks; --elicit-defaults accepts the defaults)") {
		t.Errorf("exit %d, stdout %q, stderr %q", exit, out, errOut)
	}
	out, errOut, exit = runVQ(t, nil, "--endpoint", s.URL+"/mcp", "invoke", "ask", "--elicit-defaults")
	if exit != 0 || out != "accept blue\n" || !strings.Contains(errOut, "accepted with its defaults") {
		t.Errorf("--elicit-defaults: exit %d, stdout %q, stderr %q", exit, out, errOut)
	}
}

// An answer that breaks its tool's outputSchema exits output_schema (51)
// and says where and why; --json still carries the answer.
func TestAnAnswerBreakingItsOutputSchemaExits51(t *testing.T) {
	t.Parallel()
	s := newForeignServer(t)
	_, errOut, exit := runVQ(t, nil, "--endpoint", s.URL+"/mcp", "invoke", "counts")
	if exit != exitcode.OutputSchema || !strings.Contains(errOut, `output_schema: counts's answer breaks the outputSchema the server lists for it: /properties/n: type: not-a-number has type "string", want "integer"`) {
		t.Errorf("exit %d, stderr %q", exit, errOut)
	}
	out, _, exit := runVQ(t, nil, "--endpoint", s.URL+"/mcp", "invoke", "counts", "--json")
	if exit != exitcode.OutputSchema || !strings.Contains(out, `"structuredContent":{"n":"not-a-number"}`) || !strings.Contains(out, `"code":"output_schema"`) {
		t.Errorf("--json: exit %d, stdout %s", exit, out)
	}
	if s.count("counts") != 2 {
		t.Errorf("the tool was called %d times for two runs: an answer that breaks its schema is not asked again", s.count("counts"))
	}
}

// told reports the IDs of the calls the server was told were cancelled,
// once it has handled n notices (it handles one after taking it), or a
// while has passed.
func (s *foreignServer) told(n int) []any {
	for deadline := time.Now().Add(testkit.Patience); ; time.Sleep(10 * time.Millisecond) {
		s.mu.Lock()
		told := append([]any(nil), s.cancelled...)
		s.mu.Unlock()
		if len(told) >= n || time.Now().After(deadline) {
			return told
		}
	}
}

// A call given up on is cancelled at the server before vq exits, by
// --timeout and by Ctrl-C (a real process, a real signal). The --timeout
// leaves room for the handshake under load: a call timed out before it
// was sent has nothing to cancel.
func TestAGivenUpCallIsCancelledAtTheServerBeforeVQExits(t *testing.T) {
	t.Parallel()
	s := newForeignServer(t)
	_, errOut, exit := runVQ(t, nil, "--endpoint", s.URL+"/mcp", "invoke", "block", "--timeout", "2s", "--no-retry")
	if told := s.told(1); exit == 0 || s.count("block") != 1 || len(told) != 1 {
		t.Errorf("--timeout: exit %d, %d calls, the server was told of %v; stderr %q", exit, s.count("block"), told, errOut)
	}
	p := startVQ(t, s.URL, "--endpoint", s.URL+"/mcp", "invoke", "block")
	for deadline := time.Now().Add(30 * time.Second); s.count("block") < 2 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	p.cmd.Process.Signal(os.Interrupt)
	if exit, told := p.wait(t, 10*time.Second), s.told(2); exit != exitcode.Interrupted || len(told) != 2 {
		t.Errorf("Ctrl-C: exit %d, %d calls, the server was told of %v; stderr %q", exit, s.count("block"), told, p.stderr.String())
	}
}

// An argument whose type is boolean or string is sent as the boolean for
// true and false, as the string otherwise.
func TestABooleanOrStringArgumentSendsABoolean(t *testing.T) {
	t.Parallel()
	s := newForeignServer(t)
	for value, want := range map[string]string{"true": `{"loud":true}`, "false": `{"loud":false}`, "TRUE": `{"loud":"TRUE"}`, "very": `{"loud":"very"}`} {
		if _, errOut, exit := runVQ(t, nil, "--endpoint", s.URL+"/mcp", "invoke", "either", "loud="+value); exit != 0 {
			t.Fatalf("exit %d: %s", exit, errOut)
		}
		s.mu.Lock()
		got := string(s.args["either"])
		s.mu.Unlock()
		if got != want {
			t.Errorf("loud=%s sent %s, want %s", value, got, want)
		}
	}
}
