package mcpserve_test

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/cmd/cmdtest"
	"github.com/visualq/vq/internal/testkit"
	"github.com/visualq/vq/sandbox"
)

// httpServe is the vq binary's mcp serve --http, started as a person starts
// it; url is the endpoint it printed.
type httpServe struct {
	cmd    *exec.Cmd
	url    string
	stderr stderrFile
	exited chan struct{} // closed once vq has exited, with err
	err    error
}

func startHTTPServe(t *testing.T, ctx context.Context, env map[string]string, args ...string) *httpServe {
	t.Helper()
	c := exec.Command("vq", append([]string{"mcp", "serve", "--http", "127.0.0.1:0"}, args...)...)
	c.Env = []string{"VQ_NO_KEYRING=1", "VQ_CONFIG=" + filepath.Join(t.TempDir(), "config.json"), "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	for k, v := range env {
		c.Env = append(c.Env, k+"="+v)
	}
	s := &httpServe{cmd: c, stderr: stderrFile(filepath.Join(t.TempDir(), "stderr")), exited: make(chan struct{})}
	stderr, err := os.Create(string(s.stderr))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stderr.Close() })
	c.Stderr = stderr
	stdout, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		lines <- line
		io.Copy(io.Discard, stdout)
		s.err = c.Wait()
		close(s.exited)
	}()
	// Stopped as a person stops it, so that it ends its own MCP session at
	// the server (the sandbox's hosted MCP).
	t.Cleanup(func() {
		if c.Process.Signal(os.Interrupt) != nil {
			c.Process.Kill()
		}
		<-s.exited
	})
	line := testkit.Receive(t, ctx, lines, "the line saying where vq mcp serve listens")
	var ok bool
	if s.url, ok = strings.CutPrefix(strings.TrimSpace(line), "vq mcp serve listening on "); !ok {
		t.Fatalf("vq mcp serve --http printed %q\nstderr: %s", line, s.stderr)
	}
	return s
}

// connect opens an MCP session with the SDK's streamable HTTP client (opts
// may be nil), closed when the test ends; header is sent with every request.
func (s *httpServe) connect(t *testing.T, ctx context.Context, header http.Header, opts ...*mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, append(opts, nil)[0])
	transport := &mcp.StreamableClientTransport{Endpoint: s.url, HTTPClient: &http.Client{Transport: headers{header}}}
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		t.Fatalf("initialize over HTTP: %v\nstderr: %s", err, s.stderr)
	}
	t.Cleanup(func() { session.Close() })
	return session
}

// headers adds its headers to every request.
type headers struct{ h http.Header }

func (h headers) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.h {
		r.Header[k] = v
	}
	return http.DefaultTransport.RoundTrip(r)
}

// post sends an initialize to the endpoint with these headers: its status and WWW-Authenticate.
func (s *httpServe) post(t *testing.T, ctx context.Context, header http.Header) (int, []string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.url, strings.NewReader(initializeRequest))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header[k] = v
	}
	req.Host = cmp.Or(header.Get("Host"), req.Host)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Values("WWW-Authenticate")
}

// The SDK's streamable HTTP client lists vq mcp serve --http's tools and
// calls one against the sandbox: the answer and its diff images, as over
// stdio. A web page of another host (its Origin) is refused 403, as is a
// Host not of this machine (the SDK's own protection, kept); this machine's
// pages are served.
func TestMCPServeOverHTTPServesTheSDKClient(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	s := startHTTPServe(t, ctx, startSandbox(t).Env())
	session := s.connect(t, ctx, nil)
	tools, err := session.ListTools(ctx, nil)
	if err != nil || !slices.ContainsFunc(tools.Tools, func(tool *mcp.Tool) bool { return tool.Name == api.ToolRunFailures }) {
		t.Fatalf("tools/list: %v %+v", err, tools)
	}
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: api.ToolRunFailures, Arguments: map[string]any{"runId": "run_abc"}})
	if err != nil || res.IsError || !strings.HasPrefix(resultText(res), "3 of 12 checks failed.") {
		t.Fatalf("tools/call: %v %+v\nstderr: %s", err, res, s.stderr)
	}
	if !slices.ContainsFunc(res.Content, func(c mcp.Content) bool { _, image := c.(*mcp.ImageContent); return image }) {
		t.Errorf("the answer carries no diff image: %+v", res.Content)
	}

	port := s.url[strings.LastIndex(s.url, ":")+1 : strings.LastIndex(s.url, "/")]
	for _, c := range []struct {
		header string
		value  string
		want   int
	}{
		{"Origin", "http://192.0.2.1", http.StatusForbidden},
		{"Origin", "http://192.0.2.1:" + port, http.StatusForbidden},
		{"Origin", "null", http.StatusForbidden},
		{"Host", "192.0.2.1:" + port, http.StatusForbidden},
		{"Origin", "http://localhost:" + port, http.StatusOK},
		{"Origin", "http://127.0.0.1:3000", http.StatusOK},
	} {
		if got, _ := s.post(t, ctx, http.Header{c.header: {c.value}}); got != c.want {
			t.Errorf("%s: %s: answered %d, want %d", c.header, c.value, got, c.want)
		}
	}
}

// Over HTTP as on stdio, a job is followed to its end for a call with a
// progress token, its progress notified on the call's stream, and consent
// is the agent's: vq adds no confirm to a write.
func TestMCPServeOverHTTPFollowsJobsAndLeavesConsentToTheAgent(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	ts := cmdtest.NewSandbox(t, sandbox.Options{JobStep: 200 * time.Millisecond, Rate: -1})
	s := startHTTPServe(t, ctx, ts.Env(), "--interval", "1ms")
	progress := make(chan *mcp.ProgressNotificationParams, 100)
	session := s.connect(t, ctx, nil, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
		progress <- req.Params
	}})
	params := &mcp.CallToolParams{Name: api.ToolRunTracking, Arguments: map[string]any{}}
	params.SetProgressToken("p-1")
	res, err := session.CallTool(ctx, params)
	if err != nil || res.IsError || !strings.Contains(resultText(res), "All 10 tracking events of the project matched the plan.") {
		t.Fatalf("run_tracking with a progress token: %v %+v", err, res)
	}
	if p := testkit.Receive(t, ctx, progress, "a progress notification"); p.ProgressToken != "p-1" || p.Total != 4 {
		t.Errorf("notified %+v", p)
	}
	res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: api.ToolApprove, Arguments: map[string]any{"runId": "run_abc"}})
	if err != nil || !res.IsError || !strings.Contains(resultText(res), "call approve_vrt_results again with the argument confirm: true") {
		t.Errorf("approve_vrt_results without confirm: %v %q", err, resultText(res))
	}
}

// resultText is the first text block of a tool result.
func resultText(res *mcp.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	text, _ := res.Content[0].(*mcp.TextContent)
	if text == nil {
		return ""
	}
	return text.Text
}

// With --token-file, a request without the token is answered 401 with a
// plain WWW-Authenticate: Bearer (no resource metadata: no OAuth flow);
// the SDK's client sending it is served. The token is printed nowhere.
func TestMCPServeOverHTTPWantsTheToken(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	token := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(token, []byte("s3cret-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startHTTPServe(t, ctx, startSandbox(t).Env(), "--token-file", token)
	for _, auth := range []string{"", "Bearer wrong", "Basic s3cret-token", "Bearer s3cret-token-and-more", "Bearer"} {
		h := http.Header{}
		if auth != "" {
			h.Set("Authorization", auth)
		}
		status, challenge := s.post(t, ctx, h)
		if status != http.StatusUnauthorized || !slices.Equal(challenge, []string{"Bearer"}) {
			t.Errorf("Authorization %q: %d, WWW-Authenticate %q; want 401 and [Bearer]", auth, status, challenge)
		}
	}
	session := s.connect(t, ctx, http.Header{"Authorization": {"Bearer s3cret-token"}})
	if _, err := session.ListTools(ctx, nil); err != nil {
		t.Fatalf("tools/list with the token: %v", err)
	}
	if strings.Contains(s.stderr.String(), "s3cret") {
		t.Errorf("stderr shows the token: %s", s.stderr)
	}
}

// heldServer holds each get_run_failures call until the test releases its
// runId, and says when one arrives and when one ends unanswered (vq
// cancelled its request).
type heldServer struct {
	*testkit.Server
	arrived, cancelled chan string
	mu                 sync.Mutex
	released           map[string]chan struct{}
}

func newHeldServer(t *testing.T) *heldServer {
	h := &heldServer{arrived: make(chan string, 100), cancelled: make(chan string, 100), released: map[string]chan struct{}{}}
	h.Server = testkit.Wrap(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var call struct {
			Args struct {
				RunID string `json:"runId"`
			} `json:"args"`
		}
		if r.URL.Path != api.InvokePath || json.NewDecoder(r.Body).Decode(&call) != nil {
			http.NotFound(w, r)
			return
		}
		run := call.Args.RunID
		h.arrived <- run
		select {
		case <-h.release(run):
			io.WriteString(w, testkit.OK(api.ToolRunFailures, "released "+run, map[string]any{}))
		case <-r.Context().Done():
			h.cancelled <- run
		}
	}))
	return h
}

// release is closed once run's calls may be answered.
func (h *heldServer) release(run string) chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.released[run] == nil {
		h.released[run] = make(chan struct{})
	}
	return h.released[run]
}

func callRun(ctx context.Context, session *mcp.ClientSession, run string) (*mcp.CallToolResult, error) {
	return session.CallTool(ctx, &mcp.CallToolParams{Name: api.ToolRunFailures, Arguments: map[string]any{"runId": run}})
}

// Two agents' sessions: one cancelling its call cancels its request at the
// server and nothing of the other's, which is answered.
func TestMCPServeOverHTTPSessionsCancelApart(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	srv := newHeldServer(t)
	s := startHTTPServe(t, ctx, srv.Env())
	a, b := s.connect(t, ctx, nil), s.connect(t, ctx, nil)

	ctxA, cancelA := context.WithCancel(ctx)
	errA, answerB := make(chan error, 1), make(chan string, 1)
	go func() { _, err := callRun(ctxA, a, "run_a"); errA <- err }()
	go func() {
		res, err := callRun(ctx, b, "run_b")
		if err != nil {
			answerB <- err.Error()
			return
		}
		answerB <- resultText(res)
	}()
	arrived := []string{testkit.Receive(t, ctx, srv.arrived, "a call at the server"), testkit.Receive(t, ctx, srv.arrived, "the other call at the server")}
	slices.Sort(arrived)
	if !slices.Equal(arrived, []string{"run_a", "run_b"}) {
		t.Fatalf("the server got %v", arrived)
	}
	cancelA()
	if run := testkit.Receive(t, ctx, srv.cancelled, "a request cancelled at the server"); run != "run_a" {
		t.Errorf("cancelling session A's call cancelled %s at the server", run)
	}
	if err := testkit.Receive(t, ctx, errA, "session A's call to end"); !errors.Is(err, context.Canceled) {
		t.Errorf("session A's cancelled call ended with %v", err)
	}
	close(srv.release("run_b"))
	if got := testkit.Receive(t, ctx, answerB, "session B's answer"); !strings.HasPrefix(got, "released run_b") {
		t.Errorf("session B's call answered %q\nstderr: %s", got, s.stderr)
	}
	select {
	case run := <-srv.cancelled:
		t.Errorf("%s was cancelled at the server too", run)
	default:
	}
}

// One agent sending a burst holds at most half the 8 requests in flight: a
// second agent's call reaches the server next, not after the burst.
func TestMCPServeOverHTTPSharesTheRequestsInFlight(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	srv := newHeldServer(t)
	s := startHTTPServe(t, ctx, srv.Env())
	a, b := s.connect(t, ctx, nil), s.connect(t, ctx, nil)
	var wg sync.WaitGroup
	defer wg.Wait()
	for i := range 8 {
		run := fmt.Sprintf("run_a%d", i)
		wg.Go(func() { callRun(ctx, a, run) })
		defer close(srv.release(run))
	}
	for range 4 {
		if run := testkit.Receive(t, ctx, srv.arrived, "session A's calls at the server"); !strings.HasPrefix(run, "run_a") {
			t.Fatalf("the server got %s", run)
		}
	}
	wg.Go(func() { callRun(ctx, b, "run_b") })
	defer close(srv.release("run_b"))
	if run := testkit.Receive(t, ctx, srv.arrived, "session B's call at the server"); run != "run_b" {
		t.Errorf("after session A's 4 requests in flight the server got %s, not session B's", run)
	}
}
