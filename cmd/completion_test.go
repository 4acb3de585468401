package cmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/visualq/vq/internal/testkit"
)

const runFailuresBody = `{"ok":true,"tool":"get_run_failures","summary":"3 of 12 checks failed.",
	"data":{"runId":"run_abc","failed":3,"total":12,"failures":[
		{"scenarioLabel":"Homepage","viewport":"desktop","mismatchPercent":4.2},
		{"scenarioLabel":"Homepage","viewport":"mobile","mismatchPercent":1.1},
		{"scenarioLabel":"Checkout","viewport":"desktop","mismatchPercent":0.4}]},
	"warnings":[],"nextActions":[]}`

// completeWith runs vq's hidden __complete command and returns the
// candidates (without descriptions) and the directive line.
func completeWith(t *testing.T, env map[string]string, args ...string) ([]string, string) {
	t.Helper()
	stdout, stderr, exit := runVQ(t, env, append([]string{"__complete"}, args...)...)
	if exit != 0 {
		t.Fatalf("__complete %q: exit %d, stderr %q", args, exit, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	var candidates []string
	for _, l := range lines[:len(lines)-1] {
		candidates = append(candidates, strings.SplitN(l, "\t", 2)[0])
	}
	return candidates, lines[len(lines)-1]
}

func TestCompletesArgumentKeysOfATool(t *testing.T) {
	t.Parallel()
	got, directive := completeWith(t, nil, "invoke", "get_diff_stats", "sce")
	if !slices.Equal(got, []string{"scenarioLabel="}) {
		t.Errorf("candidates = %q, want [scenarioLabel=]", got)
	}
	if directive != ":6" { // no space after "=", no files
		t.Errorf("directive = %q, want :6", directive)
	}
	got, _ = completeWith(t, nil, "invoke", "get_diff_stats", "runId=run_abc", "")
	if !slices.Equal(got, []string{"scenarioLabel=", "viewport="}) {
		t.Errorf("keys already given must not be offered again: %q", got)
	}
	got, _ = completeWith(t, nil, "invoke", "get_")
	if !slices.Equal(got, []string{"get_diff_stats", "get_job_status", "get_run_failures"}) {
		t.Errorf("tool names = %q", got)
	}
}

func TestCompletesScenariosAndViewportsOfARunsFailures(t *testing.T) {
	t.Parallel()
	s := testkit.NewServer(t, testkit.Always(200, runFailuresBody))
	got, _ := completeWith(t, s.Env(), "diff", "run_abc", "--scenario", "")
	if !slices.Equal(got, []string{"Homepage", "Checkout"}) {
		t.Errorf("scenarios = %q", got)
	}
	got, _ = completeWith(t, s.Env(), "diff", "run_abc", "--scenario", "Homepage", "--viewport", "")
	if !slices.Equal(got, []string{"desktop", "mobile"}) {
		t.Errorf("viewports of Homepage = %q", got)
	}
	got, _ = completeWith(t, s.Env(), "invoke", "get_diff_stats", "runId=run_abc", "viewport=desktop", "scenarioLabel=")
	if !slices.Equal(got, []string{"scenarioLabel=Homepage", "scenarioLabel=Checkout"}) {
		t.Errorf("scenarioLabel values = %q", got)
	}
	for _, call := range s.Calls() {
		if call.Tool != "get_run_failures" || call.Args["runId"] != "run_abc" {
			t.Errorf("completing values sent %v", call)
		}
	}
}

func TestCompletionOffersNothingWhenTheServerFails(t *testing.T) {
	t.Parallel()
	s := testkit.NewServer(t, testkit.Always(502, "<html>bad gateway</html>"))
	got, directive := completeWith(t, s.Env(), "diff", "run_abc", "--scenario", "")
	if len(got) != 0 || directive != ":4" {
		t.Errorf("got %q %s, want nothing and no files", got, directive)
	}
}

func TestCompletesRecentlySeenRunAndJobIDs(t *testing.T) {
	t.Parallel()
	s := testkit.NewServer(t, testkit.Always(200, runFailuresBody))
	env := s.Env()
	env["XDG_CACHE_HOME"] = t.TempDir()
	if _, stderr, exit := runVQ(t, env, "failures", "run_abc"); exit != 0 {
		t.Fatalf("failures: exit %d %s", exit, stderr)
	}
	if got, _ := completeWith(t, env, "failures", ""); !slices.Equal(got, []string{"run_abc"}) {
		t.Errorf("recent run IDs = %q", got)
	}
	job := testkit.NewServer(t, testkit.Always(200, `{"ok":true,"tool":"run_tracking","summary":"queued","data":{"jobId":"job_42","status":"queued"},"warnings":[],"nextActions":[]}`))
	env["VQ_BASE_URL"] = job.URL
	if _, stderr, exit := runVQ(t, env, "tracking", "run"); exit != 0 {
		t.Fatalf("tracking run: exit %d %s", exit, stderr)
	}
	if got, _ := completeWith(t, env, "invoke", "get_job_status", "jobId="); !slices.Equal(got, []string{"jobId=job_42"}) {
		t.Errorf("recent job IDs = %q", got)
	}
}

func TestCompletesEnumFlags(t *testing.T) {
	t.Parallel()
	if got, _ := completeWith(t, nil, "failures", "--format", ""); !slices.Equal(got, []string{"text", "json", "markdown", "junit", "github"}) {
		t.Errorf("--format = %q", got)
	}
	if got, _ := completeWith(t, nil, "invoke", "--transport", ""); !slices.Equal(got, []string{"invoke", "mcp"}) {
		t.Errorf("--transport = %q", got)
	}
}

// TestCompletionScriptsLoad sources each shell's script in that shell; a
// shell that is not installed is skipped (.ci/run installs them).
func TestCompletionScriptsLoad(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ shell, check string }{
		{"bash", `source "$1" && complete -p vq`},
		{"zsh", `autoload -U compinit && compinit -u -d "$2/zcompdump" && source "$1" && print -r -- $_comps[vq]`},
		{"fish", `source $argv[1]; and complete -c vq`},
	} {
		t.Run(tc.shell, func(t *testing.T) {
			path, err := exec.LookPath(tc.shell)
			if err != nil {
				t.Skipf("%s is not installed", tc.shell)
			}
			stdout, stderr, exit := runVQ(t, nil, "completion", tc.shell)
			if exit != 0 || stdout == "" {
				t.Fatalf("vq completion %s: exit %d %s", tc.shell, exit, stderr)
			}
			dir := t.TempDir()
			script := filepath.Join(dir, "vq."+tc.shell)
			if err := os.WriteFile(script, []byte(stdout), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"-c", tc.check, tc.shell, script, dir}
			if tc.shell == "fish" {
				args = []string{"--no-config", "-c", tc.check, script, dir}
			}
			cmd := exec.Command(path, args...)
			cmd.Env = append(os.Environ(), "HOME="+dir)
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "vq") {
				t.Fatalf("%s did not load the script: %v\n%s", tc.shell, err, out)
			}
		})
	}
}

func TestCompletionRejectsAnUnknownShell(t *testing.T) {
	t.Parallel()
	stdout, stderr, exit := runVQ(t, nil, "completion", "tcsh")
	if exit != 2 || stdout != "" || !strings.Contains(stderr, "tcsh") {
		t.Errorf("exit %d, stdout %q, stderr %q", exit, stdout, stderr)
	}
}
