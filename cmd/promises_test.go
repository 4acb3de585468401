package cmd

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/testkit"
	"github.com/visualq/vq/internal/textsafe"
)

// The promise matrix (docs/reliability.md, "Three promises"): the fault
// matrix's second table. Each row is a path by which vq sends calls, each
// column a class of hostile answer, and every cell holds vq to its three
// promises, whatever the answer:
//
//  1. no exit 0 (no isError: false) without an explicit pass;
//  2. no call that may have changed something is received twice;
//  3. every run ends by its bounds (--timeout, --wait-timeout).
//
// A server's error code never passes for one of the client's own (a fourth
// check, in the columns that send one). The server is hostile only for the
// row's target tool; every other call gets a good answer, so that a path
// reaches the call under test.

// promiseTimeout and promiseWait are the bounds every row runs with. No
// server here is slow (the fault matrix's are): --timeout only ends a
// request a bug left hanging, so it is far above what a prompt answer
// takes on a loaded machine, where 1s raced them (a cut connection read as
// a timeout, vq mcp serve out of time before its call).
const (
	promiseTimeout = 5 * time.Second
	promiseWait    = 2 * time.Second
)

// promiseBound is how long any row may take: its whole wait, two requests
// and a margin for a loaded machine. No cell needs it: a cell past it is a
// wait that outlived its bound.
const promiseBound = promiseWait + 2*promiseTimeout + time.Second

// maxAttempts is how many times a call may go out against a server that
// only answers "slow down": once, and again after each of the contract's
// bounded rate-limit retries (api.MaxRateLimitRetries).
const maxAttempts = 1 + 10

// verdictKind is the shape of the answer that carries a row's verdict.
type verdictKind int

const (
	plainAnswer verdictKind = iota // a ToolResponse: ok is the verdict
	jobAnswer                      // get_job_status: status completed is the pass
	proofAnswer                    // a proof job's status: proofVerdict proven is the pass
	jobStart                       // an async tool's first answer: a queued job
	runAnswer                      // get_run_status (CI JSON): status passed is the pass
	runStart                       // run_vrt (CI JSON): a queued run
)

func (k verdictKind) ci() bool { return k == runAnswer || k == runStart }

// promiseRow is one path that sends calls.
type promiseRow struct {
	name string
	args []string
	// target is the tool whose answers are hostile; distinct is how many
	// different calls of it the command means to send.
	target   string
	kind     verdictKind
	distinct int
	// via is how vq reaches the server: "" the invoke (and CI) endpoint,
	// "mcp" streamable HTTP, "stdio" a child process; "serve" is vq mcp
	// serve, which an agent asks for serveCall, and "tui" the TUI on a
	// person's terminal, both reaching the server through the invoke
	// endpoint.
	via       string
	serveCall *mcp.CallToolParams
}

func promiseRows() []promiseRow {
	bounds := []string{"--timeout", promiseTimeout.String()}
	waits := []string{"--interval", "10ms", "--wait-timeout", promiseWait.String()}
	with := func(args ...[]string) []string { return slices.Concat(args...) }
	approve := []string{"approve", "run_1", "--scenario", "Home", "--viewport", "desktop", "--yes"}
	return []promiseRow{
		{name: "failures", args: with([]string{"failures", "run_1"}, bounds), target: "get_run_failures"},
		{name: "approve", args: with(approve, bounds), target: "approve_vrt_results"},
		// Three flags, two checks: the repeated one is sent once.
		{name: "approve batch", args: with([]string{"approve", "run_1", "--scenario", "Home", "--scenario", "Cart", "--scenario", "Home",
			"--viewport", "desktop", "--yes"}, bounds, waits), target: "approve_vrt_results", distinct: 2},
		{name: "scenario create", args: with([]string{"scenario", "create", "--goal", "check out", "--yes"}, bounds), target: "create_frt_scenario"},
		// A tool vq does not know: nothing says it may be sent twice.
		{name: "invoke", args: with([]string{"invoke", "custom_tool", "n:=1"}, bounds), target: "custom_tool"},
		{name: "tracking run --wait", args: with([]string{"tracking", "run", "--wait"}, bounds, waits), target: "get_job_status", kind: jobAnswer},
		{name: "watch", args: with([]string{"watch", "job_1"}, bounds, waits), target: "get_job_status", kind: jobAnswer},
		{name: "prove (job)", args: with([]string{"prove", "BN-1"}, bounds, waits), target: "get_job_status", kind: proofAnswer},
		{name: "prove (start)", args: with([]string{"prove", "BN-1"}, bounds, waits), target: "tracking_prove_jira_ticket", kind: jobStart},
		{name: "ci run-vrt --wait", args: with([]string{"ci", "run-vrt", "branch=main", "--wait"}, bounds, waits), target: "get_run_status", kind: runAnswer},
		{name: "ci run-vrt", args: with([]string{"ci", "run-vrt", "branch=main"}, bounds), target: "run_vrt", kind: runStart},
		{name: "ci status", args: with([]string{"ci", "status", "r1"}, bounds), target: "get_run_status", kind: runAnswer},
		{name: "failures over mcp", args: with([]string{"failures", "run_1", "--transport", "mcp"}, bounds), target: "get_run_failures", via: "mcp"},
		{name: "approve over mcp", args: with(approve, []string{"--transport", "mcp"}, bounds), target: "approve_vrt_results", via: "mcp"},
		{name: "failures over stdio", args: with([]string{"failures", "run_1"}, bounds), target: "get_run_failures", via: "stdio"},
		{name: "approve over stdio", args: with(approve, bounds), target: "approve_vrt_results", via: "stdio"},
		// A person's terminal: the TUI opens on the first answer, Enter
		// sends its action, the target (tuiCell).
		{name: "TUI action", args: with([]string{"scenario", "find", "home"}, bounds), target: "approve_vrt_results", via: "tui"},
		{name: "mcp serve approve", args: bounds, target: "approve_vrt_results", via: "serve",
			serveCall: &mcp.CallToolParams{Name: "approve_vrt_results", Arguments: map[string]any{"runId": "run_1", "scenarioLabel": "Home", "viewport": "desktop", "confirm": true}}},
		{name: "mcp serve prove", args: with(bounds, []string{"--interval", "10ms"}), target: "get_job_status", kind: proofAnswer, via: "serve",
			serveCall: withProgressToken(&mcp.CallToolParams{Name: "tracking_prove_jira_ticket", Arguments: map[string]any{"ticket": "BN-1"}})},
	}
}

// hostileClass is one way an answer can be hostile. Each transport plays
// it its own way; a class a transport cannot carry (an HTTP status over
// stdio, isError over the invoke endpoint) has no cell there.
type hostileClass struct {
	name string
	// reserved is the client's own code the server sends, when it does.
	reserved string
	// rateLimited: the server refuses every attempt with a rate limit,
	// which changes nothing, so a call may go out more than once.
	rateLimited bool
	// only is the transports the class exists on: "http" (the invoke and
	// CI endpoints, MCP over HTTP), "mcp" (over HTTP or stdio); "" all.
	only string
}

var hostileClasses = []hostileClass{
	{name: "no verdict"},
	{name: "unknown status"},
	{name: "failed with ok"},
	{name: "cut after headers", only: "http"},
	{name: "truncated body", only: "http"},
	{name: "5xx after send", only: "http"},
	{name: "JSON-RPC error"},
	{name: "429 forever", rateLimited: true},
	{name: "day-long retryAfterMs", rateLimited: true},
	{name: "dies mid-call"},
	{name: "500 with ok", only: "http"},
	{name: "422 with ok", only: "http"},
	{name: "isError with ok", only: "mcp"},
	{name: "duplicate verdict"},
	{name: "server code unauthorized", reserved: "unauthorized"},
	{name: "server code timeout", reserved: "timeout"},
}

// carries reports whether the class exists on the row's transport.
func (c hostileClass) carries(row promiseRow) bool {
	switch c.only {
	case "http":
		return row.via != "stdio"
	case "mcp":
		return row.via == "mcp" || row.via == "stdio"
	}
	return true
}

// promiseSlots is how many cells run at once: most of a cell's time is
// spent waiting (a retry's pause, rate limits, polls), so more than go
// test's one per core, but in proportion to the cores: 24 at once on two
// starved each other past promiseBound (a 429-forever cell, 0.2s of
// waits, took 6.3s) and ran the whole matrix slower than 8 do.
var promiseSlots = 4 * runtime.GOMAXPROCS(0)

func TestPromiseMatrix(t *testing.T) {
	t.Parallel()
	// Each cell's run is bounded on its own (promiseCell.run); the matrix
	// takes as long as its 279 cells, and vq's build, take on the machine:
	// under one testkit.Bound, cells that started past its Patience ended
	// at once with "context deadline exceeded".
	testkit.NoLeaks(t)
	ctx := t.Context()
	// The TUI's row runs the built vq in tmux.
	vq := ""
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Error("tmux is not installed: the TUI's row cannot run")
	} else {
		vq = vqBinary(t)
	}
	var cells []*promiseCell
	for _, row := range promiseRows() {
		for _, class := range hostileClasses {
			if class.carries(row) && (row.via != "tui" || vq != "") {
				cells = append(cells, &promiseCell{row: row, class: class, received: map[promiseCall]int{}})
			}
		}
	}
	var wg sync.WaitGroup
	slots := make(chan struct{}, promiseSlots)
	for _, cell := range cells {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			cell.run(t, ctx, vq)
		})
	}
	wg.Wait()
	for _, cell := range cells {
		t.Run(cell.row.name+"/"+cell.class.name, func(t *testing.T) {
			t.Logf("exit %d in %s\noutput: %q", cell.exit, cell.elapsed.Round(time.Millisecond), cell.output)
			cell.check(t)
		})
	}
}

// run runs the cell's command against its hostile server and records
// what the user saw.
func (c *promiseCell) run(t *testing.T, ctx context.Context, vq string) {
	env := map[string]string{"VQ_API_KEY": secretKey}
	args := c.row.args
	switch c.row.via {
	case "stdio":
		c.record = t.TempDir() + "/calls"
		exe, err := os.Executable()
		if err != nil {
			panic(err)
		}
		args = append(slices.Clone(args), "--endpoint", "stdio:"+textsafe.ShellQuote(exe)+" "+hostileChildArg+" "+
			textsafe.ShellQuote(c.class.name)+" "+textsafe.ShellQuote(c.row.target)+" "+textsafe.ShellQuote(c.record))
	default:
		env["VQ_BASE_URL"] = testkit.Wrap(t, http.HandlerFunc(c.serve)).URL
	}
	// The run's own bound ends a hang the cell then reports, instead of go
	// test's ten-minute timeout.
	ctx, cancel := context.WithTimeout(ctx, promiseBound+5*time.Second)
	defer cancel()
	start := time.Now()
	switch c.row.via {
	case "serve":
		c.exit, c.output = serveCell(t, ctx, env, c.row)
	case "tui":
		c.exit, c.output = tuiCell(ctx, t, vq, env, c.row)
	default:
		stdout, stderr, exit := vqRun{Env: env, Ctx: ctx}.run(t, args...)
		c.exit, c.output = exit, stdout+stderr
	}
	c.elapsed = time.Since(start)
}

// promiseCell is one row under one class: the hostile server's state.
type promiseCell struct {
	row   promiseRow
	class hostileClass
	// exit, output and elapsed are what the run showed: its exit code,
	// stdout and stderr, and how long it took.
	exit    int
	output  string
	elapsed time.Duration
	// record is the file a stdio child appends each call to.
	record   string
	mu       sync.Mutex
	received map[promiseCall]int // calls received, by tool and arguments
}

// check holds the cell to the promises.
func (c *promiseCell) check(t *testing.T) {
	t.Helper()
	exit, elapsed, output := c.exit, c.elapsed, c.output
	if exit == 0 {
		t.Errorf("promise 1: exit 0 without an explicit pass")
	}
	if elapsed > promiseBound {
		t.Errorf("promise 3: ended after %s, past its bounds (%s)", elapsed.Round(time.Millisecond), promiseBound)
	}
	// vq's own wait bound may end polls the server answers with its code
	// (each a retried tool_error; on a loaded machine the bound comes
	// before the last): that exit is the client's, in its words ("after
	// 2s").
	ownWaitEnded := strings.Contains(output, " after "+promiseWait.String())
	if code := c.class.reserved; code != "" && exit == exitcode.ForCode(code, true) && !ownWaitEnded {
		t.Errorf("the server's error code %q gave the client's own exit %d", code, exit)
	}
	if strings.Contains(output, secretKey) {
		t.Errorf("the API key was shown")
	}
	// What the user reads says what happened: a status vq does not know
	// by name, and a change that may have been made by what it sent.
	if c.class.name == "unknown status" && c.row.kind != plainAnswer && !strings.Contains(output, "exploded") {
		t.Errorf("the unknown status was not named")
	}
	if c.mayHaveLanded() && !readTool(promiseCall{tool: c.row.target}) && !strings.Contains(output, "may have been applied") {
		t.Errorf("a call that may have been applied was not said to be")
	}
	received := c.calls()
	total := 0
	for call, n := range received {
		if readTool(call) {
			continue
		}
		if call.tool == c.row.target {
			total += n
		}
		limit := 1
		if c.class.rateLimited && call.tool == c.row.target {
			limit = maxAttempts
		}
		if n > limit {
			t.Errorf("promise 2: %s %s received %d times (at most %d)", call.tool, call.args, n, limit)
		}
	}
	if !readTool(promiseCall{tool: c.row.target}) {
		if distinct := max(c.row.distinct, 1); total > distinct*maxAttempts {
			t.Errorf("promise 2: %d calls of %s for %d distinct ones (at most %d)", total, c.row.target, distinct, distinct*maxAttempts)
		}
	}
}

// mayHaveLanded reports the classes after which the target's call may
// have been carried out although no answer vq can read says so: the
// request reached the server, then the connection broke, the server
// failed, or its answer is unreadable or contradicts itself. (A refusal
// the server states, a rate limit among them, changed nothing.)
func (c *promiseCell) mayHaveLanded() bool {
	switch c.class.name {
	case "cut after headers", "truncated body", "5xx after send", "dies mid-call", "500 with ok", "isError with ok":
		return true
	case "422 with ok":
		// Over MCP and on the CI endpoint a 4xx is a refusal of what
		// stands before the tool, its body unread; an invoke answer
		// carrying ok contradicts it.
		return c.row.via != "mcp" && !c.row.kind.ci()
	case "JSON-RPC error":
		// The CI endpoint reads it as JSON that is no run: no verdict.
		return !c.row.kind.ci()
	case "no verdict", "unknown status", "failed with ok", "duplicate verdict":
		// Of a job or a run the answer that started it is readable:
		// what it lacks is the verdict.
		return c.row.kind == plainAnswer
	}
	return false
}

// promiseCall is a call as the server tells calls apart: its tool and
// arguments, consent aside.
type promiseCall struct{ tool, args string }

func callKey(tool string, args map[string]any) promiseCall {
	args = maps.Clone(args)
	delete(args, "confirm")
	b, _ := json.Marshal(args) // maps encode in key order
	return promiseCall{tool, string(b)}
}

// readTool reports the tools that change nothing, which may be sent again
// (get_job_status polls, say): the registry's reads, as a server would
// document them.
func readTool(c promiseCall) bool {
	switch c.tool {
	case "get_run_failures", "get_diff_stats", "frt_find_scenarios", "tracking_get_plan", "get_job_status", "get_run_status":
		return true
	}
	return false
}

func (c *promiseCell) note(tool string, args map[string]any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.received[callKey(tool, args)]++
}

// calls are the calls the server (or the stdio children) received.
func (c *promiseCell) calls() map[promiseCall]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[promiseCall]int{}
	for k, n := range c.received {
		out[k] = n
	}
	if c.record != "" {
		b, _ := os.ReadFile(c.record)
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if tool, args, ok := strings.Cut(line, " "); ok {
				var m map[string]any
				json.Unmarshal([]byte(args), &m)
				out[callKey(tool, m)]++
			}
		}
	}
	return out
}

// serve is the cell's server: the invoke endpoint, the CI endpoint and
// MCP over streamable HTTP, hostile for the row's target tool only.
func (c *promiseCell) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	switch {
	case strings.HasPrefix(r.URL.Path, "/api/ci/"):
		tool := strings.TrimPrefix(r.URL.Path, "/api/ci/")
		var args map[string]any
		json.Unmarshal(body, &args)
		c.note(tool, args)
		if tool != c.row.target {
			answerJSON(w, http.StatusOK, goodAnswer(runKindOf(tool), tool))
			return
		}
		c.hostileHTTP(w, tool, envelope{})
	case r.URL.Path == "/api/mcp":
		c.serveMCP(w, r, body)
	default:
		var call struct {
			Tool string         `json:"tool"`
			Args map[string]any `json:"args"`
		}
		json.Unmarshal(body, &call)
		c.note(call.Tool, call.Args)
		if call.Tool != c.row.target {
			answerJSON(w, http.StatusOK, c.usual(call.Tool))
			return
		}
		c.hostileHTTP(w, call.Tool, envelope{})
	}
}

// runKindOf is how a CI tool answers when it is not the target.
func runKindOf(tool string) verdictKind {
	if tool == "get_run_status" {
		return runAnswer
	}
	return runStart
}

// usual is the good answer of a tool that is not the target: what takes
// the command on to its target.
func (c *promiseCell) usual(tool string) string {
	switch tool {
	case "run_tracking", "tracking_prove_jira_ticket":
		return goodAnswer(jobStart, tool)
	case "get_job_status":
		if c.row.kind == jobStart {
			return goodAnswer(proofAnswer, tool)
		}
		return goodAnswer(jobAnswer, tool)
	case "frt_find_scenarios":
		return testkit.OK(tool, "1 scenario.", map[string]any{"query": "home"}, testkit.NextActions(map[string]any{"label": "Approve Home desktop",
			"tool": "approve_vrt_results", "args": map[string]any{"runId": "run_1", "scenarioLabel": "Home", "viewport": "desktop"}}))
	case "get_run_failures":
		return testkit.OK(tool, "1 of 3 checks failed.", map[string]any{"runId": "run_1", "failed": 1, "total": 3,
			"failures": []map[string]any{{"scenarioLabel": "Home", "viewport": "desktop", "mismatchPercent": 1.5}}})
	}
	return goodAnswer(plainAnswer, tool)
}

// goodAnswer is the answer that passes, in the kind's shape: the body
// every variant below starts from.
func goodAnswer(kind verdictKind, tool string) string {
	switch kind {
	case jobAnswer:
		return testkit.JobStatus("job_1", "completed", 3, 3, "")
	case proofAnswer:
		return testkit.OK(tool, "Job job_1 completed.", map[string]any{"jobId": "job_1", "status": "completed",
			"result": map[string]any{"proofVerdict": "proven", "proofOutcome": map[string]any{"proven": true, "headline": "OUI", "reasons": []string{}},
				"jiraMarkdown": "proven"}})
	case jobStart:
		return testkit.Queued(tool, "job_1")
	case runAnswer:
		return `{"runId":"r1","status":"passed","failed":0,"total":3,"url":"http://127.0.0.1/r1"}`
	case runStart:
		return `{"runId":"r1","status":"queued","url":"http://127.0.0.1/r1"}`
	}
	return testkit.OK(tool, "done", map[string]any{"runId": "run_1"})
}

// verdictVariant is the kind's answer with its verdict made hostile by
// class: left out, unknown, contradicted, given twice, or a failure under
// a code of the client's own. ok is whether a server that sends it means
// it to be a success (an MCP server sets isError by it).
func verdictVariant(kind verdictKind, tool string, class hostileClass) (body string, ok bool) {
	job := func(status string, opts ...testkit.Option) string {
		return testkit.OK(tool, "Job job_1 "+status+".", map[string]any{"jobId": "job_1", "status": status}, opts...)
	}
	switch class.name {
	case "no verdict":
		switch kind {
		case plainAnswer:
			return `{"tool":"` + tool + `","summary":"done","data":null,"warnings":[],"nextActions":[]}`, true
		case jobAnswer, jobStart:
			return testkit.OK(tool, "Job job_1.", map[string]any{"jobId": "job_1"}), true
		case proofAnswer:
			return testkit.OK(tool, "Job job_1 completed.", map[string]any{"jobId": "job_1", "status": "completed",
				"result": map[string]any{"jiraMarkdown": "no verdict here"}}), true
		}
		return `{"runId":"r1"}`, true
	case "unknown status":
		switch kind {
		case plainAnswer:
			return `{"ok":"maybe","tool":"` + tool + `","summary":"done","data":null,"warnings":[],"nextActions":[]}`, true
		case runAnswer, runStart:
			return `{"runId":"r1","status":"exploded"}`, true
		}
		return job("exploded"), true
	case "failed with ok":
		switch kind {
		case plainAnswer:
			return strings.TrimSuffix(goodAnswer(kind, tool), "}") + `,"error":{"code":"tool_error","message":"it broke"}}`, true
		case proofAnswer:
			return testkit.OK(tool, "Job job_1 completed.", map[string]any{"jobId": "job_1", "status": "completed",
				"result": map[string]any{"proofVerdict": "failed", "proofOutcome": map[string]any{"proven": false, "headline": "NON", "reasons": []string{"no event"}},
					"jiraMarkdown": "failed"}}), true
		case runAnswer:
			return `{"runId":"r1","status":"failed","failed":1,"total":3}`, true
		case runStart:
			return `{"runId":"r1","status":"error"}`, true
		}
		return job("failed"), true
	case "duplicate verdict":
		good := goodAnswer(kind, tool)
		if kind.ci() {
			return `{"status":"failed",` + good[1:], true
		}
		return `{"ok":false,` + good[1:], true
	}
	// A failure under a code of the client's own.
	if kind.ci() {
		return `{"error":{"code":"` + class.reserved + `","message":"the server says ` + class.reserved + `"}}`, false
	}
	return testkit.Failure(tool, class.reserved, "the server says "+class.reserved, true), false
}

// rateLimit is the refusal of the rate-limit classes, in the kind's shape.
func rateLimit(kind verdictKind, tool string, class hostileClass) string {
	wait := 20
	if class.name == "day-long retryAfterMs" {
		wait = 86_400_000
	}
	if kind.ci() {
		return fmt.Sprintf(`{"error":{"code":"rate_limit","message":"slow down"},"retryAfterMs":%d}`, wait)
	}
	return testkit.RateLimit(tool, "slow down", wait)
}

// envelope carries a ToolResponse in a transport's message: as it is on
// the invoke endpoint, in a JSON-RPC result over MCP.
type envelope struct {
	id json.RawMessage // the request's JSON-RPC id; nil on the invoke and CI endpoints
}

// wrap is the message carrying tr, whose result says isError over MCP.
func (e envelope) wrap(tr string, isError bool) string {
	if e.id == nil {
		return tr
	}
	var summary struct {
		Summary string `json:"summary"`
	}
	json.Unmarshal([]byte(tr), &summary)
	text, _ := json.Marshal(summary.Summary)
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":%s}],"structuredContent":%s,"isError":%t}}`, e.id, text, tr, isError)
}

// rpcError is a JSON-RPC error answer (an MCP server's internal error);
// on the invoke and CI endpoints the same bytes, which are no answer of
// theirs.
func (e envelope) rpcError() string {
	id := e.id
	if id == nil {
		id = json.RawMessage("1")
	}
	return `{"jsonrpc":"2.0","id":` + string(id) + `,"error":{"code":-32603,"message":"Internal error"}}`
}

// noResult is a JSON-RPC answer without a tool result, over MCP; nil
// elsewhere.
func (e envelope) noResult() string {
	return `{"jsonrpc":"2.0","id":` + string(e.id) + `,"result":null}`
}

// hostileAnswer is the class's answer to the target's call, when it is a
// message (the classes that cut the connection are no message).
func (c *promiseCell) hostileAnswer(tool string, env envelope) string {
	kind := c.row.kind
	switch c.class.name {
	case "JSON-RPC error":
		return env.rpcError()
	case "429 forever", "day-long retryAfterMs":
		return env.wrap(rateLimit(kind, tool, c.class), true)
	case "isError with ok":
		return env.wrap(goodAnswer(kind, tool), true)
	case "500 with ok", "422 with ok":
		return env.wrap(goodAnswer(kind, tool), false)
	case "no verdict":
		if env.id != nil {
			return env.noResult()
		}
	}
	body, ok := verdictVariant(kind, tool, c.class)
	return env.wrap(body, !ok)
}

// hostileHTTP answers the target's call over HTTP as the class says.
func (c *promiseCell) hostileHTTP(w http.ResponseWriter, tool string, env envelope) {
	switch c.class.name {
	case "cut after headers":
		hijack(w, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n", func(conn net.Conn, _ *bufio.ReadWriter) {
			conn.(*net.TCPConn).SetLinger(0)
			conn.Close()
		})
		return
	case "truncated body":
		good := env.wrap(goodAnswer(c.row.kind, tool), false)
		hijack(w, fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(good)), func(conn net.Conn, rw *bufio.ReadWriter) {
			rw.WriteString(good[:len(good)/2])
			rw.Flush()
			conn.Close()
		})
		return
	case "5xx after send":
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, "<html><body><h1>502 Bad Gateway</h1></body></html>")
		return
	case "dies mid-call":
		hijack(w, "", func(conn net.Conn, _ *bufio.ReadWriter) { conn.Close() })
		return
	}
	status := http.StatusOK
	switch {
	case c.class.name == "500 with ok":
		status = http.StatusInternalServerError
	case c.class.name == "422 with ok":
		status = http.StatusUnprocessableEntity
	case c.class.rateLimited && env.id == nil:
		// A VisualQ server refuses over MCP inside the tool's result.
		status = http.StatusTooManyRequests
	case c.class.reserved != "":
		status = http.StatusForbidden
	}
	answerJSON(w, status, c.hostileAnswer(tool, env))
}

// serveMCP speaks enough MCP over streamable HTTP (initialize,
// notifications, tools/list with the registry's annotations, session
// end) for vq to reach tools/call.
func (c *promiseCell) serveMCP(w http.ResponseWriter, r *http.Request, body []byte) {
	if r.Method == http.MethodDelete {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	msg, ok := readRPC(body)
	if !ok {
		w.WriteHeader(http.StatusAccepted) // a notification
		return
	}
	w.Header().Set("Mcp-Session-Id", "promises")
	if msg.Method != "tools/call" {
		answerJSON(w, http.StatusOK, rpcAnswer(msg, "2025-11-25"))
		return
	}
	c.note(msg.Params.Name, msg.Params.Arguments)
	env := envelope{id: msg.ID}
	if msg.Params.Name != c.row.target {
		answerJSON(w, http.StatusOK, env.wrap(c.usual(msg.Params.Name), false))
		return
	}
	c.hostileHTTP(w, msg.Params.Name, env)
}

// rpcMessage is a JSON-RPC request as the stubs read it.
type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name            string         `json:"name"`
		Arguments       map[string]any `json:"arguments"`
		ProtocolVersion string         `json:"protocolVersion"`
	} `json:"params"`
}

// readRPC reads a request; false for a notification (no id).
func readRPC(b []byte) (rpcMessage, bool) {
	var msg rpcMessage
	json.Unmarshal(b, &msg)
	return msg, msg.ID != nil
}

// rpcAnswer answers every request but tools/call: initialize in the
// given revision, tools/list with the tools the rows call (their
// read-only and destructive hints as vq's registry has them), anything
// else (ping, logging/setLevel) with an empty result.
func rpcAnswer(msg rpcMessage, version string) string {
	result := `{}`
	switch msg.Method {
	case "initialize":
		result = fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"promises","version":"1"}}`, version)
	case "tools/list":
		schema := `{"type":"object","properties":{"runId":{"type":"string"},"scenarioLabel":{"type":"string"},"viewport":{"type":"string"},"confirm":{"type":"boolean"}}}`
		result = `{"tools":[` +
			`{"name":"get_run_failures","inputSchema":` + schema + `,"annotations":{"readOnlyHint":true}},` +
			`{"name":"get_job_status","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}},` +
			`{"name":"tracking_prove_jira_ticket","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":false,"destructiveHint":false}},` +
			`{"name":"approve_vrt_results","inputSchema":` + schema + `,"annotations":{"readOnlyHint":false,"destructiveHint":true}}]}`
	}
	return `{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"result":` + result + `}`
}

// hostileChildArg makes the test binary a stdio MCP server (TestMain):
// hostile as the class its next argument names for the tool after it,
// appending each tools/call to the file after that.
const hostileChildArg = "promise-child"

// hostileChild is the stdio server of the stdio rows, speaking MCP's
// line-delimited JSON-RPC on stdin and stdout.
func hostileChild(args []string) int {
	if len(args) != 3 {
		return 2
	}
	i := slices.IndexFunc(hostileClasses, func(c hostileClass) bool { return c.name == args[0] })
	if i < 0 {
		return 2
	}
	cell := &promiseCell{row: promiseRow{target: args[1]}, class: hostileClasses[i]}
	record := args[2]
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		msg, ok := readRPC(in.Bytes())
		if !ok {
			continue
		}
		answer := ""
		switch msg.Method {
		case "tools/call":
			f, err := os.OpenFile(record, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
			if err != nil {
				return 1
			}
			b, _ := json.Marshal(msg.Params.Arguments)
			fmt.Fprintf(f, "%s %s\n", msg.Params.Name, b)
			f.Close()
			env := envelope{id: msg.ID}
			switch {
			case msg.Params.Name != cell.row.target:
				answer = env.wrap(cell.usual(msg.Params.Name), false)
			case cell.class.name == "dies mid-call":
				return 3
			default:
				answer = cell.hostileAnswer(msg.Params.Name, env)
			}
		case "initialize":
			answer = rpcAnswer(msg, msg.Params.ProtocolVersion)
		default:
			answer = rpcAnswer(msg, "")
		}
		out.WriteString(answer + "\n")
		out.Flush()
	}
	return 0
}

func withProgressToken(p *mcp.CallToolParams) *mcp.CallToolParams {
	p.SetProgressToken("promise")
	return p
}

// serveCell makes the row's call of vq mcp serve as an agent does and
// reads the result as an exit code: 0 for isError false, the exit of its
// ToolResponse's code otherwise, 1 for a JSON-RPC error. output is what
// the agent and stderr were given.
func serveCell(t *testing.T, ctx context.Context, env map[string]string, row promiseRow) (exit int, output string) {
	s := serveVQ(t, env, row.args...)
	params := *row.serveCall // the SDK writes the request's _meta: each cell its own
	params.Meta = maps.Clone(params.Meta)
	res, err := s.session.CallTool(ctx, &params)
	if err != nil {
		return 1, err.Error() + s.stderr.String()
	}
	b, _ := json.Marshal(res)
	if !res.IsError {
		return 0, string(b) + s.stderr.String()
	}
	var tr struct {
		Error       struct{ Code string }
		Recoverable bool
	}
	sc, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(sc, &tr)
	return max(exitcode.ForCode(tr.Error.Code, tr.Recoverable), 1), string(b) + s.stderr.String()
}

// tuiCell runs the row's command in a tmux pane, as a person sees it (the
// built vq, bin): Enter sends the first screen's action, the target, and q
// quits once its answer is drawn, so that the session exits with that
// answer. A failed answer is drawn with the exit code it gives ("vq
// exits"); one drawn as ok (a promise broken) is waited for until the
// bound, then quit on all the same.
func tuiCell(ctx context.Context, t *testing.T, bin string, env map[string]string, row promiseRow) (exit int, output string) {
	dir := t.TempDir()
	socket := dir + "/tmux.sock" // a private tmux server, gone with the directory
	tmux := func(args ...string) string {
		out, _ := exec.CommandContext(ctx, "tmux", append([]string{"-S", socket, "-f", os.DevNull}, args...)...).CombinedOutput()
		return string(out)
	}
	defer exec.Command("tmux", "-S", socket, "kill-server").Run()
	words := []string{"env", "-u", "NO_COLOR", "-u", "VQ_NO_TUI", "TERM=xterm-256color", "VQ_NO_KEYRING=1", "HOME=" + dir, "VQ_CONFIG=" + dir + "/config.json"}
	for k, v := range env {
		words = append(words, textsafe.ShellQuote(k+"="+v))
	}
	words = append(words, textsafe.ShellQuote(bin))
	for _, a := range row.args {
		words = append(words, textsafe.ShellQuote(a))
	}
	tmux("new-session", "-d", "-s", "vq", "-x", "120", "-y", "40", strings.Join(words, " ")+"; echo EXIT=$?; sleep 60")
	screen := ""
	drawn := func(what string, wait time.Duration) bool {
		for end := time.Now().Add(wait); time.Now().Before(end) && ctx.Err() == nil; time.Sleep(20 * time.Millisecond) {
			if screen = tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", "vq"); strings.Contains(screen, what) {
				return true
			}
		}
		return false
	}
	drawn("Approve Home desktop", promiseBound)
	tmux("send-keys", "-t", "vq", "Enter")
	drawn("vq exits", promiseBound)
	tmux("send-keys", "-t", "vq", "q")
	if !drawn("EXIT=", promiseBound) {
		return -1, screen
	}
	m := regexp.MustCompile(`EXIT=(\d+)`).FindStringSubmatch(screen)
	exit, _ = strconv.Atoi(m[1])
	return exit, screen
}
