package cmd

import (
	"context"
	"encoding/xml"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/visualq/vq/cmd/cmdtest"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/testkit"
	"github.com/visualq/vq/sandbox"
)

func newCISandbox(t *testing.T, step time.Duration) *cmdtest.Sandbox {
	t.Helper()
	return cmdtest.NewSandbox(t, sandbox.Options{JobStep: step, Rate: -1})
}

// fastWait polls often, so a sandbox run with a short JobStep is followed
// step by step.
var fastWait = []string{"--wait", "--interval", "2ms"}

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
func interruptedAtSecondPoll(t *testing.T) (*cmdtest.Sandbox, context.Context) {
	s := newCISandbox(t, time.Hour)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	s.Hook = func(_ http.ResponseWriter, tool string, n int) bool {
		if tool == api.ToolRunStatus && n == 2 {
			cancel()
		}
		return false
	}
	return s, ctx
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
		cases                            int // the passes not listed are one
		runError                         string
	}{
		{"main", 0, 12, 0, 0, 0, 1, ""},
		{"feature/new-header", exitcode.RunFailed, 12, 3, 0, 0, 4, ""},
		{"broken", exitcode.RunError, 13, 0, 1, 6, 8, "run_error"},
		{"cancelled", exitcode.RunCancelled, 13, 0, 1, 9, 11, "run_cancelled"},
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
					if c.Name != "run" || c.Error.Type != tc.runError {
						t.Errorf("errored case %+v; want the run's, type %s", c, tc.runError)
					}
				case c.Skipped != nil:
					skipped++
				}
			}
			if doc.Tests != tc.tests || len(doc.Suite.Cases) != tc.cases || doc.Failures != tc.failures || doc.Errors != tc.errors || doc.Suite.Skipped != tc.skipped ||
				failures != tc.failures || errors != tc.errors || skipped != tc.skipped {
				t.Errorf("tests %d (%d cases), failures %d/%d, errors %d/%d, skipped %d/%d; want %d, %d, %d, %d\n%s",
					doc.Tests, len(doc.Suite.Cases), doc.Failures, failures, doc.Errors, errors, doc.Suite.Skipped, skipped,
					tc.tests, tc.failures, tc.errors, tc.skipped, stdout)
			}
		})
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
		!strings.HasPrefix(lines[10], "::notice title=Visual run run_100k::99990 more errors not annotated") ||
		!strings.Contains(lines[10], s.URL+"/sandbox/runs/run_100k, vq failures run_100k") {
		t.Errorf("%d lines:\n%.3000s", len(lines), stdout)
	}
	written, _ := os.ReadFile(summary)
	if len(written) > 1<<20 || !strings.HasSuffix(string(written), "`vq failures run_100k`._\n") {
		t.Errorf("step summary: %d bytes, ending %q", len(written), written[max(0, len(written)-200):])
	}
}
