package cmd

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/format"
	"github.com/visualq/vq/sandbox"
)

// recordingSandbox is a sandbox that records what it received: the body
// of each CI call by tool, and each call of the invoke endpoint. hook, when
// set, sees each CI call first (n counts that tool's calls from 1) and may
// answer it itself by returning true.
type recordingSandbox struct {
	*httptest.Server
	mu      sync.Mutex
	ci      map[string][]string
	invoked []api.Call
	hook    func(w http.ResponseWriter, tool string, n int) bool
}

func newCISandbox(t *testing.T, step time.Duration) *recordingSandbox {
	t.Helper()
	return newRecordingSandbox(t, sandbox.Options{JobStep: step, Rate: -1})
}

func newRecordingSandbox(t *testing.T, opts sandbox.Options) *recordingSandbox {
	t.Helper()
	s := &recordingSandbox{ci: map[string][]string{}}
	next := sandbox.New(opts).Handler()
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		s.mu.Lock()
		tool, isCI := strings.CutPrefix(r.URL.Path, "/api/ci/")
		if isCI {
			s.ci[tool] = append(s.ci[tool], string(body))
		} else if r.URL.Path == "/api/mcp/v1/invoke" {
			var call api.Call
			json.Unmarshal(body, &call)
			s.invoked = append(s.invoked, call)
		}
		n, hook := len(s.ci[tool]), s.hook
		s.mu.Unlock()
		if isCI && hook != nil && hook(w, tool, n) {
			return
		}
		next.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *recordingSandbox) env() map[string]string {
	return map[string]string{"VQ_BASE_URL": s.URL, "VQ_API_KEY": sandbox.KeyAdmin}
}

func (s *recordingSandbox) received(tool string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.ci[tool]...)
}

func (s *recordingSandbox) invokedTools() string {
	var names []string
	for _, c := range s.invokedCalls("") {
		names = append(names, c.Tool)
	}
	return strings.Join(names, ",")
}

// invokedCalls are the invoke endpoint's calls of tool, or all of them
// for "".
func (s *recordingSandbox) invokedCalls(tool string) []api.Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	var calls []api.Call
	for _, c := range s.invoked {
		if tool == "" || c.Tool == tool {
			calls = append(calls, c)
		}
	}
	return calls
}

// fastWait polls often, so a sandbox run with a short JobStep is followed
// step by step.
var fastWait = []string{"--wait", "--interval", "2ms"}

func TestCIRunWaitPassed(t *testing.T) {
	s := newCISandbox(t, time.Millisecond)
	stdout, stderr, exit := runVQ(t, s.env(), append([]string{"ci", "run-vrt", "branch=main", "commit:=42"}, fastWait...)...)
	if exit != 0 {
		t.Fatalf("exit %d\nstderr: %s", exit, stderr)
	}
	if !strings.HasPrefix(stdout, "run run_ci_0001 passed: 12 checks\n") || !strings.Contains(stdout, "status            passed") {
		t.Errorf("stdout:\n%s", stdout)
	}
	// Not a terminal: one plain line per change, ending with the verdict.
	if !strings.Contains(stderr, "run_ci_0001 completed 12/12 passed (0s)\n") || strings.Contains(stderr, "\x1b") {
		t.Errorf("stderr:\n%q", stderr)
	}
	if got := s.received(api.ToolRunVRT); len(got) != 1 || got[0] != `{"branch":"main","commit":42}` {
		t.Errorf("run_vrt received %q; want the args object as the body", got)
	}
	if polls := s.received(api.ToolRunStatus); len(polls) == 0 || polls[0] != `{"runId":"run_ci_0001"}` {
		t.Errorf("get_run_status received %q", polls)
	}
	if got := s.invokedTools(); got != "" {
		t.Errorf("a passed run needs no invoke call; got %s", got)
	}
}

func TestCIRunWaitFailedShowsTheFailures(t *testing.T) {
	s := newCISandbox(t, time.Millisecond)
	stdout, stderr, exit := runVQ(t, s.env(), append([]string{"ci", "run-vrt", "branch=feature/new-header"}, fastWait...)...)
	if exit != format.ExitRunFailed {
		t.Fatalf("exit %d, want %d (run_failed)\nstderr: %s", exit, format.ExitRunFailed, stderr)
	}
	// Shown as vq failures shows them: the summary, the table, the follow-ups.
	failures, _, _ := runVQ(t, s.env(), "failures", "run_ci_0001")
	if stdout != failures || !strings.Contains(stdout, "Product page   desktop") {
		t.Errorf("stdout:\n%s\nvq failures shows:\n%s", stdout, failures)
	}
	if !strings.Contains(stderr, "vq: run run_ci_0001 failed: 3 of 12 checks; to accept the changes as the new baseline: vq approve run_ci_0001\n") ||
		strings.Contains(stderr, "error:") {
		t.Errorf("stderr must give the verdict, not an error:\n%s", stderr)
	}
	if got := s.invokedTools(); got != "get_run_failures,get_run_failures" {
		t.Errorf("invoke calls: %s", got)
	}

	// Asking again without --wait reports the same verdict.
	again, _, exit := runVQ(t, s.env(), "ci", "status", "run_ci_0001")
	if exit != format.ExitRunFailed || again != failures {
		t.Errorf("vq ci status: exit %d\n%s", exit, again)
	}
}

// TestCIFailedRunInCIFormats renders the failed checks of a waited run as
// GitHub annotations, JUnit and JSON; each exits run_failed.
func TestCIFailedRunInCIFormats(t *testing.T) {
	s := newCISandbox(t, time.Millisecond)
	run := func(t *testing.T, flags ...string) string {
		t.Helper()
		args := append([]string{"ci", "run-vrt", "branch=feature/new-header"}, fastWait...)
		stdout, stderr, exit := runVQ(t, s.env(), append(args, flags...)...)
		if exit != format.ExitRunFailed {
			t.Fatalf("exit %d\nstderr: %s", exit, stderr)
		}
		return stdout
	}
	t.Run("github", func(t *testing.T) {
		stdout := run(t, "--format", "github")
		for _, want := range []string{
			"::error title=Visual change%3A Homepage [desktop]::Homepage on desktop changed: 6.3%25 of pixels differ\n",
			"::error title=Visual change%3A Homepage [mobile]::",
			"::error title=Visual change%3A Product page [desktop]::",
		} {
			if !strings.Contains(stdout, want) {
				t.Errorf("missing %q in:\n%s", want, stdout)
			}
		}
	})
	t.Run("junit", func(t *testing.T) {
		var doc struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Cases    []struct {
				Name    string    `xml:"name,attr"`
				Failure *struct{} `xml:"failure"`
			} `xml:"testsuite>testcase"`
		}
		stdout := run(t, "--format", "junit")
		if err := xml.Unmarshal([]byte(stdout), &doc); err != nil {
			t.Fatalf("not XML: %v\n%s", err, stdout)
		}
		if doc.Tests != 12 || doc.Failures != 3 || len(doc.Cases) != 12 || doc.Cases[0].Name != "Homepage [desktop]" || doc.Cases[0].Failure == nil {
			t.Errorf("junit: %+v", doc)
		}
	})
	t.Run("json", func(t *testing.T) {
		var doc struct {
			OK   bool
			Tool string
			Data struct {
				RunID  string
				Failed int
			}
		}
		stdout := run(t, "--json")
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil || !doc.OK || doc.Tool != api.ToolRunFailures || doc.Data.RunID == "" || doc.Data.Failed != 3 {
			t.Errorf("--json: %v\n%s", err, stdout)
		}
	})
}

func TestCIRunVerdictsHaveTheirExitCodes(t *testing.T) {
	s := newCISandbox(t, time.Millisecond)
	for _, tc := range []struct {
		cmd, branch, status string
		exit                int
		says                string
	}{
		{"run-vrt", "broken", "error", format.ExitRunError, "vq: run run_ci_0001 ended in error\n"},
		{"run-perf", "cancelled", "cancelled", format.ExitRunCancelled, "vq: run run_ci_0002 cancelled\n"},
	} {
		stdout, stderr, exit := runVQ(t, s.env(), append([]string{"ci", tc.cmd, "branch=" + tc.branch}, fastWait...)...)
		if exit != tc.exit || !strings.HasSuffix(stderr, tc.says) || !strings.Contains(stdout, "status            "+tc.status+"\n") {
			t.Errorf("%s branch=%s: exit %d, want %d\nstdout: %s\nstderr: %s", tc.cmd, tc.branch, exit, tc.exit, stdout, stderr)
		}
	}
	if got := s.invokedTools(); got != "" {
		t.Errorf("only a failed run fetches failures; invoked %s", got)
	}
}

// TestCIWaitTimeout: a run still going at --timeout exits timeout with the
// command that resumes, and nothing says it failed.
func TestCIWaitTimeout(t *testing.T) {
	s := newCISandbox(t, time.Hour)
	stdout, stderr, exit := runVQ(t, s.env(), "ci", "run-vrt", "branch=feature/new-header", "--wait", "--interval", "5ms", "--wait-timeout", "300ms")
	if exit != format.ExitTimeout {
		t.Fatalf("exit %d, want %d\nstderr: %s", exit, format.ExitTimeout, stderr)
	}
	if !strings.HasSuffix(stderr, "vq: to resume: vq ci status run_ci_0001 --wait\n") || !strings.Contains(stderr, "it may still finish") {
		t.Errorf("stderr:\n%s", stderr)
	}
	if out := strings.ToLower(stdout + stderr); strings.Contains(out, "fail") || strings.Contains(out, "error") {
		t.Errorf("a timeout must not read as a failed run:\nstdout: %s\nstderr: %s", stdout, stderr)
	}
}

// With --json a run still going at --timeout is still one document: the
// client-made timeout answer, so a script reads why it ended.
func TestCIWaitTimeoutJSON(t *testing.T) {
	s := newCISandbox(t, time.Hour)
	stdout, stderr, exit := runVQ(t, s.env(), "ci", "run-vrt", "branch=feature/new-header", "--wait", "--interval", "5ms", "--wait-timeout", "300ms", "--json")
	if exit != format.ExitTimeout {
		t.Fatalf("exit %d, want %d\nstderr: %s", exit, format.ExitTimeout, stderr)
	}
	var doc struct {
		OK          bool   `json:"ok"`
		Tool        string `json:"tool"`
		Recoverable bool   `json:"recoverable"`
		Error       struct{ Code, Message string }
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, stdout)
	}
	if doc.OK || doc.Tool != api.ToolRunStatus || doc.Error.Code != api.CodeTimeout || !doc.Recoverable ||
		doc.Error.Message != "run run_ci_0001 has no verdict yet after 300ms; it may still finish" {
		t.Errorf("document: %+v", doc)
	}
	if !strings.HasSuffix(stderr, "vq: to resume: vq ci status run_ci_0001 --wait\n") {
		t.Errorf("stderr:\n%s", stderr)
	}
}

// TestCIWaitInterrupted: Ctrl-C (the context cancelled mid-wait) exits 130
// with the command that resumes.
func TestCIWaitInterrupted(t *testing.T) {
	s := newCISandbox(t, time.Hour)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.hook = func(_ http.ResponseWriter, tool string, n int) bool {
		if tool == api.ToolRunStatus && n == 2 {
			cancel()
		}
		return false
	}
	_, stderr, exit := vqRun{Env: s.env(), Ctx: ctx}.run(t, "ci", "run-vrt", "--wait", "--interval", "5ms")
	if exit != format.ExitInterrupted {
		t.Fatalf("exit %d, want 130\nstderr: %s", exit, stderr)
	}
	if !strings.HasSuffix(stderr, "vq: to resume: vq ci status run_ci_0001 --wait\nvq: interrupted\n") {
		t.Errorf("stderr:\n%s", stderr)
	}
}

// TestCIWaitOutlastsGatewayErrors: 502s while waiting are retried and
// reported, and the wait goes on to the verdict.
func TestCIWaitOutlastsGatewayErrors(t *testing.T) {
	s := newCISandbox(t, time.Millisecond)
	s.hook = func(w http.ResponseWriter, tool string, n int) bool {
		if tool != api.ToolRunStatus || n > 3 {
			return false
		}
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, "<html><body>Bad Gateway</body></html>")
		return true
	}
	stdout, stderr, exit := runVQ(t, s.env(), append([]string{"ci", "run-vrt"}, fastWait...)...)
	if exit != 0 || !strings.HasPrefix(stdout, "run run_ci_0001 passed") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", exit, stdout, stderr)
	}
	if !strings.Contains(stderr, "run_ci_0001 poll failed: http_error: HTTP 502 Bad Gateway: Bad Gateway; retrying in") {
		t.Errorf("stderr:\n%s", stderr)
	}
}

func TestCIAnswerThatIsNotJSONIsAnHTTPError(t *testing.T) {
	s := newCISandbox(t, time.Millisecond)
	s.hook = func(w http.ResponseWriter, tool string, _ int) bool {
		io.WriteString(w, "<html><body>Welcome to nginx!</body></html>")
		return true
	}
	want := format.ForResponse(&api.ToolResponse{Error: &api.ToolError{Code: api.CodeHTTPError}, Recoverable: new(true)})
	stdout, stderr, exit := runVQ(t, s.env(), "ci", "run-vrt", "--wait")
	if exit != want || stdout != "" || !strings.Contains(stderr, "error: http_error: HTTP 200 OK: Welcome to nginx! (recoverable, exit ") {
		t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", exit, want, stdout, stderr)
	}
	stdout, _, exit = runVQ(t, s.env(), "ci", "status", "run_1", "--json")
	var doc struct {
		OK    bool
		Tool  string
		Error struct{ Code string }
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || exit != want || doc.OK || doc.Tool != api.ToolRunStatus || doc.Error.Code != api.CodeHTTPError {
		t.Errorf("--json: exit %d, %v\n%s", exit, err, stdout)
	}
}

func TestCICallPrintsTheAnswer(t *testing.T) {
	s := newCISandbox(t, time.Millisecond)
	stdout, stderr, exit := runVQ(t, s.env(), "ci", "call", "run_vrt", "--args", `{"branch":"main"}`)
	if exit != 0 || stdout != `{"runId":"run_ci_0001","status":"queued","url":"`+s.URL+`/sandbox/runs/run_ci_0001"}`+"\n" || stderr != "" {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", exit, stdout, stderr)
	}
	stdout, _, exit = runVQ(t, s.env(), "ci", "call", "get_run_status", "runId=run_ci_0001", "--jq", ".data.runId")
	if exit != 0 || stdout != "run_ci_0001\n" {
		t.Errorf("--jq sees the CI answer under .data: exit %d, %q", exit, stdout)
	}

	notFound := format.ForResponse(&api.ToolResponse{Error: &api.ToolError{Code: api.CodeNotFound}, Recoverable: new(false)})
	stdout, stderr, exit = runVQ(t, s.env(), "ci", "call", "run_everything")
	if exit != notFound || stdout != "" || !strings.HasPrefix(stderr, `error: not_found: unknown CI tool "run_everything"`) {
		t.Errorf("unknown tool: exit %d, want %d\nstdout: %s\nstderr: %s", exit, notFound, stdout, stderr)
	}
	_, stderr, exit = runVQ(t, s.env(), "ci", "call", "get_run_status", "--wait")
	if exit != format.ExitUsage {
		t.Errorf("vq ci call --wait: exit %d, stderr %s", exit, stderr)
	}
}

func TestCIRunWithoutWaitSaysHowToWait(t *testing.T) {
	s := newCISandbox(t, time.Hour)
	env := s.env()
	env["VQ_PROJECT"] = "shop-web"
	stdout, stderr, exit := runVQ(t, env, "ci", "run-perf", "branch=main", "--json", "--jq", ".data.status")
	if exit != 0 || stdout != "queued\n" || stderr != "vq: wait for its verdict with: vq ci status run_ci_0001 --wait\n" {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", exit, stdout, stderr)
	}
	if got := s.received(api.ToolRunPerf); len(got) != 1 || got[0] != `{"branch":"main","project":"shop-web"}` {
		t.Errorf("run_perf received %q; want the configured project with the args", got)
	}
}

func TestCIWithoutCredentialSendsNothing(t *testing.T) {
	s := newCISandbox(t, time.Millisecond)
	_, stderr, exit := runVQ(t, map[string]string{"VQ_BASE_URL": s.URL}, "ci", "run-vrt", "--wait")
	if exit != format.ExitUnauthorized || !strings.Contains(stderr, "no API key") || len(s.received(api.ToolRunVRT)) != 0 {
		t.Errorf("exit %d, stderr %s", exit, stderr)
	}
	_, stderr, exit = runVQ(t, map[string]string{"VQ_BASE_URL": s.URL, "VQ_API_KEY": "wrong"}, "ci", "status", "run_1")
	if exit != format.ExitUnauthorized || !strings.Contains(stderr, "vq auth login") {
		t.Errorf("401: exit %d, stderr %s", exit, stderr)
	}
}
