package cmd

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
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
	"github.com/visualq/vq/internal/testkit"
)

// rawServe is the vq binary's mcp serve, driven as a hostile client
// drives it: JSON-RPC lines written to its stdin, its stdout read line by
// line.
type rawServe struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	stderr *lockedBuffer
}

func startRawServe(t *testing.T, env map[string]string, args ...string) *rawServe {
	t.Helper()
	c := exec.Command(buildVQ(t), append([]string{"mcp", "serve"}, args...)...)
	c.Env = []string{"VQ_NO_KEYRING=1", "VQ_CONFIG=" + filepath.Join(t.TempDir(), "config.json"), "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	for k, v := range env {
		c.Env = append(c.Env, k+"="+v)
	}
	r := &rawServe{t: t, cmd: c, lines: make(chan string, 100), stderr: &lockedBuffer{}}
	c.Stderr = r.stderr
	r.stdin, _ = c.StdinPipe()
	stdout, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill() })
	go func() {
		out := bufio.NewReader(stdout)
		for {
			line, err := out.ReadString('\n')
			if line != "" {
				r.lines <- strings.TrimSuffix(line, "\n")
			}
			if err != nil {
				close(r.lines)
				return
			}
		}
	}()
	return r
}

func (r *rawServe) send(lines ...string) {
	r.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(r.stdin, l+"\n"); err != nil {
			r.t.Fatalf("writing to vq mcp serve: %v\nstderr: %s", err, r.stderr)
		}
	}
}

// rawAnswer is one line vq mcp serve wrote: its id as written, its error
// code (0 for a result) and its result.
type rawAnswer struct {
	ID     string
	Code   int64
	Result json.RawMessage
}

func (r *rawServe) next() rawAnswer {
	r.t.Helper()
	select {
	case line, ok := <-r.lines:
		if !ok {
			r.t.Fatalf("vq mcp serve ended its output\nstderr: %s", r.stderr)
		}
		return parseAnswer(r.t, line)
	case <-time.After(callTimeout):
		r.t.Fatalf("no answer\nstderr: %s", r.stderr)
	}
	return rawAnswer{}
}

func parseAnswer(t *testing.T, line string) rawAnswer {
	t.Helper()
	var a struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code int64 `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(line), &a); err != nil {
		t.Fatalf("%v: %.200s", err, line)
	}
	out := rawAnswer{ID: string(a.ID), Result: a.Result}
	if a.Error != nil {
		out.Code = a.Error.Code
	}
	return out
}

// finish closes stdin and reads every answer still to come; vq must then
// exit 0.
func (r *rawServe) finish() []rawAnswer {
	r.t.Helper()
	r.stdin.Close()
	var out []rawAnswer
	for line := range r.lines {
		out = append(out, parseAnswer(r.t, line))
	}
	done := make(chan error, 1)
	go func() { done <- r.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			r.t.Errorf("vq mcp serve: %v\nstderr: %s", err, r.stderr)
		}
	case <-time.After(10 * time.Second):
		r.t.Errorf("vq mcp serve still running after its input ended\nstderr: %s", r.stderr)
	}
	return out
}

func request(id, method, params string) string {
	line := `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `"`
	if params != "" {
		line += `,"params":` + params
	}
	return line + "}"
}

const runFailuresCall = `{"name":"get_run_failures","arguments":{"runId":"run_abc"}}`

// printf 'init\ntools/list\nping\ncall\n' | vq mcp serve printed nothing:
// the input ended before the SDK had answered, and it wrote no more.
func TestMCPServeAnswersEveryRequestReadBeforeEOF(t *testing.T) {
	t.Parallel()
	ts := startSandbox(t)
	r := startRawServe(t, adminEnv(ts))
	r.send(initializeRequest, toolsListRequest, request("3", "ping", ""), request("4", "tools/call", runFailuresCall))
	answers := r.finish()
	var ids []string
	for _, a := range answers {
		ids = append(ids, a.ID)
		if a.Code != 0 {
			t.Errorf("id %s: error %d", a.ID, a.Code)
		}
		if a.ID == "4" && !strings.Contains(string(a.Result), `3 of 12 checks failed.`) {
			t.Errorf("the call's answer: %.300s", a.Result)
		}
	}
	slices.Sort(ids)
	if !slices.Equal(ids, []string{"1", "2", "3", "4"}) {
		t.Errorf("answered %v, want 1 to 4\nstderr: %s", ids, r.stderr)
	}
}

// One bad line ended the session without an answer; ids came back
// through float64.
func TestMCPServeAnswersHostileLinesAndGoesOn(t *testing.T) {
	t.Parallel()
	ts := startSandbox(t)
	r := startRawServe(t, adminEnv(ts))
	r.send(initializeRequest)
	if a := r.next(); a.ID != "1" || a.Code != 0 {
		t.Fatalf("initialize: %+v", a)
	}
	huge := `{"jsonrpc":"2.0","id":"huge","method":"tools/call","params":{"name":"get_run_failures","arguments":{"runId":"` + strings.Repeat("x", 17<<20) + `"}}}`
	deep := request("7", "ping", strings.Repeat(`{"a":`, 10001)+"1"+strings.Repeat("}", 10001))
	cases := []struct {
		line string
		want rawAnswer
	}{
		{`{"jsonrpc":"2.0","id":2,"method":`, rawAnswer{ID: "null", Code: -32700}},
		{deep, rawAnswer{ID: "null", Code: -32700}},
		{huge, rawAnswer{ID: `"huge"`, Code: -32600}},
		{request("1180591620717411303424", "ping", ""), rawAnswer{ID: "1180591620717411303424"}},
		{request("1.5", "ping", ""), rawAnswer{ID: "1.5", Code: -32600}},
		{request(`"a\u0062<"`, "ping", ""), rawAnswer{ID: `"a\u0062<"`}},
		{request("-9", "tools/call", runFailuresCall), rawAnswer{ID: "-9"}},
	}
	for _, c := range cases {
		r.send(c.line)
		if got := r.next(); got.ID != c.want.ID || got.Code != c.want.Code {
			t.Errorf("%.50s…: answered %+v, want id %s code %d", c.line, got, c.want.ID, c.want.Code)
		}
	}
	if answers := r.finish(); len(answers) != 0 {
		t.Errorf("more answers than requests: %+v", answers)
	}
}

// A call the agent cancels is not answered, and its request to the
// server is cancelled too.
func TestMCPServeLeavesACancelledCallUnanswered(t *testing.T) {
	t.Parallel()
	arrived, gone := make(chan struct{}, 1), make(chan struct{}, 1)
	srv := testkit.Wrap(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != api.InvokePath {
			http.NotFound(w, r)
			return
		}
		arrived <- struct{}{}
		<-r.Context().Done()
		gone <- struct{}{}
	}))
	r := startRawServe(t, srv.Env())
	r.send(initializeRequest)
	r.next()
	r.send(request(`"slow"`, "tools/call", runFailuresCall))
	testkit.Receive(t, testkit.Bound(t), arrived, "the call at the server")
	r.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow","reason":"the user gave up"}}`)
	testkit.Receive(t, testkit.Bound(t), gone, "the server's request cancelled")
	r.send(request("3", "ping", ""))
	if a := r.next(); a.ID != "3" {
		t.Errorf("answered %+v, want the ping", a)
	}
	if answers := r.finish(); len(answers) != 0 {
		t.Errorf("the cancelled call was answered: %+v", answers)
	}
}

// Error codes: never 0, and the one each refusal is.
func TestMCPServeAnswersWithTheRightErrorCodes(t *testing.T) {
	t.Parallel()
	ts := startSandbox(t)
	r := startRawServe(t, adminEnv(ts))
	for _, c := range []struct {
		line string
		code int64
	}{
		// Before initialize, with a _meta that is not the 2026-07-28
		// protocol's: the SDK's refusal carried code 0.
		{request("1", "tools/list", `{"_meta":{"io.modelcontextprotocol/clientInfo":{"name":"x","version":"1"}}}`), -32600},
		// server/discover is served; without the protocol's _meta its
		// params are what is wrong (the SDK said -32601).
		{request("2", "server/discover", ""), -32602},
		{initializeRequest, 0},
		{request("4", "resources/list", ""), -32601},
		{request("5", "logging/setLevel", `{"level":"debug"}`), -32601},
		{request("6", "tools/call", `{"name":"get_run_failures","arguments":[1]}`), -32602},
	} {
		r.send(c.line)
		if a := r.next(); a.Code != c.code {
			t.Errorf("%s: code %d, want %d", c.line, a.Code, c.code)
		}
	}
	r.finish()
}

// concurrencyServer answers every invoke call after a while, counting the
// requests in flight and the connections open at once.
type concurrencyServer struct {
	*httptest.Server
	mu                                   sync.Mutex
	inFlight, maxInFlight, open, maxOpen int
}

func newConcurrencyServer(t *testing.T) *concurrencyServer {
	testkit.NoLeaks(t)
	s := &concurrencyServer{}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var call api.Call
		json.NewDecoder(r.Body).Decode(&call)
		s.mu.Lock()
		s.inFlight++
		s.maxInFlight = max(s.maxInFlight, s.inFlight)
		s.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
		if r.URL.Path != api.InvokePath {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, testkit.OK(call.Tool, "done", map[string]any{}))
	}))
	s.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		s.mu.Lock()
		defer s.mu.Unlock()
		switch state {
		case http.StateNew:
			s.open++
			s.maxOpen = max(s.maxOpen, s.open)
		case http.StateClosed, http.StateHijacked:
			s.open--
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// 3000 concurrent calls opened about 1400 connections to the server at
// once: now they wait their turn, and every one is answered.
func TestMCPServeBoundsConcurrentBackendCalls(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	srv := newConcurrencyServer(t)
	s := serveVQ(t, map[string]string{"VQ_BASE_URL": srv.URL, "VQ_API_KEY": testkit.DefaultKey})
	s.tools(t)
	const calls = 300
	errs := make(chan error, calls)
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			res, err := s.session.CallTool(ctx, &mcp.CallToolParams{Name: api.ToolRunFailures, Arguments: map[string]any{"runId": fmt.Sprint("run_", i)}})
			if err == nil && res.IsError {
				err = fmt.Errorf("error answer: %s", resultText(res))
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.maxInFlight > maxBackendCalls || srv.maxOpen > 2*maxBackendCalls {
		t.Errorf("%d requests in flight and %d connections open at once; want at most %d and %d", srv.maxInFlight, srv.maxOpen, maxBackendCalls, 2*maxBackendCalls)
	}
	if srv.maxInFlight < 2 {
		t.Errorf("%d request in flight at most: the calls did not run concurrently at all", srv.maxInFlight)
	}
}
