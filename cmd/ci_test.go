package cmd

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/testkit"
	"github.com/visualq/vq/sandbox"
)

// recordingSandbox is a sandbox that records what it received. hook, when
// set, sees each CI call first (n counts that tool's calls from 1) and may
// answer it itself by returning true.
type recordingSandbox struct {
	*testkit.Server
	hook func(w http.ResponseWriter, tool string, n int) bool
}

func newCISandbox(t *testing.T, step time.Duration) *recordingSandbox {
	t.Helper()
	return newRecordingSandbox(t, sandbox.Options{JobStep: step, Rate: -1})
}

func newRecordingSandbox(t testing.TB, opts sandbox.Options) *recordingSandbox {
	t.Helper()
	s := &recordingSandbox{}
	next := sandbox.New(opts).Handler()
	s.Server = testkit.Wrap(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tool, isCI := strings.CutPrefix(r.URL.Path, "/api/ci/")
		if isCI && s.hook != nil && s.hook(w, tool, len(s.received(tool))) {
			return
		}
		next.ServeHTTP(w, r)
	}))
	s.Key = sandbox.KeyAdmin
	return s
}

// received are the bodies of the CI calls of tool.
func (s *recordingSandbox) received(tool string) []string {
	var bodies []string
	for _, c := range s.CallsOf(tool) {
		if c.CI {
			bodies = append(bodies, string(c.Raw))
		}
	}
	return bodies
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
func (s *recordingSandbox) invokedCalls(tool string) []testkit.Call {
	var calls []testkit.Call
	for _, c := range s.Calls() {
		if c.Path == "/api/mcp/v1/invoke" && (tool == "" || c.Tool == tool) {
			calls = append(calls, c)
		}
	}
	return calls
}

// fastWait polls often, so a sandbox run with a short JobStep is followed
// step by step.
var fastWait = []string{"--wait", "--interval", "2ms"}

func TestCIRunWaitPassed(t *testing.T) {
	t.Parallel()
	s := newCISandbox(t, time.Millisecond)
	stdout, stderr, exit := runVQ(t, s.Env(), append([]string{"ci", "run-vrt", "branch=main", "commit:=42"}, fastWait...)...)
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
	t.Parallel()
	s := newCISandbox(t, time.Millisecond)
	stdout, stderr, exit := runVQ(t, s.Env(), append([]string{"ci", "run-vrt", "branch=feature/new-header"}, fastWait...)...)
	if exit != exitcode.RunFailed {
		t.Fatalf("exit %d, want %d (run_failed)\nstderr: %s", exit, exitcode.RunFailed, stderr)
	}
	// The run, then its failing checks as vq failures shows them: the
	// table and the follow-ups.
	for _, want := range []string{"run run_ci_0001 failed: 3 of 12 checks\n", "status            failed\n", "failures (3):\n",
		"Product page   desktop", "vq diff run_ci_0001 --scenario 'Product page' --viewport desktop"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "run run_ci_0001 failed: 3 of 12 checks\nhint: to accept the changes as the new baseline: vq approve run_ci_0001\n") ||
		strings.Contains(stderr, "error:") {
		t.Errorf("stderr must give the verdict, not an error:\n%s", stderr)
	}
	if got := s.invokedTools(); got != "get_run_failures" {
		t.Errorf("invoke calls: %s", got)
	}

	// Asking again without --wait reports the same verdict.
	again, _, exit := runVQ(t, s.Env(), "ci", "status", "run_ci_0001")
	if exit != exitcode.RunFailed || again != stdout {
		t.Errorf("vq ci status: exit %d\n%s", exit, again)
	}
}

// TestCIFailedRunInCIFormats renders the failed checks of a waited run as
// GitHub annotations, JUnit and JSON; each exits run_failed.
func TestCIFailedRunInCIFormats(t *testing.T) {
	t.Parallel()
	s := newCISandbox(t, time.Millisecond)
	run := func(t *testing.T, flags ...string) string {
		t.Helper()
		args := append([]string{"ci", "run-vrt", "branch=feature/new-header"}, fastWait...)
		stdout, stderr, exit := runVQ(t, s.Env(), append(args, flags...)...)
		if exit != exitcode.RunFailed {
			t.Fatalf("exit %d\nstderr: %s", exit, stderr)
		}
		return stdout
	}
	t.Run("github", func(t *testing.T) {
		stdout := run(t, "--format", "github")
		for _, want := range []string{
			"::error title=Visual change%3A Homepage [desktop]::Homepage on desktop changed: 6.3%25 of pixels differ%0ADiff image: " + s.URL + "/sandbox/images/run_ci_0001/Homepage/desktop/diff.png%0ARun: " + s.URL + "/sandbox/runs/run_ci_0001\n",
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
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil || !doc.OK || doc.Tool != api.ToolRunStatus || doc.Data.RunID == "" || doc.Data.Failed != 3 {
			t.Errorf("--json: %v\n%s", err, stdout)
		}
	})
}

// TestCIWaitTimeout: a run still going at --timeout exits timeout with the
// command that resumes, and nothing says it failed.
func TestCIWaitTimeout(t *testing.T) {
	t.Parallel()
	s := newCISandbox(t, time.Hour)
	stdout, stderr, exit := runVQ(t, s.Env(), "ci", "run-vrt", "branch=feature/new-header", "--wait", "--interval", "5ms", "--wait-timeout", "300ms")
	if exit != exitcode.Timeout {
		t.Fatalf("exit %d, want %d\nstderr: %s", exit, exitcode.Timeout, stderr)
	}
	if !strings.HasSuffix(stderr, "hint: to resume: vq ci status run_ci_0001 --wait\n") || !strings.Contains(stderr, "it may still finish") {
		t.Errorf("stderr:\n%s", stderr)
	}
	if out := strings.ToLower(stdout + stderr); strings.Contains(out, "fail") || strings.Contains(out, "error") {
		t.Errorf("a timeout must not read as a failed run:\nstdout: %s\nstderr: %s", stdout, stderr)
	}
}

// With --json a run still going at --timeout is still one document: the
// client-made timeout answer, so a script reads why it ended.
func TestCIWaitTimeoutJSON(t *testing.T) {
	t.Parallel()
	s := newCISandbox(t, time.Hour)
	stdout, stderr, exit := runVQ(t, s.Env(), "ci", "run-vrt", "branch=feature/new-header", "--wait", "--interval", "5ms", "--wait-timeout", "300ms", "--json")
	if exit != exitcode.Timeout {
		t.Fatalf("exit %d, want %d\nstderr: %s", exit, exitcode.Timeout, stderr)
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
	if !strings.HasSuffix(stderr, "hint: to resume: vq ci status run_ci_0001 --wait\n") {
		t.Errorf("stderr:\n%s", stderr)
	}
}

// TestCIWaitInterrupted: Ctrl-C (the context cancelled mid-wait) exits 130
// with the command that resumes.
func TestCIWaitInterrupted(t *testing.T) {
	t.Parallel()
	s, ctx := interruptedAtSecondPoll(t)
	_, stderr, exit := vqRun{Env: s.Env(), Ctx: ctx}.run(t, "ci", "run-vrt", "--wait", "--interval", "5ms")
	if exit != exitcode.Interrupted {
		t.Fatalf("exit %d, want 130\nstderr: %s", exit, stderr)
	}
	if !strings.HasSuffix(stderr, "hint: to resume: vq ci status run_ci_0001 --wait\nerror: interrupted\n") {
		t.Errorf("stderr:\n%s", stderr)
	}
}

// interruptedAtSecondPoll is a sandbox of runs that never end and the
// context of a command that Ctrl-C ends at the run's second poll.
func interruptedAtSecondPoll(t *testing.T) (*recordingSandbox, context.Context) {
	s := newCISandbox(t, time.Hour)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	s.hook = func(_ http.ResponseWriter, tool string, n int) bool {
		if tool == api.ToolRunStatus && n == 2 {
			cancel()
		}
		return false
	}
	return s, ctx
}

// TestCIWaitOutlastsGatewayErrors: 502s while waiting are retried and
// reported, and the wait goes on to the verdict.
func TestCIWaitOutlastsGatewayErrors(t *testing.T) {
	t.Parallel()
	s := newCISandbox(t, time.Millisecond)
	s.hook = func(w http.ResponseWriter, tool string, n int) bool {
		if tool != api.ToolRunStatus || n > 3 {
			return false
		}
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, "<html><body>Bad Gateway</body></html>")
		return true
	}
	stdout, stderr, exit := runVQ(t, s.Env(), append([]string{"ci", "run-vrt"}, fastWait...)...)
	if exit != 0 || !strings.HasPrefix(stdout, "run run_ci_0001 passed") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", exit, stdout, stderr)
	}
	if !strings.Contains(stderr, "run_ci_0001 poll failed: http_error: HTTP 502 Bad Gateway: Bad Gateway; retrying in") {
		t.Errorf("stderr:\n%s", stderr)
	}
}

func TestCIAnswerThatIsNotJSONIsAnHTTPError(t *testing.T) {
	t.Parallel()
	s := newCISandbox(t, time.Millisecond)
	s.hook = func(w http.ResponseWriter, tool string, _ int) bool {
		io.WriteString(w, "<html><body>Welcome to nginx!</body></html>")
		return true
	}
	want := exitcode.Of(exitcode.Shown(&api.ToolResponse{Error: &api.ToolError{Code: api.CodeHTTPError}, Recoverable: new(true)}))
	// A run started with that answer may have started: it is not started
	// again, and says so.
	stdout, stderr, exit := runVQ(t, s.Env(), "ci", "run-vrt", "--wait")
	if exit != exitcode.MaybeApplied || stdout != "" || !strings.Contains(stderr, "error: maybe_applied: run_vrt may have been applied: HTTP 200 OK: Welcome to nginx!; vq did not send it again") {
		t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", exit, exitcode.MaybeApplied, stdout, stderr)
	}
	if n := len(s.received("run_vrt")); n != 1 {
		t.Errorf("run_vrt sent %d times", n)
	}
	stdout, _, exit = runVQ(t, s.Env(), "ci", "status", "run_1", "--json")
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
	t.Parallel()
	s := newCISandbox(t, time.Millisecond)
	stdout, stderr, exit := runVQ(t, s.Env(), "ci", "call", "run_vrt", "--args", `{"branch":"main"}`)
	if exit != 0 || stdout != `{"runId":"run_ci_0001","status":"queued","url":"`+s.URL+`/sandbox/runs/run_ci_0001"}`+"\n" || stderr != "" {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", exit, stdout, stderr)
	}
	stdout, _, exit = runVQ(t, s.Env(), "ci", "call", "get_run_status", "runId=run_ci_0001", "--jq", ".data.runId")
	if exit != 0 || stdout != "run_ci_0001\n" {
		t.Errorf("--jq sees the CI answer under .data: exit %d, %q", exit, stdout)
	}

	notFound := exitcode.Of(exitcode.Shown(&api.ToolResponse{Error: &api.ToolError{Code: api.CodeNotFound}, Recoverable: new(false)}))
	stdout, stderr, exit = runVQ(t, s.Env(), "ci", "call", "run_everything")
	if exit != notFound || stdout != "" || !strings.HasPrefix(stderr, `error: not_found: unknown CI tool "run_everything"`) {
		t.Errorf("unknown tool: exit %d, want %d\nstdout: %s\nstderr: %s", exit, notFound, stdout, stderr)
	}
	_, stderr, exit = runVQ(t, s.Env(), "ci", "call", "get_run_status", "--wait")
	if exit != exitcode.Usage {
		t.Errorf("vq ci call --wait: exit %d, stderr %s", exit, stderr)
	}
}

func TestCIRunWithoutWaitSaysHowToWait(t *testing.T) {
	t.Parallel()
	s := newCISandbox(t, time.Hour)
	env := s.Env()
	env["VQ_PROJECT"] = "shop-web"
	stdout, stderr, exit := runVQ(t, env, "ci", "run-perf", "branch=main", "--json", "--jq", ".data.status")
	if exit != 0 || stdout != "queued\n" || stderr != "hint: wait for its verdict with: vq ci status run_ci_0001 --wait\n" {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", exit, stdout, stderr)
	}
	if got := s.received(api.ToolRunPerf); len(got) != 1 || got[0] != `{"branch":"main","project":"shop-web"}` {
		t.Errorf("run_perf received %q; want the configured project with the args", got)
	}
}

func TestCIWithoutCredentialSendsNothing(t *testing.T) {
	t.Parallel()
	s := newCISandbox(t, time.Millisecond)
	_, stderr, exit := runVQ(t, map[string]string{"VQ_BASE_URL": s.URL}, "ci", "run-vrt", "--wait")
	if exit != exitcode.Unauthorized || !strings.Contains(stderr, "no API key") || len(s.received(api.ToolRunVRT)) != 0 {
		t.Errorf("exit %d, stderr %s", exit, stderr)
	}
	_, stderr, exit = runVQ(t, map[string]string{"VQ_BASE_URL": s.URL, "VQ_API_KEY": "wrong"}, "ci", "status", "run_1")
	if exit != exitcode.Unauthorized || !strings.Contains(stderr, "vq auth login") {
		t.Errorf("401: exit %d, stderr %s", exit, stderr)
	}
}

// TestCIVerdictsInJUnit waits for a run of each kind with --format junit:
// the report parses and its counts say what the run did; a run that ended
// in error or was cancelled is never failures="0" errors="0", and the exit
// codes stay as the table says.
func TestCIVerdictsInJUnit(t *testing.T) {
	t.Parallel()
	s := newCISandbox(t, time.Millisecond)
	type testcase struct {
		Name    string `xml:"name,attr"`
		Skipped *struct {
			Message string `xml:"message,attr"`
		} `xml:"skipped"`
		Failure *struct {
			Text string `xml:",chardata"`
		} `xml:"failure"`
		Error *struct {
			Type string `xml:"type,attr"`
		} `xml:"error"`
	}
	for i, tc := range []struct {
		branch                           string
		exit                             int
		tests, failures, errors, skipped int
		runError                         string
	}{
		{"main", 0, 12, 0, 0, 0, ""},
		{"feature/new-header", exitcode.RunFailed, 12, 3, 0, 0, ""},
		{"broken", exitcode.RunError, 13, 0, 1, 6, "run_error"},
		{"cancelled", exitcode.RunCancelled, 13, 0, 1, 9, "run_cancelled"},
	} {
		t.Run(tc.branch, func(t *testing.T) {
			stdout, stderr, exit := runVQ(t, s.Env(), append([]string{"ci", "run-vrt", "branch=" + tc.branch, "--format", "junit"}, fastWait...)...)
			if exit != tc.exit {
				t.Fatalf("exit %d, want %d\nstderr: %s", exit, tc.exit, stderr)
			}
			var doc struct {
				Tests    int `xml:"tests,attr"`
				Failures int `xml:"failures,attr"`
				Errors   int `xml:"errors,attr"`
				Suite    struct {
					Skipped int        `xml:"skipped,attr"`
					Cases   []testcase `xml:"testcase"`
				} `xml:"testsuite"`
			}
			if err := xml.Unmarshal([]byte(stdout), &doc); err != nil {
				t.Fatalf("not XML: %v\n%s", err, stdout)
			}
			testkit.ValidJUnit(t, []byte(stdout))
			var failures, errors, skipped int
			runID := fmt.Sprintf("run_ci_%04d", i+1)
			for _, c := range doc.Suite.Cases {
				switch {
				case c.Failure != nil:
					failures++
					// Each failed check links its diff image and the run.
					if !regexp.MustCompile(`^Diff image: ` + regexp.QuoteMeta(s.URL+"/sandbox/images/"+runID+"/") + `\S+/diff\.png\nRun: ` + regexp.QuoteMeta(s.URL+"/sandbox/runs/"+runID) + "\n").MatchString(c.Failure.Text) {
						t.Errorf("failed case without its links: %+v", c)
					}
				case c.Error != nil:
					errors++
					if c.Name != "run "+runID || c.Error.Type != tc.runError {
						t.Errorf("errored case %+v; want the run's, type %s", c, tc.runError)
					}
				case c.Skipped != nil:
					skipped++
				}
			}
			if doc.Tests != tc.tests || len(doc.Suite.Cases) != tc.tests || doc.Failures != tc.failures || doc.Errors != tc.errors || doc.Suite.Skipped != tc.skipped ||
				failures != tc.failures || errors != tc.errors || skipped != tc.skipped {
				t.Errorf("tests %d (%d cases), failures %d/%d, errors %d/%d, skipped %d/%d; want %d, %d, %d, %d\n%s",
					doc.Tests, len(doc.Suite.Cases), doc.Failures, failures, doc.Errors, errors, doc.Suite.Skipped, skipped,
					tc.tests, tc.failures, tc.errors, tc.skipped, stdout)
			}
		})
	}
}

// TestCIVerdictsInGitHubAndMarkdown: --format github annotates an errored
// run as ::error and a cancelled one as ::warning, both linking the run,
// and writes the step summary; --format markdown states the verdict in its
// first line.
func TestCIVerdictsInGitHubAndMarkdown(t *testing.T) {
	t.Parallel()
	s := newCISandbox(t, time.Millisecond)
	summary := t.TempDir() + "/summary.md"
	env := s.Env()
	env["GITHUB_STEP_SUMMARY"] = summary
	ci := func(t *testing.T, branch, format string, exit int) string {
		t.Helper()
		stdout, stderr, code := runVQ(t, env, append([]string{"ci", "run-vrt", "branch=" + branch, "--format", format}, fastWait...)...)
		if code != exit {
			t.Fatalf("branch=%s --format %s: exit %d, want %d\nstderr: %s", branch, format, code, exit, stderr)
		}
		return stdout
	}
	run := s.URL + "/sandbox/runs/"
	if got, want := ci(t, "broken", "github", exitcode.RunError),
		"::error title=vq get_run_status::run run_ci_0001 ended in error after 6 of 12 checks; 6 did not run%0ARun: "+run+"run_ci_0001\n"; got != want {
		t.Errorf("errored run:\n got %q\nwant %q", got, want)
	}
	if got, want := ci(t, "cancelled", "github", exitcode.RunCancelled),
		"::warning title=vq get_run_status::run run_ci_0002 was cancelled after 3 of 12 checks; 9 did not run%0ARun: "+run+"run_ci_0002\n"; got != want {
		t.Errorf("cancelled run:\n got %q\nwant %q", got, want)
	}
	written, _ := os.ReadFile(summary)
	if !strings.HasPrefix(string(written), "### ❌ vq get\\_run\\_status: run run\\_ci\\_0001 ended in error") ||
		!strings.Contains(string(written), "\n### ⚠️ vq get\\_run\\_status: run run\\_ci\\_0002 was cancelled") {
		t.Errorf("step summary:\n%s", written)
	}

	for _, tc := range []struct {
		branch, first string
		exit          int
	}{
		{"main", "### ✅ vq get\\_run\\_status: 12 checks passed\n", 0},
		{"feature/new-header", "### ❌ vq get\\_run\\_status: 3 of 12 checks failed\n", exitcode.RunFailed},
		{"broken", "### ❌ vq get\\_run\\_status: run run\\_ci\\_0005 ended in error after 6 of 12 checks; 6 did not run\n", exitcode.RunError},
		{"cancelled", "### ⚠️ vq get\\_run\\_status: run run\\_ci\\_0006 was cancelled after 3 of 12 checks; 9 did not run\n", exitcode.RunCancelled},
	} {
		if got := ci(t, tc.branch, "markdown", tc.exit); !strings.HasPrefix(got, tc.first) {
			t.Errorf("branch=%s: markdown starts\n%.200s\nwant %q", tc.branch, got, tc.first)
		}
	}
	// The failed run's report shows its diffs and links each row.
	md := ci(t, "feature/new-header", "markdown", exitcode.RunFailed)
	images := s.URL + "/sandbox/images/run_ci_0007/"
	for _, want := range []string{
		"in run [`run_ci_0007`](" + run + "run_ci_0007)\n",
		"![diff of Homepage on mobile](" + images + "Homepage/mobile/diff.png)\n",
		"| Product page | desktop | 3.4% ██████▍ | failed | [diff](" + images + "Product%20page/desktop/diff.png) |\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q in:\n%s", want, md)
		}
	}
}

// TestCIGitHubOf100kFailures: vq failures run_100k --format github writes
// what GitHub shows (ten errors, one notice) and a step summary under 1 MiB.
func TestCIGitHubOf100kFailures(t *testing.T) {
	t.Parallel()
	s := newCISandbox(t, time.Millisecond)
	summary := t.TempDir() + "/summary.md"
	env := s.Env()
	env["GITHUB_STEP_SUMMARY"] = summary
	stdout, stderr, exit := runVQ(t, env, "failures", "run_100k", "--format", "github")
	if exit != 0 {
		t.Fatalf("exit %d\nstderr: %s", exit, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != 11 || strings.Count(stdout, "::error ") != 10 ||
		!strings.HasPrefix(lines[10], "::notice title=vq get_run_failures::99990 more errors not annotated") ||
		!strings.Contains(lines[10], s.URL+"/sandbox/runs/run_100k, vq failures run_100k") {
		t.Errorf("%d lines:\n%.3000s", len(lines), stdout)
	}
	written, _ := os.ReadFile(summary)
	if len(written) > 1<<20 || !strings.HasSuffix(string(written), "`vq failures run_100k`._\n") {
		t.Errorf("step summary: %d bytes, ending %q", len(written), written[max(0, len(written)-200):])
	}
}
