package mcpserve_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/cmd/cmdtest"
	"github.com/visualq/vq/internal/testkit"
	"github.com/visualq/vq/sandbox"
)

// callTimeout bounds the wait for an answer, so that a request vq mcp
// serve never answers fails its test rather than hanging the package.
const callTimeout = 30 * time.Second

// initializeRequest is the first message an MCP client sends;
// toolsListRequest asks for the tools after it.
const (
	initializeRequest = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"agent","version":"1"}}}`
	toolsListRequest  = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
)

func startSandbox(t *testing.T) *cmdtest.Sandbox {
	return cmdtest.NewSandbox(t, sandbox.Options{JobStep: time.Millisecond, Rate: -1})
}

// stderrFile is the file a process's stderr goes to, read whole.
type stderrFile string

func (f stderrFile) String() string {
	b, _ := os.ReadFile(string(f))
	return string(b)
}

// rawServe is the vq binary's mcp serve, driven as a hostile client
// drives it: JSON-RPC lines written to its stdin, its stdout read line by
// line.
type rawServe struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	stderr stderrFile
}

func startRawServe(t *testing.T, env map[string]string, args ...string) *rawServe {
	t.Helper()
	c := exec.Command("vq", append([]string{"mcp", "serve"}, args...)...)
	c.Env = []string{"VQ_NO_KEYRING=1", "VQ_CONFIG=" + filepath.Join(t.TempDir(), "config.json"), "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	for k, v := range env {
		c.Env = append(c.Env, k+"="+v)
	}
	r := &rawServe{t: t, cmd: c, lines: make(chan string, 100), stderr: stderrFile(filepath.Join(t.TempDir(), "stderr"))}
	stderr, err := os.Create(string(r.stderr))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stderr.Close() })
	c.Stderr = stderr
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
	r := startRawServe(t, startSandbox(t).Env())
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
	r := startRawServe(t, startSandbox(t).Env())
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
	r := startRawServe(t, startSandbox(t).Env())
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
