package cmd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
