package cmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"github.com/visualq/vq/cmd/cmdtest"
	"io"
	"maps"
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
	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/cmd/iostreams"
	"github.com/visualq/vq/internal/testkit"
	"github.com/visualq/vq/sandbox"
)

// servedVQ is vq mcp serve run in-process as an IDE agent runs it: the
// command tree's stdin and stdout are pipes to the SDK's MCP client.
type servedVQ struct {
	session  *mcp.ClientSession
	stderr   *lockedBuffer
	progress chan *mcp.ProgressNotificationParams
}

// serveRun describes one vq mcp serve: the environment it sees, and
// whether its streams pretend to be terminals (a person started it).
type serveRun struct {
	Env map[string]string
	TTY bool
}

func serveVQ(t *testing.T, env map[string]string, args ...string) *servedVQ {
	t.Helper()
	return serveRun{Env: env}.start(t, args...)
}

func (r serveRun) start(t *testing.T, args ...string) *servedVQ {
	t.Helper()
	testkit.NoLeaks(t)
	env := map[string]string{"VQ_CONFIG": filepath.Join(t.TempDir(), "config.json"), "VQ_NO_KEYRING": "1"}
	maps.Copy(env, r.Env)
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	s := &servedVQ{stderr: &lockedBuffer{}, progress: make(chan *mcp.ProgressNotificationParams, 1000)}
	f := &cmdutil.Factory{
		IOStreams:  &iostreams.IOStreams{In: serverIn, Out: serverOut, ErrOut: s.stderr, InTTY: r.TTY, OutTTY: r.TTY, ErrTTY: r.TTY},
		Getenv:     func(k string) string { return env[k] },
		AppVersion: versionString(),
	}
	done := make(chan error, 1)
	go func() {
		err := execute(context.Background(), f, append([]string{"mcp", "serve"}, args...), func() {})
		serverOut.Close()
		done <- err
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			select {
			case s.progress <- req.Params:
			default:
				t.Error("more progress notifications than any test expects")
			}
		},
	})
	session, err := client.Connect(context.Background(), &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		t.Fatalf("initialize: %v\nstderr: %s", err, s.stderr)
	}
	s.session = session
	t.Cleanup(func() {
		session.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("vq mcp serve ended with %v\nstderr: %s", err, s.stderr)
			}
		case <-time.After(10 * time.Second):
			t.Error("vq mcp serve still running after its client left")
		}
	})
	return s
}

// What vq mcp serve's help promises: at most 8 requests to the server in
// flight, diff images at most 1568 px on the longer side, and its three
// prompts; and the most diff images one answer carries.
const (
	maxBackendCalls = 8
	agentImageSide  = 1568
	servedPrompts   = 3
	maxAgentImages  = 4
)

// callTimeout bounds a test's call, so that a call vq mcp serve never
// answers fails its test rather than hanging the package.
const callTimeout = 30 * time.Second

// call makes one tools/call and reads its structuredContent.
func (s *servedVQ) call(t *testing.T, tool string, args map[string]any) (*mcp.CallToolResult, api.ToolResponse) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	res, err := s.session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v\nstderr: %s", tool, err, s.stderr)
	}
	return res, structured(t, res)
}

func (s *servedVQ) tools(t *testing.T) map[string]*mcp.Tool {
	t.Helper()
	res, err := s.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("tools/list: %v\nstderr: %s", err, s.stderr)
	}
	tools := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		tools[tool.Name] = tool
	}
	return tools
}

// structured is a result's structuredContent as the ToolResponse it must
// be, whose ok is the opposite of the result's isError.
func structured(t *testing.T, res *mcp.CallToolResult) api.ToolResponse {
	t.Helper()
	var resp api.ToolResponse
	raw, err := json.Marshal(res.StructuredContent)
	if err == nil {
		err = json.Unmarshal(raw, &resp)
	}
	if err != nil || resp.Tool == "" {
		t.Fatalf("structuredContent is no ToolResponse (%v): %s", err, raw)
	}
	if res.IsError == resp.OK {
		t.Errorf("isError %v for ok %v", res.IsError, resp.OK)
	}
	return resp
}

// resultText is a result's readable text: its first block (the second
// is the structuredContent serialized, then come the images).
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

// sameJSON reports whether two JSON documents hold the same values.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("%v: %s", err, a)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	ja, _ := json.Marshal(va)
	jb, _ := json.Marshal(vb)
	return bytes.Equal(ja, jb)
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func adminEnv(ts *httptest.Server) map[string]string {
	return map[string]string{"VQ_BASE_URL": ts.URL, "VQ_API_KEY": sandbox.KeyAdmin}
}

func TestMCPServeOffersTheHostedToolList(t *testing.T) {
	t.Parallel()
	ts := startSandbox(t)
	s := serveVQ(t, adminEnv(ts))
	served := s.tools(t)

	// What vq reads of the hosted list is what it serves again.
	out, errOut, exit := runVQ(t, adminEnv(ts), "tools", "--json")
	var listed struct {
		Data api.ToolList `json:"data"`
	}
	if err := json.Unmarshal([]byte(out), &listed); err != nil || exit != 0 || len(listed.Data.Tools) == 0 {
		t.Fatalf("vq tools --json: exit %d %v\n%s%s", exit, err, out, errOut)
	}
	if len(served) != len(listed.Data.Tools) {
		t.Errorf("served %d tools, the server lists %d", len(served), len(listed.Data.Tools))
	}
	for _, want := range listed.Data.Tools {
		got, ok := served[want.Name]
		if !ok {
			t.Errorf("%s not served", want.Name)
			continue
		}
		a := got.Annotations
		if got.Title != want.Title || got.Description != want.Description || a.ReadOnlyHint != want.ReadOnly || !equalBoolPtr(a.DestructiveHint, want.Destructive) {
			t.Errorf("%s served as %+v %+v, listed as %+v", want.Name, got, a, want)
		}
		sortByName(want.Arguments)
		sameArg := func(a, b api.ToolArg) bool {
			return a.Name == b.Name && a.Type == b.Type && a.Required == b.Required && a.Description == b.Description
		}
		if args := schemaArgs(t, got.InputSchema); !slices.EqualFunc(args, want.Arguments, sameArg) {
			t.Errorf("%s arguments served %+v, listed %+v", want.Name, args, want.Arguments)
		}
	}
	if a := served[api.ToolApprove].Annotations; a.ReadOnlyHint || a.DestructiveHint == nil || !*a.DestructiveHint {
		t.Errorf("approve_vrt_results is not marked destructive: %+v", a)
	}
	if !strings.Contains(s.stderr.String(), "serving 9 tools from "+ts.URL+"/api/mcp") {
		t.Errorf("stderr does not say where the tools came from:\n%s", s.stderr)
	}
}

func equalBoolPtr(a, b *bool) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// schemaArgs reads a served input schema back as vq reads a listed one,
// in name order.
func schemaArgs(t *testing.T, schema any) []api.ToolArg {
	t.Helper()
	raw, _ := json.Marshal(schema)
	var s struct {
		Type       string `json:"type"`
		Properties map[string]struct {
			Type        any    `json:"type"`
			Description string `json:"description"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(raw, &s); err != nil || s.Type != "object" {
		t.Fatalf("input schema %s (%v)", raw, err)
	}
	var args []api.ToolArg
	for name, p := range s.Properties {
		typ, _ := p.Type.(string)
		args = append(args, api.ToolArg{Name: name, Type: typ, Required: slices.Contains(s.Required, name), Description: p.Description})
	}
	sortByName(args)
	return args
}

func sortByName(args []api.ToolArg) {
	slices.SortFunc(args, func(x, y api.ToolArg) int { return strings.Compare(x.Name, y.Name) })
}

func TestMCPServeFallsBackToTheRegistry(t *testing.T) {
	t.Parallel()
	next := sandbox.New(sandbox.Options{JobStep: time.Millisecond, Rate: -1}).Handler()
	// A server that serves the invoke endpoint only.
	ts := testkit.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == api.MCPPath {
			http.NotFound(w, r)
			return
		}
		next.ServeHTTP(w, r)
	}))
	s := serveVQ(t, adminEnv(ts))
	served := s.tools(t)
	var want []string
	for _, spec := range api.KnownTools() {
		if spec.CI {
			if _, ok := served[spec.Name]; ok {
				t.Errorf("CI tool %s served: it answers no ToolResponse", spec.Name)
			}
			continue
		}
		want = append(want, spec.Name)
		tool, ok := served[spec.Name]
		if !ok {
			t.Errorf("%s not served", spec.Name)
			continue
		}
		// A tool that starts work (run_tracking, the proof) is neither a
		// read an agent may send again nor a write.
		if a := tool.Annotations; a.ReadOnlyHint != spec.ReadOnly || !spec.ReadOnly && (a.DestructiveHint == nil || *a.DestructiveHint != spec.Write) {
			t.Errorf("%s annotations %+v for read-only %v, write %v", spec.Name, tool.Annotations, spec.ReadOnly, spec.Write)
		}
		if got, want := requiredNames(schemaArgs(t, tool.InputSchema)), requiredNames(spec.InputArgs()); !slices.Equal(got, want) {
			t.Errorf("%s requires %v, the registry %v", spec.Name, got, want)
		}
	}
	if len(served) != len(want) {
		t.Errorf("served %d tools, want %v", len(served), want)
	}
	if !strings.Contains(s.stderr.String(), "serving vq's own") {
		t.Errorf("stderr does not say why the registry is served:\n%s", s.stderr)
	}
	if res, resp := s.call(t, api.ToolRunFailures, map[string]any{"runId": "run_abc"}); !resp.OK {
		t.Errorf("call: %s", resultText(res))
	}
}

func requiredNames(args []api.ToolArg) []string {
	var names []string
	for _, a := range args {
		if a.Required {
			names = append(names, a.Name)
		}
	}
	slices.Sort(names)
	return names
}

// --read-only serves only the tools that change nothing: a write, and a
// tool that starts work (a tracking run, a proof), is neither listed nor
// callable, and the server never hears of a call of one.
func TestMCPServeReadOnlyHidesAndRefusesWriteTools(t *testing.T) {
	t.Parallel()
	ts := cmdtest.NewSandbox(t, sandbox.Options{JobStep: time.Millisecond, Rate: -1})
	s := serveVQ(t, ts.Env(), "--read-only")
	served := s.tools(t)
	for name, tool := range served {
		if !api.ReadOnlyTool(name, false) || !tool.Annotations.ReadOnlyHint {
			t.Errorf("--read-only serves %s, which is no read of the registry", name)
		}
	}
	if _, ok := served[api.ToolRunFailures]; !ok || len(served) == 0 {
		t.Errorf("--read-only hides read tools too: %v", slices.Collect(maps.Keys(served)))
	}
	hidden := map[string]map[string]any{
		api.ToolApprove:        {"runId": "run_abc", "confirm": true},
		api.ToolCreateScenario: {"goal": "checkout works", "confirm": true},
		api.ToolRunTracking:    {"scenarioId": "scn_1"},
		api.ToolProve:          {"ticket": "BN-470"},
	}
	for name, args := range hidden {
		if _, ok := served[name]; ok {
			t.Errorf("--read-only lists %s", name)
		}
		_, err := s.session.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err == nil || !strings.Contains(err.Error(), "unknown tool") {
			t.Errorf("%s, hidden, was callable: %v", name, err)
		}
		for _, c := range ts.Calls() {
			if bytes.Contains(c.Raw, []byte(name)) {
				t.Errorf("the server received %s %s: %s", c.Method, c.Path, c.Raw)
			}
		}
	}
	if !strings.Contains(s.stderr.String(), "(read-only)") {
		t.Errorf("stderr does not say the tools are read-only:\n%s", s.stderr)
	}
}

func TestMCPServeAnswersWhatVQInvokeAnswers(t *testing.T) {
	t.Parallel()
	ts := startSandbox(t)
	for _, transport := range []string{api.TransportInvoke, api.TransportMCP} {
		t.Run(transport, func(t *testing.T) {
			env := adminEnv(ts)
			env["VQ_TRANSPORT"] = transport
			s := serveVQ(t, env)
			for _, c := range []api.Call{
				api.RunFailuresCall("run_abc"),
				{Tool: api.ToolDiffStats, Args: map[string]any{"runId": "run_abc", "scenarioLabel": "Nope", "viewport": "desktop"}},
				{Tool: api.ToolFindScenarios, Args: map[string]any{"query": "checkout", "limit": 2}},
			} {
				res, resp := s.call(t, c.Tool, c.Args)
				argsJSON, _ := json.Marshal(c.Args)
				want, _, _ := runVQ(t, env, "invoke", c.Tool, "--args", string(argsJSON), "--json")
				if got, _ := json.Marshal(res.StructuredContent); !sameJSON(t, got, []byte(want)) {
					t.Errorf("%s served:\n%s\nvq invoke --json:\n%s", c.Tool, got, want)
				}
				text := resultText(res)
				if !strings.HasPrefix(text, resp.Summary) {
					t.Errorf("%s text does not start with the summary: %q", c.Tool, text)
				}
				for _, a := range resp.NextActions {
					if !strings.Contains(text, "next action: "+a.Label+": "+a.Tool) {
						t.Errorf("%s text lacks next action %q: %q", c.Tool, a.Label, text)
					}
				}
				if !resp.OK && !strings.Contains(text, "error: "+resp.ErrorCode()) {
					t.Errorf("%s text lacks its error code: %q", c.Tool, text)
				}
			}
		})
	}
}

func TestMCPServeMapsErrorsToToolResponses(t *testing.T) {
	t.Parallel()
	ts := startSandbox(t)
	key := func(k string) map[string]string { return map[string]string{"VQ_BASE_URL": ts.URL, "VQ_API_KEY": k} }
	for _, c := range []struct {
		name string
		env  map[string]string
		call api.Call
		code string
	}{
		{"bad argument", key(sandbox.KeyAdmin), api.RunFailuresCall("run_nope"), api.CodeValidation},
		{"read scope", key(sandbox.KeyReadOnly), api.Call{Tool: api.ToolApprove, Args: map[string]any{"runId": "run_abc", "confirm": true}}, api.CodeScopeDenied},
		{"free plan", key(sandbox.KeyFree), api.Call{Tool: api.ToolTrackingPlan}, api.CodePlanGate},
		{"no key", map[string]string{"VQ_BASE_URL": ts.URL}, api.RunFailuresCall("run_abc"), api.CodeUnauthorized},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := serveVQ(t, c.env)
			res, resp := s.call(t, c.call.Tool, c.call.Args)
			if resp.OK || resp.ErrorCode() != c.code || !strings.Contains(resultText(res), "error: "+c.code) {
				t.Errorf("answer %+v, text %q; want code %s", resp, resultText(res), c.code)
			}
		})
	}
}

func TestMCPServeReturnsClientMadeHTTPErrors(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	invokes := 0
	gateway := testkit.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/mcp/v1/invoke" {
			mu.Lock()
			invokes++
			mu.Unlock()
		}
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, "<html><body><h1>502 Bad Gateway</h1></body></html>")
	}))
	s := serveVQ(t, map[string]string{"VQ_BASE_URL": gateway.URL, "VQ_API_KEY": sandbox.KeyAdmin})
	res, resp := s.call(t, api.ToolRunFailures, map[string]any{"runId": "run_abc"})
	if resp.ErrorCode() != api.CodeHTTPError || !resp.IsRecoverable() || !strings.Contains(resp.ErrorMessage(), "HTTP 502 Bad Gateway: 502 Bad Gateway") {
		t.Errorf("answer %+v", resp)
	}
	if text := resultText(res); !strings.HasPrefix(text, "HTTP 502 Bad Gateway") || !strings.Contains(text, "\nerror: http_error (recoverable)") {
		t.Errorf("text %q", resultText(res))
	}
	mu.Lock()
	defer mu.Unlock()
	if invokes != 2 {
		t.Errorf("the gateway got %d calls; an unexpected failure is retried once", invokes)
	}
}

func TestMCPServeNeverConsentsForTheAgent(t *testing.T) {
	t.Parallel()
	ts := cmdtest.NewSandbox(t, sandbox.Options{JobStep: time.Millisecond, Rate: -1})
	// Started by a person at a terminal who wants no TUI, where any other
	// command asks for consent: vq must not, since its stdin is the agent's
	// stream.
	env := ts.Env()
	env["VQ_NO_TUI"] = "1"
	s := serveRun{Env: env, TTY: true}.start(t)
	res, resp := s.call(t, api.ToolApprove, map[string]any{"runId": "run_abc"})
	want, _, exit := runVQ(t, ts.Env(), "invoke", api.ToolApprove, "runId=run_abc", "--json")
	if got, _ := json.Marshal(res.StructuredContent); resp.ErrorCode() != api.CodeConfirmRequired || exit == 0 || !sameJSON(t, got, []byte(want)) {
		t.Errorf("without confirm, served:\n%s\nvq invoke --json:\n%s", got, want)
	}
	calls := ts.InvokedCalls(api.ToolApprove)
	if len(calls) != 2 || calls[0].Args[api.ArgConfirm] != nil {
		t.Fatalf("the server received %v: the agent's call once, as sent (then vq invoke's)", calls)
	}
	if strings.Contains(s.stderr.String(), "[y/N]") {
		t.Errorf("vq mcp serve asked for consent:\n%s", s.stderr)
	}

	if res, resp := s.call(t, api.ToolApprove, map[string]any{"runId": "run_abc", "confirm": true}); !resp.OK {
		t.Errorf("with the agent's confirm: %s", resultText(res))
	}
	if calls := ts.InvokedCalls(api.ToolApprove); len(calls) != 3 || calls[2].Args[api.ArgConfirm] != true {
		t.Errorf("the server received %v", calls)
	}
}

func TestMCPServeReturnsTheReadinessLock(t *testing.T) {
	t.Parallel()
	ts := startSandbox(t)
	env := adminEnv(ts)
	env["VQ_TRANSPORT"], env["VQ_PROJECT"] = api.TransportMCP, sandbox.ReadinessProject
	s := serveVQ(t, env)
	args := map[string]any{"goal": "Checkout works", "startPath": "/checkout", "confirm": true}
	// The sandbox's analysis moves on one source per refused call: "4 of 5"
	// on the second call proves the first was sent once, not retried.
	for _, want := range []string{"3 of 5 sources analysed", "4 of 5 sources analysed"} {
		res, resp := s.call(t, api.ToolCreateScenario, args)
		if resp.ErrorCode() != api.CodeProjectNotReady || !strings.Contains(resultText(res), want) {
			t.Fatalf("answer %+v, text %q; want the lock at %s", resp, resultText(res), want)
		}
	}
	if res, resp := s.call(t, api.ToolCreateScenario, args); !resp.OK {
		t.Errorf("once analysed: %s", resultText(res))
	}
	if !strings.Contains(s.stderr.String(), "(3 of 5 sources analysed); not retried") {
		t.Errorf("stderr:\n%s", s.stderr)
	}
}

func TestMCPServeFollowsAJobWithProgress(t *testing.T) {
	t.Parallel()
	// Steps long enough that a poll under load sees two of them.
	ts := startSandboxWith(t, sandbox.Options{JobStep: 200 * time.Millisecond, Rate: -1})
	for _, transport := range []string{api.TransportInvoke, api.TransportMCP} {
		t.Run(transport, func(t *testing.T) {
			env := adminEnv(ts)
			env["VQ_TRANSPORT"] = transport
			s := serveVQ(t, env, "--interval", "1ms")

			// Without a progress token the tool's first answer is returned.
			_, first := s.call(t, api.ToolRunTracking, nil)
			if _, accepted := api.AcceptedJob(&first); !accepted {
				if _, started := api.ParseLongRunning(&first); !started {
					t.Errorf("without a token: %s", first.Data)
				}
			}

			params := &mcp.CallToolParams{Name: api.ToolRunTracking, Arguments: map[string]any{}}
			params.SetProgressToken("p-1")
			res, err := s.session.CallTool(context.Background(), params)
			if err != nil {
				t.Fatal(err)
			}
			final := structured(t, res)
			if status, ok := api.ParseJobStatus(&final); !ok || status.Status != api.JobCompleted || !strings.Contains(string(status.Result), `"eventStatus":"pass"`) {
				t.Errorf("final answer: %s", final.Data)
			}
			// The client may handle the last notifications after the answer:
			// wait a bounded time for the two the test needs.
			for deadline := time.Now().Add(testkit.Patience); len(s.progress) < 2 && time.Now().Before(deadline); {
				time.Sleep(10 * time.Millisecond)
			}
			var got []float64
			for len(s.progress) > 0 {
				p := <-s.progress
				if p.ProgressToken != "p-1" || p.Total != 4 {
					t.Errorf("notification %+v", p)
				}
				got = append(got, p.Progress)
			}
			increasing := len(got) >= 2
			for i := 1; i < len(got); i++ {
				increasing = increasing && got[i] > got[i-1]
			}
			if !increasing {
				t.Errorf("progress %v: want at least two, each larger than the last", got)
			}
		})
	}
}

func TestMCPServeCancellationStopsThePolling(t *testing.T) {
	t.Parallel()
	ts := cmdtest.NewSandbox(t, sandbox.Options{JobStep: time.Hour, Rate: -1})
	s := serveVQ(t, ts.Env(), "--interval", "1ms")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	params := &mcp.CallToolParams{Name: api.ToolRunTracking, Arguments: map[string]any{}}
	params.SetProgressToken(7)
	done := make(chan error, 1)
	go func() {
		_, err := s.session.CallTool(ctx, params)
		done <- err
	}()
	select {
	case <-s.progress:
	case err := <-done:
		t.Fatalf("the call ended before any progress: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("no progress notification")
	}
	polls := func() int { return len(ts.InvokedCalls(api.ToolJobStatus)) }
	for deadline := time.Now().Add(testkit.Patience); polls() < 3; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d polls: the job is not being followed", polls())
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call: %v", err)
	}
	// The polls stop: once the count has held still for a while, at a 1ms
	// interval it would have moved on by many if they had not. The while
	// is long enough for a poll already sent to land under load.
	last := polls()
	for deadline := time.Now().Add(10 * time.Second); ; {
		time.Sleep(500 * time.Millisecond)
		n := polls()
		if n == last {
			break
		}
		if last = n; time.Now().After(deadline) {
			t.Fatalf("still polling after the cancellation: %d polls", n)
		}
	}
	time.Sleep(500 * time.Millisecond)
	if n := polls(); n != last {
		t.Errorf("%d polls after the cancellation", n-last)
	}
}

func TestMCPServeRidesOutA429Storm(t *testing.T) {
	t.Parallel()
	storm := func(t *testing.T, args ...string) (*servedVQ, []api.ToolResponse) {
		// One call a 50ms, no burst: calls made together are refused with
		// 429 but the first.
		ts := startSandboxWith(t, sandbox.Options{JobStep: time.Millisecond, Rate: 20, Burst: 1})
		s := serveVQ(t, adminEnv(ts), args...)
		s.tools(t) // the tool list's own calls are over before the storm
		results := make([]*mcp.CallToolResult, 5)
		errs := make([]error, len(results))
		var wg sync.WaitGroup
		for i := range results {
			wg.Go(func() {
				results[i], errs[i] = s.session.CallTool(context.Background(), &mcp.CallToolParams{
					Name: api.ToolRunFailures, Arguments: map[string]any{"runId": "run_abc"}})
			})
		}
		wg.Wait()
		answers := make([]api.ToolResponse, len(results))
		for i, res := range results {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			answers[i] = structured(t, res)
		}
		return s, answers
	}
	t.Run("retried", func(t *testing.T) {
		s, answers := storm(t)
		for _, resp := range answers {
			if !resp.OK {
				t.Errorf("answer %+v", resp)
			}
		}
		if !strings.Contains(s.stderr.String(), "get_run_failures: rate limited, retrying in") {
			t.Errorf("no rate limit was waited out:\n%s", s.stderr)
		}
	})
	t.Run("no-retry", func(t *testing.T) {
		_, answers := storm(t, "--no-retry")
		limited := slices.IndexFunc(answers, func(r api.ToolResponse) bool {
			return r.ErrorCode() == api.CodeRateLimit && r.RetryAfterMs > 0
		})
		if limited < 0 {
			t.Errorf("with --no-retry no rate limit came back: %+v", answers)
		}
	})
}

func TestMCPServeKeepsStdoutForMCP(t *testing.T) {
	t.Parallel()
	ts := startSandbox(t)
	s := serveVQ(t, adminEnv(ts), "--debug")
	// A trace line on stdout would break the client's stream.
	if res, resp := s.call(t, api.ToolRunFailures, map[string]any{"runId": "run_abc"}); !resp.OK {
		t.Fatalf("call: %s", resultText(res))
	}
	errOut := s.stderr.String()
	if !strings.Contains(errOut, "/api/mcp/v1/invoke") || strings.Contains(errOut, sandbox.KeyAdmin) {
		t.Errorf("stderr does not hold the redacted --debug trace:\n%s", errOut)
	}
}

func TestMCPServeSanitizesServerText(t *testing.T) {
	t.Parallel()
	body := `{"ok":true,"tool":"get_run_failures","summary":"done\u001b]52;c;cHduZWQ=\u0007\u001b[2J","data":null,` +
		`"warnings":["bidi\u202eevil"],"nextActions":[{"label":"again\u001b[31m","tool":"get_run_failures","args":{"runId":"run_abc"}}]}`
	srv := testkit.NewServer(t, testkit.Always(http.StatusOK, body))
	s := serveVQ(t, srv.Env())
	res, _ := s.call(t, api.ToolRunFailures, map[string]any{"runId": "run_abc"})
	text := resultText(res)
	if strings.ContainsAny(text, "\x1b\x07\u202e") || !strings.HasPrefix(text, "done") || !strings.Contains(text, "next action: again") {
		t.Errorf("text %q", text)
	}
}

// Any MCP server's tools are served again, through vq's MCP client: a
// general server's text answer comes back as the ToolResponse vq makes of
// it, and its text is sanitized on the way.
func TestMCPServeServesAnyMCPServersTools(t *testing.T) {
	t.Parallel()
	hosted := mcp.NewServer(&mcp.Implementation{Name: "other", Version: "1"}, nil)
	hosted.AddTool(&mcp.Tool{
		Name: "echo", Title: "Echo\u202e", Description: "Echoes\x1b[2J\x1b]0;owned\x07 its message.",
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{
			"msg":   map[string]any{"type": "string", "description": "what\x1b[31m to say"},
			"times": map[string]any{"type": "array", "items": map[string]any{"type": "integer"}},
			"tone":  map[string]any{"type": "string", "enum": []any{"calm", "loud"}, "default": "calm"}}, "required": []string{"msg"}},
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args struct{ Msg string }
		json.Unmarshal(req.Params.Arguments, &args)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "you said " + args.Msg + "\x1b[2J"}}}, nil
	})
	s := serveVQ(t, map[string]string{"VQ_ENDPOINT": testkit.ServeMCP(t, hosted, nil)})
	echo, ok := s.tools(t)["echo"]
	if !ok {
		t.Fatalf("echo not served:\n%s", s.stderr)
	}
	schema, _ := json.Marshal(echo.InputSchema)
	if echo.Title != "Echo<U+202E>" || echo.Description != "Echoes its message." || !strings.Contains(string(schema), `"description":"what to say"`) || !echo.Annotations.ReadOnlyHint {
		t.Errorf("served as %+v %s", echo, schema)
	}
	// An array's item type, the allowed values and the default are served
	// on, so the agent (and vq's KEY=VALUE typing) sees them.
	for _, want := range []string{`"times":{"items":{"type":"integer"},"type":"array"}`, `"tone":{"default":"calm","enum":["calm","loud"],"type":"string"}`} {
		if !strings.Contains(string(schema), want) {
			t.Errorf("served schema lacks %s:\n%s", want, schema)
		}
	}
	res, resp := s.call(t, "echo", map[string]any{"msg": "hi"})
	if !resp.OK || resp.Summary != "you said hi\x1b[2J" || resultText(res) != "you said hi" {
		t.Errorf("answer %+v, text %q", resp, resultText(res))
	}
}

// An outputSchema whose check would never end ends neither vq mcp serve
// nor its session: the agent gets the answer and a warning that says why,
// and the next call is answered. Before, a $ref loop overflowed the
// stack, and $refs that double at each of 32 levels held a core.
func TestMCPServeSurvivesAnOutputSchemaWhoseCheckWouldNotEnd(t *testing.T) {
	t.Parallel()
	hostile := testkit.HostileOutputSchemas()
	s := serveVQ(t, map[string]string{"VQ_ENDPOINT": testkit.ServeOutputSchemas(t, map[string]testkit.OutputSchema{
		"self_ref": hostile["self_ref"], "any_of_32": hostile["any_of_32"], "ref_loop": hostile["ref_loop"]})})
	for _, tool := range []string{"self_ref", "any_of_32", "ref_loop"} {
		_, resp := s.call(t, tool, nil)
		if !resp.OK || len(resp.Warnings) != 1 || !strings.HasPrefix(resp.Warnings[0], tool+"'s answer is not checked against the outputSchema the server lists for it: ") {
			t.Errorf("%s: ok %v, warnings %q, error %s", tool, resp.OK, resp.Warnings, resp.ErrorMessage())
		}
	}
}

// initializeRequest is the first message an MCP client sends;
// toolsListRequest asks for the tools after it.
const (
	initializeRequest = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`
	toolsListRequest  = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
)

// BenchmarkMCPServe measures what an IDE agent waits for: a vq mcp serve
// process from its start to the answer to initialize, and one tools/call
// through a running one. Beside them: vq --version's whole run, the floor
// of any vq process, and the same call sent by vq's API client directly,
// as vq invoke sends it once started; tools-call less direct-invoke is
// what serving adds to a call. The sandbox runs as a process of its own,
// as a server does, so both calls cross to it alike.
//
//	go test ./cmd -run '^$' -bench MCPServe -count 5
func BenchmarkMCPServe(b *testing.B) {
	vq := vqBinary(b)
	env := []string{"VQ_NO_KEYRING=1", "VQ_CONFIG=" + filepath.Join(b.TempDir(), "config.json"), "HOME=" + b.TempDir()}
	command := func(args ...string) *exec.Cmd {
		c := exec.Command(vq, args...)
		c.Env = env
		return c
	}
	base := startSandboxProcess(b, command("sandbox", "--addr", "127.0.0.1:0", "--rate", "-1"))
	env = append(env, "VQ_BASE_URL="+base, "VQ_API_KEY="+sandbox.KeyAdmin)
	call := api.RunFailuresCall("run_abc")

	b.Run("version", func(b *testing.B) {
		for b.Loop() {
			if err := command("--version").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("start-to-initialize", func(b *testing.B) {
		for range b.N {
			c := command("mcp", "serve")
			stdin, _ := c.StdinPipe()
			stdout, _ := c.StdoutPipe()
			if err := c.Start(); err != nil {
				b.Fatal(err)
			}
			io.WriteString(stdin, initializeRequest+"\n")
			answers := bufio.NewReader(stdout)
			line, err := answers.ReadString('\n')
			if err != nil || !strings.Contains(line, `"id":1,"result"`) {
				b.Fatalf("initialize: %v %s", err, line)
			}
			b.StopTimer()
			// The tool list is loaded by then: the server's MCP session,
			// which it opened for it, is ended properly.
			io.WriteString(stdin, toolsListRequest+"\n")
			if line, err := answers.ReadString('\n'); err != nil || !strings.Contains(line, `"id":2,"result"`) {
				b.Fatalf("tools/list: %v %s", err, line)
			}
			stdin.Close()
			c.Wait()
			b.StartTimer()
		}
	})
	b.Run("tools-call", func(b *testing.B) {
		client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		session, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: command("mcp", "serve")}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer session.Close()
		params := &mcp.CallToolParams{Name: call.Tool, Arguments: call.Args}
		for b.Loop() {
			if res, err := session.CallTool(context.Background(), params); err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	})
	b.Run("direct-invoke", func(b *testing.B) {
		client := api.New(api.Options{BaseURL: base, APIKey: sandbox.KeyAdmin})
		for b.Loop() {
			if resp, err := client.Invoke(context.Background(), call); err != nil || !resp.OK {
				b.Fatal(err, resp)
			}
		}
	})
}

// startSandboxProcess starts vq sandbox and answers its base URL; it is
// stopped when the benchmark ends.
func startSandboxProcess(b *testing.B, c *exec.Cmd) string {
	b.Helper()
	stdout, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		c.Process.Signal(os.Interrupt)
		c.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	base, ok := strings.CutPrefix(strings.TrimSpace(line), "VisualQ sandbox listening on ")
	if err != nil || !ok {
		b.Fatalf("vq sandbox: %v %q", err, line)
	}
	return base
}
