//lint:file-ignore SA1019 the test server logs and asks for sampling and roots as servers of every revision do.

package mcpclient_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/internal/testkit"
	"github.com/visualq/vq/internal/textsafe"
)

// The test servers here are the SDK's: in process over streamable HTTP
// (httpTestServer), or this test binary started again as a stdio server
// (stdioTestServer, run by TestMain), which a child of vq's gets only
// through its --env pairs.

// Variables of the stdio test server, which it gets through --env.
const (
	envServe     = "VQ_TEST_STDIO_SERVE"    // "1": serve; "stubborn": serve, and ignore SIGTERM and end of input
	envRecord    = "VQ_TEST_STDIO_RECORD"   // the file it appends what it received to
	envRevisions = "VQ_TEST_STDIO_REVISION" // the revisions it speaks, comma-separated; all by default
	envSpawn     = "VQ_TEST_STDIO_SPAWN"    // a file: it starts a stubborn child of its own and writes its pid there
)

// serveStdioIfAsked serves MCP over stdio when this binary was started as
// the stdio test server, and reports whether it was.
func serveStdioIfAsked() bool {
	mode := os.Getenv(envServe)
	if mode == "" {
		return false
	}
	if mode == "stubborn" {
		signal.Ignore(syscall.SIGTERM)
	}
	if file := os.Getenv(envSpawn); file != "" {
		spawnStubbornChild(file)
	}
	var revisions []string
	if r := os.Getenv(envRevisions); r != "" {
		revisions = strings.Split(r, ",")
	}
	record := func(line string) {
		if path := os.Getenv(envRecord); path != "" {
			f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
			if err == nil {
				fmt.Fprintln(f, line)
				f.Close()
			}
		}
	}
	server := newTestServer(revisions, record)
	_ = server.Run(context.Background(), &mcp.IOTransport{Reader: &noticeReader{r: os.Stdin, record: record}, Writer: os.Stdout})
	if mode == "stubborn" {
		time.Sleep(time.Hour)
	}
	return true
}

// spawnStubbornChild starts this binary again, serving nothing and
// ignoring SIGTERM, as a launcher's server would be, and writes its pid.
func spawnStubbornChild(file string) {
	self, _ := os.Executable()
	proc, err := os.StartProcess(self, []string{self}, &os.ProcAttr{Env: []string{envServe + "=stubborn"}})
	if err == nil {
		os.WriteFile(file, fmt.Appendf(nil, "%d", proc.Pid), 0o600)
	}
}

// recordCancelNotices records each notifications/cancelled among the
// JSON-RPC messages of data ("notifications/cancelled 3"), as the server's
// transport receives them: the SDK acts on a notice as it reads it (it
// cancels the call), but hands it to its handlers, where a middleware
// would see it, only later and not at all once the session is closing,
// which vq's close right after the notice makes a race.
func recordCancelNotices(data []byte, record func(string)) {
	data = bytes.TrimSpace(data)
	var msgs []json.RawMessage
	if !bytes.HasPrefix(data, []byte("[")) {
		msgs = []json.RawMessage{data}
	} else if json.Unmarshal(data, &msgs) != nil {
		return
	}
	for _, raw := range msgs {
		var msg struct {
			Method string `json:"method"`
			Params struct {
				RequestID any `json:"requestId"`
			} `json:"params"`
		}
		if json.Unmarshal(raw, &msg) == nil && msg.Method == "notifications/cancelled" {
			record(fmt.Sprintf("%s %v", msg.Method, msg.Params.RequestID))
		}
	}
}

// noticeReader is the stdio server's input, its notices recorded
// (recordCancelNotices) a line at a time as they are read.
type noticeReader struct {
	r       io.Reader
	record  func(string)
	pending []byte
}

func (n *noticeReader) Read(p []byte) (int, error) {
	k, err := n.r.Read(p)
	n.pending = append(n.pending, p[:k]...)
	for {
		line, rest, ok := bytes.Cut(n.pending, []byte("\n"))
		if !ok {
			break
		}
		recordCancelNotices(line, n.record)
		n.pending = rest
	}
	return k, err
}

func (n *noticeReader) Close() error { return nil }

// newTestServer is the SDK server both transports serve; record is told
// of every tool call ("call sample"), and of a blocked call's end.
func newTestServer(revisions []string, record func(string)) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "vq-test", Version: "1"}, &mcp.ServerOptions{
		SupportedProtocolVersions: revisions, Capabilities: &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}, Tools: &mcp.ToolCapabilities{}},
	})
	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok {
				record("call " + p.Name)
			}
			return next(ctx, method, req)
		}
	})
	object := map[string]any{"type": "object"}
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	server.AddTool(&mcp.Tool{Name: "env", InputSchema: object}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text(strings.Join(os.Environ(), "\n")), nil
	})
	// A call blocked until the client cancels it, or for as long as a
	// test waits.
	server.AddTool(&mcp.Tool{Name: "block", InputSchema: object}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-ctx.Done():
			record("block cancelled")
			return nil, ctx.Err()
		case <-time.After(testkit.Patience):
			return text("unblocked"), nil
		}
	})
	server.AddTool(&mcp.Tool{Name: "stderr", InputSchema: object}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		fmt.Fprint(os.Stderr, "clip \x1b]52;c;aGk=\a title \x1b]0;owned\a flip \u202e end\n")
		fmt.Fprint(os.Stderr, strings.Repeat("x", 5000)+"\n")
		for range 3000 {
			fmt.Fprintln(os.Stderr, strings.Repeat("y", 999))
		}
		return text("wrote"), nil
	})
	server.AddTool(&mcp.Tool{Name: "log", InputSchema: object}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "debug", Data: "a debug line"})
		_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "warning", Logger: "db", Data: "a warning line"})
		return text("logged"), nil
	})
	server.AddTool(&mcp.Tool{Name: "typed", InputSchema: object, OutputSchema: map[string]any{
		"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}, "label": map[string]any{"type": "string"}}, "required": []any{"n"},
	}}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args struct {
			Answer string `json:"answer"`
		}
		_ = json.Unmarshal(req.Params.Arguments, &args)
		res := text(args.Answer)
		if args.Answer != "" {
			res.StructuredContent = json.RawMessage(args.Answer)
		}
		return res, nil
	})
	server.AddTool(&mcp.Tool{Name: "sample", InputSchema: object}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ask := &mcp.CreateMessageParams{MaxTokens: 10, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}}
		if newRevision(req.Session) {
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"s": ask}}, nil
		}
		if _, err := req.Session.CreateMessage(ctx, ask); err != nil {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "sampling failed: " + err.Error()}}}, nil
		}
		return text("sampled"), nil
	})
	server.AddTool(&mcp.Tool{Name: "ask", InputSchema: object}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		// Its properties in an order that is not alphabetical.
		question := &mcp.ElicitParams{Message: "Pick one", RequestedSchema: json.RawMessage(
			`{"type":"object","properties":{"zone":{"type":"string"},"colour":{"type":"string","enum":["red","blue"]},"many":{"type":"integer"}},"required":["colour"]}`)}
		var answer *mcp.ElicitResult
		switch {
		case !newRevision(req.Session):
			var err error
			if answer, err = req.Session.Elicit(ctx, question); err != nil {
				return nil, err
			}
		case req.Params.InputResponses["q"] != nil:
			answer, _ = req.Params.InputResponses["q"].(*mcp.ElicitResult)
		default:
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"q": question}, RequestState: "asked"}, nil
		}
		if answer == nil {
			return nil, fmt.Errorf("no answer to the question")
		}
		return text(fmt.Sprint(answer.Action, " ", answer.Content["colour"])), nil
	})
	server.AddTool(&mcp.Tool{Name: "link", InputSchema: object}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if answer, ok := req.Params.InputResponses["u"].(*mcp.ElicitResult); ok {
			return text("the client answered " + answer.Action), nil
		}
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"u": &mcp.ElicitParams{
			Mode: "url", Message: "Sign the form", URL: "https://127.0.0.1:9/form?token=abc", ElicitationID: "e1"}}}, nil
	})
	server.AddTool(&mcp.Tool{Name: "roots", InputSchema: object}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if newRevision(req.Session) {
			if len(req.Params.InputResponses) > 0 {
				return text("the client answered roots"), nil
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"r": &mcp.ListRootsParams{}}}, nil
		}
		res, err := req.Session.ListRoots(ctx, nil)
		if err != nil {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "roots refused: " + err.Error()}}}, nil
		}
		return text(fmt.Sprintf("the client answered %d roots", len(res.Roots))), nil
	})
	return server
}

func newRevision(s *mcp.ServerSession) bool {
	p := s.InitializeParams()
	return p == nil || p.ProtocolVersion >= "2026-07-28"
}

// recorder collects what a test server received.
type recorder struct {
	mu    sync.Mutex
	lines []string
	// changed is closed, and replaced, when a line is added; nil in a
	// record read from a stdio server that has exited, which is final.
	changed chan struct{}
}

func newRecorder() *recorder { return &recorder{changed: make(chan struct{})} }

func (r *recorder) add(line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, line)
	close(r.changed)
	r.changed = make(chan struct{})
}

// await reports whether a line starting with prefix is recorded, waiting
// for it until ctx ends while the record can still grow.
func (r *recorder) await(ctx context.Context, prefix string) bool {
	for {
		r.mu.Lock()
		found := slices.ContainsFunc(r.lines, func(l string) bool { return strings.HasPrefix(l, prefix) })
		changed := r.changed
		r.mu.Unlock()
		if found || changed == nil {
			return found
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return false
		}
	}
}

func (r *recorder) count(line string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, l := range r.lines {
		if l == line {
			n++
		}
	}
	return n
}

// httpTestServer serves newTestServer over streamable HTTP: statelessly
// (the SDK's only way to serve 2026-07-28 over HTTP) or with sessions
// (2025-11-25).
func httpTestServer(t *testing.T, stateless bool) (endpoint string, rec *recorder) {
	t.Helper()
	rec = newRecorder()
	server := newTestServer(nil, rec.add)
	// On 2026-07-28 a client cancels a call over HTTP by closing its
	// stream, which a server that propagates it sees as cancellation.
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: stateless, PropagateRequestCancellation: stateless})
	srv := testkit.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			recordCancelNotices(body, rec.add)
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		handler.ServeHTTP(w, r)
	}))
	return srv.URL, rec
}

// stdioTestServer is the stdio: endpoint of this binary as the test
// server, with the --env pairs that make it one (and record to a file of
// the test's), and what it recorded so far.
func stdioTestServer(t *testing.T, extraEnv ...string) (endpoint string, env []string, recorded func() *recorder) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "record")
	env = append([]string{envServe + "=1", envRecord + "=" + file}, extraEnv...)
	return "stdio:" + textsafe.ShellQuote(self), env, func() *recorder {
		data, _ := os.ReadFile(file)
		return &recorder{lines: strings.Split(strings.TrimSpace(string(data)), "\n")}
	}
}
