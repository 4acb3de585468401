package cmd

import (
	"context"
	"encoding/json"
	"github.com/visualq/vq/cmd/cmdtest"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/testkit"
)

// readStepOutputs reads a $GITHUB_OUTPUT file as the Actions runner does:
// name=value lines, and name<<DELIMITER blocks up to a line that is the
// delimiter. A block that never ends fails the test, as it fails the step.
func readStepOutputs(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	outputs := map[string]string{}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if line == "" {
			continue
		}
		eq, heredoc := strings.Index(line, "="), strings.Index(line, "<<")
		if eq >= 0 && (heredoc < 0 || eq < heredoc) {
			outputs[line[:eq]] = line[eq+1:]
			continue
		}
		if heredoc < 0 {
			t.Fatalf("line %d of GITHUB_OUTPUT is neither form: %q", i+1, line)
		}
		name, delimiter := line[:heredoc], line[heredoc+2:]
		var value []string
		for i++; i < len(lines) && lines[i] != delimiter; i++ {
			value = append(value, lines[i])
		}
		if i == len(lines) {
			t.Fatalf("GITHUB_OUTPUT: %s<<%s never ends:\n%s", name, delimiter, data)
		}
		outputs[name] = strings.Join(value, "\n")
	}
	return outputs
}

// Two runs in one step write two sets of outputs with delimiters of their
// own, which no value can end early.
func TestStepOutputDelimitersAreRandom(t *testing.T) {
	t.Parallel()
	s := newCISandbox(t, time.Millisecond)
	path := filepath.Join(t.TempDir(), "output")
	env := s.Env()
	env["GITHUB_OUTPUT"] = path
	runVQ(t, env, append([]string{"ci", "run-vrt"}, fastWait...)...)
	runVQ(t, env, append([]string{"ci", "run-vrt"}, fastWait...)...)
	data, _ := os.ReadFile(path)
	var delimiters []string
	for _, line := range strings.Split(string(data), "\n") {
		if _, d, ok := strings.Cut(line, "<<"); ok && !slices.Contains(delimiters, d) {
			delimiters = append(delimiters, d)
		}
	}
	if len(delimiters) != 2 || len(delimiters[0]) < 20 {
		t.Errorf("delimiters %q; want one random one per run", delimiters)
	}
	if got := readStepOutputs(t, path); got["run-id"] != "run_ci_0002" {
		t.Errorf("the later run's outputs win: %v", got)
	}
}

// --junit writes the report beside what stdout shows: for each verdict of
// vq ci ... --wait and for a wait that timed out, valid against the
// Jenkins schema; stdout is what it is without --junit.
func TestJUnitFileBesideStdout(t *testing.T) {
	t.Parallel()
	s := newCISandbox(t, time.Millisecond)
	slow := newCISandbox(t, time.Hour)
	for _, tc := range []struct {
		name   string
		server *cmdtest.Sandbox
		args   []string
		exit   int
		counts string // tests/failures/errors of the report
	}{
		{"passed", s, append([]string{"ci", "run-vrt", "branch=main", "--format", "github"}, fastWait...), 0, `tests="12" failures="0" errors="0"`},
		{"failed", s, append([]string{"ci", "run-vrt", "branch=feature/new-header", "--json"}, fastWait...), exitcode.RunFailed, `tests="12" failures="3" errors="0"`},
		{"error", s, append([]string{"ci", "run-perf", "branch=broken"}, fastWait...), exitcode.RunError, `tests="13" failures="0" errors="1"`},
		{"cancelled", s, append([]string{"ci", "run-vrt", "branch=cancelled", "--format", "markdown"}, fastWait...), exitcode.RunCancelled, `tests="13" failures="0" errors="1"`},
		{"timeout", slow, []string{"ci", "run-vrt", "--wait", "--interval", "5ms", "--wait-timeout", "100ms"}, exitcode.Timeout, `tests="14" failures="0" errors="1"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "reports", "vq.xml")
			stdout, stderr, exit := runVQ(t, tc.server.Env(), append(tc.args, "--junit", path)...)
			if exit != tc.exit {
				t.Fatalf("exit %d, want %d\n%s", exit, tc.exit, stderr)
			}
			report, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(report), "<testsuites name=\"vq\" "+tc.counts+">") {
				t.Errorf("report:\n%.600s", report)
			}
			testkit.ValidJUnit(t, report)
			if strings.Contains(stdout, "<testsuites") {
				t.Errorf("the report went to stdout too:\n%s", stdout)
			}
		})
	}
}

// jsonData decodes the one document on stdout and returns its data.
func jsonData(t *testing.T, stdout string) map[string]any {
	t.Helper()
	var doc struct {
		OK    bool
		Data  map[string]any
		Error struct{ Code string }
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || doc.OK {
		t.Fatalf("stdout is not one failed document: %v\n%s", err, stdout)
	}
	return doc.Data
}

// A run's wait that is interrupted or ends in an error keeps the run's
// handle in its document, and stderr the command that resumes (timed out:
// cmd/ci/testdata/script/ci_wait_timeout.txtar).
func TestCIFailedWaitKeepsTheHandle(t *testing.T) {
	t.Parallel()
	resume := "hint: to resume: vq ci status run_ci_0001 --wait\n"
	t.Run("interrupted", func(t *testing.T) {
		s, ctx := interruptedAtSecondPoll(t)
		stdout, stderr, exit := vqRun{Env: s.Env(), Ctx: ctx}.run(t, "ci", "run-vrt", "--wait", "--interval", "5ms", "--json")
		data := jsonData(t, stdout)
		if exit != exitcode.Interrupted || data["runId"] != "run_ci_0001" || data["url"] != s.URL+"/sandbox/runs/run_ci_0001" ||
			!strings.HasSuffix(stderr, resume+"error: interrupted\n") || strings.Count(stdout, "\n") != 1 {
			t.Errorf("exit %d, data %v\nstdout: %s\nstderr: %s", exit, data, stdout, stderr)
		}
	})
	t.Run("error", func(t *testing.T) {
		s := newCISandbox(t, time.Hour)
		s.Hook = func(w http.ResponseWriter, tool string, n int) bool {
			if tool != api.ToolRunStatus || n < 2 {
				return false
			}
			w.WriteHeader(http.StatusForbidden)
			w.Write([]byte(`{"error":{"code":"scope_denied","message":"this key may not read runs"}}`))
			return true
		}
		stdout, stderr, exit := runVQ(t, s.Env(), "ci", "run-vrt", "--wait", "--interval", "5ms", "--json")
		data := jsonData(t, stdout)
		if exit != exitcode.ForCode(api.CodeScopeDenied, false) || data["runId"] != "run_ci_0001" || data["status"] != "queued" ||
			!strings.Contains(stderr, "error: scope_denied: this key may not read runs") || !strings.HasSuffix(stderr, resume) {
			t.Errorf("exit %d, data %v\n%s", exit, data, stderr)
		}
	})
}

// A job's watch that is interrupted keeps the job's ID in its document
// (vq watch, and every --wait on a job); timed out and refused:
// prove/testdata/script/watch_*.txtar.
func TestJobWaitKeepsTheHandle(t *testing.T) {
	t.Parallel()
	running := map[string][]testkit.Reply{"job_1": {testkit.JobStep("job_1", "running", 1, 9, "slow")}}
	t.Run("interrupted", func(t *testing.T) {
		s := testkit.NewJobServer(t, testkit.Reply{}, running)
		ctx, cancel := context.WithCancel(context.Background())
		defer time.AfterFunc(50*time.Millisecond, cancel).Stop()
		stdout, stderr, exit := vqRun{Env: s.Env(), Ctx: ctx}.run(t, "watch", "job_1", "--interval", "2ms", "--json")
		if data := jsonData(t, stdout); exit != exitcode.Interrupted || data["jobId"] != "job_1" ||
			!strings.HasSuffix(stderr, "hint: to resume: vq watch job_1\nerror: interrupted\n") {
			t.Errorf("exit %d, data %v\n%s", exit, data, stderr)
		}
	})
}
