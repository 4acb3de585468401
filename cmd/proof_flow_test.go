package cmd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/visualq/vq/sandbox"
)

// proofSandbox is a sandbox whose jobs take step per progress step, and
// the environment vq talks to it with.
func proofSandbox(t *testing.T, step time.Duration) map[string]string {
	t.Helper()
	return newCISandbox(t, step).Env()
}

// privateTmux starts a tmux server of the test's own with the given
// options set and returns a $TMUX naming it, and how to run tmux on it.
func privateTmux(t *testing.T, options ...[]string) (string, func(args ...string) string) {
	t.Helper()
	bin, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux not installed")
	}
	dir, err := os.MkdirTemp("", "vqclip") // short: a socket path has a length limit
	if err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(dir, "s")
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(bin, append([]string{"-S", socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run("new-session", "-d", "-s", "clip", "sleep 600")
	t.Cleanup(func() { exec.Command(bin, "-S", socket, "kill-server").Run(); os.RemoveAll(dir) })
	for _, o := range options {
		run(o...)
	}
	return socket + ",1,0", run
}

// Inside tmux, --copy fills a tmux buffer with the comment, byte for byte
// what --markdown prints, with tmux's default settings and with
// set-clipboard on (which also forwards it to the outer terminal).
func TestProveCopyInsideTmuxFillsATmuxBuffer(t *testing.T) {
	t.Parallel()
	for name, options := range map[string][][]string{
		"default":           nil,
		"set-clipboard on":  {{"set-option", "-g", "set-clipboard", "on"}},
		"set-clipboard off": {{"set-option", "-g", "set-clipboard", "off"}},
	} {
		t.Run(name, func(t *testing.T) {
			tmuxEnv, tmux := privateTmux(t, options...)
			env := proofSandbox(t, time.Millisecond)
			want, _, exit := runVQ(t, env, "prove", "BN-470", "--markdown", "--interval", "1ms")
			if exit != 0 || want == "" {
				t.Fatalf("--markdown: exit %d, stdout %q", exit, want)
			}
			env["TMUX"] = tmuxEnv
			stdout, stderr, exit := runVQ(t, env, "prove", "BN-470", "--copy", "--interval", "1ms")
			if exit != 0 || !strings.HasPrefix(stdout, "> OUI — ") {
				t.Errorf("exit %d, stdout:\n%s", exit, stdout)
			}
			if got := tmux("show-buffer"); got != want {
				t.Errorf("tmux buffer\n%q\nwant what --markdown prints\n%q", got, want)
			}
			if !strings.HasSuffix(stderr, fmt.Sprintf("JIRA comment (%d bytes) copied to a tmux buffer (tmux load-buffer -w -)\n", len(want))) {
				t.Errorf("stderr does not say where the copy went:\n%s", stderr)
			}
		})
	}
}

// A server's JIRA comment with controls in it (a title change, the end
// of a bracketed paste and a command after it, C1 CSI) reaches the tmux
// buffer without them, and stderr says how many were left out; the
// --markdown bytes on stdout stay the server's, verbatim.
func TestProveCopyLeavesControlsOutOfTheTmuxBuffer(t *testing.T) {
	t.Parallel()
	const hostile = "h3. Proof\r\n\x1b]0;pwned\x07|a|\x1b[201~rm -rf ~\n\u009b2J\tend"
	const clean = "h3. Proof\n]0;pwned|a|[201~rm -rf ~\n2J\tend"
	for name, options := range map[string][][]string{
		"default":          nil,
		"set-clipboard on": {{"set-option", "-g", "set-clipboard", "on"}},
	} {
		t.Run(name, func(t *testing.T) {
			tmuxEnv, tmux := privateTmux(t, options...)
			env := proveServer(t, proofStep(true, hostile)).Env()
			env["TMUX"] = tmuxEnv
			stdout, stderr, exit := runVQ(t, env, "prove", "BN-470", "--copy", "--markdown", "--interval", "1ms")
			if exit != 0 || stdout != hostile {
				t.Errorf("exit %d, stdout %q, want the server's bytes %q", exit, stdout, hostile)
			}
			if got := tmux("show-buffer"); got != clean {
				t.Errorf("tmux buffer %q\nwant %q", got, clean)
			}
			if want := fmt.Sprintf("JIRA comment (%d bytes) copied to a tmux buffer (tmux load-buffer -w -), 5 control characters left out\n", len(clean)); !strings.HasSuffix(stderr, want) {
				t.Errorf("stderr %q\nwant it to end %q", stderr, want)
			}
		})
	}
}

// vq watch of a proof job shows it as vq prove does: the headline first,
// and the JIRA comment intact as a block.
func TestWatchOfAProofJobShowsTheProof(t *testing.T) {
	t.Parallel()
	env := proofSandbox(t, time.Millisecond)
	job, _, _ := runVQ(t, env, "prove", "BN-470", "--no-wait", "--jq", ".data.jobId")
	stdout, stderr, exit := runVQ(t, env, "watch", strings.TrimSpace(job), "--interval", "1ms")
	md, _ := sandbox.ProofMarkdown("BN-470")
	if exit != 0 || !strings.HasPrefix(stdout, "> OUI — add_to_cart fires on click with the expected product payload\n\nverdict: proven\n") ||
		!strings.Contains(stdout, ":\n"+md+"\n") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", exit, stdout, stderr)
	}
}

// A proof watch stopped by --wait-timeout prints the vq prove command that
// resumes it, and that command, run as printed, shows the proof.
func TestProveResumesAStartedProof(t *testing.T) {
	t.Parallel()
	env := proofSandbox(t, 30*time.Millisecond)
	_, stderr, exit := runVQ(t, env, "prove", "BN-470", "--markdown", "--wait-timeout", "1ms", "--interval", "1ms")
	const hint = "hint: to resume: vq prove BN-470 --job job_000001 --markdown\n"
	if exit != 5 || !strings.Contains(stderr, hint) {
		t.Fatalf("exit %d, stderr:\n%s", exit, stderr)
	}
	resume := strings.Fields(strings.TrimPrefix(hint, "hint: to resume: vq "))
	stdout, stderr, exit := runVQ(t, env, append(resume, "--interval", "5ms")...)
	if md, _ := sandbox.ProofMarkdown("BN-470"); exit != 0 || stdout != md {
		t.Errorf("exit %d\nstdout %q\nwant   %q\nstderr %s", exit, stdout, md, stderr)
	}
}

// BN-474's job breaks before a verdict: the answer still starts with a NON
// headline saying why, then the next steps; --markdown has no comment to
// print, says so and exits as without it, with the job's error code.
func TestProofThatCouldNotRun(t *testing.T) {
	t.Parallel()
	env := proofSandbox(t, time.Millisecond)
	const headline = "> NON — the check could not run: the audit browser lost its connection while loading /checkout (net::ERR_CONNECTION_RESET); retry the proof\n"
	stdout, stderr, exit := runVQ(t, env, "prove", "BN-474", "--interval", "1ms")
	if exit != 17 || !strings.HasPrefix(stdout, headline+"\nverdict: not run\n") || !strings.HasSuffix(stdout, "Next actions:\n  # Re-prove BN-474\n  vq prove BN-474\n") {
		t.Errorf("exit %d (want 17, tool_error)\nstdout:\n%s\nstderr:\n%s", exit, stdout, stderr)
	}
	stdout, stderr, exit = runVQ(t, env, "prove", "BN-474", "--markdown", "--interval", "1ms")
	if exit != 17 || stdout != "" || !strings.HasSuffix(stderr, "error: no JIRA comment to print: "+strings.TrimPrefix(headline, "> ")) {
		t.Errorf("--markdown: exit %d (want 17, tool_error, as without it)\nstdout %q\nstderr:\n%s", exit, stdout, stderr)
	}
	job, _, _ := runVQ(t, env, "prove", "BN-474", "--no-wait", "--jq", ".data.jobId")
	if stdout, _, exit := runVQ(t, env, "watch", strings.TrimSpace(job), "--interval", "1ms"); exit != 17 || !strings.HasPrefix(stdout, headline) {
		t.Errorf("vq watch: exit %d\nstdout:\n%s", exit, stdout)
	}
}

// The next steps of BN-471's failed proof run as printed in bash against
// the sandbox, with the exit codes documented for them; consenting to the
// scenario they suggest, then re-proving as printed, proves the ticket.
func TestFailedProofNextStepsRunAsPrinted(t *testing.T) {
	t.Parallel()
	bin := filepath.Dir(buildVQ(t))
	env := proofSandbox(t, time.Millisecond)
	stdout, _, exit := runVQ(t, env, "prove", "BN-471", "--interval", "1ms")
	if exit != 22 {
		t.Fatalf("exit %d:\n%s", exit, stdout)
	}
	_, steps, _ := strings.Cut(stdout, "\nNext actions:\n")
	var lines []string
	for _, l := range strings.Split(steps, "\n") {
		if l, ok := strings.CutPrefix(l, "  vq "); ok {
			lines = append(lines, "vq "+l)
		}
	}
	// run gives the line's stdout, then its stderr, and its exit code.
	run := func(line string) (string, int) {
		cmd := exec.Command("bash", "-c", line)
		cmd.Env = []string{"PATH=" + bin + ":" + os.Getenv("PATH"), "VQ_BASE_URL=" + env["VQ_BASE_URL"], "VQ_API_KEY=" + sandbox.KeyAdmin,
			"VQ_NO_KEYRING=1", "VQ_CONFIG=" + filepath.Join(t.TempDir(), "c.json"), "HOME=" + t.TempDir()}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, _ := cmd.Output()
		return string(out) + stderr.String(), cmd.ProcessState.ExitCode()
	}
	want := []struct {
		line string
		exit int
	}{
		{"vq scenario create --goal 'Subscribe to the newsletter from the footer' --start-path /", 12}, // confirm_required: a script gives no consent
		{"vq prove BN-471", 22},                               // proof_failed: the scenario is still missing
		{"vq tracking plan --scenario scn_homepage_smoke", 0}, // the plan
		{"vq watch job_000001", 22},                           // the proof job, failed
	}
	if len(lines) != len(want) {
		t.Fatalf("next steps:\n%s", strings.Join(lines, "\n"))
	}
	for i, w := range want {
		out, exit := run(lines[i])
		if lines[i] != w.line || exit != w.exit {
			t.Errorf("%s\n  exit %d; want %s exit %d\n%s", lines[i], exit, w.line, w.exit, out)
		}
	}
	// The person consents, then re-proves as printed.
	if out, exit := run(lines[0] + " --yes"); exit != 0 || !strings.Contains(out, "Created scenario scn_101 ") {
		t.Fatalf("create with --yes: exit %d\n%s", exit, out)
	}
	out, exit := run(lines[1])
	if exit != 0 || !strings.HasPrefix(out, "> OUI — newsletter_signup fires with consent_given on the footer signup\n\nverdict: proven\n") ||
		!strings.Contains(out, "*Scenario:* scn_101 — Subscribe to the newsletter from the footer\n") {
		t.Errorf("re-prove: exit %d\n%s", exit, out)
	}
}
