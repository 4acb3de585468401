//go:build unix

package mcpclient_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/api/mcpclient"
	"github.com/visualq/vq/internal/testkit"
)

// A stdio server gets HOME, PATH and the few variables a program needs,
// and what --env adds; never vq's keys and tokens, nor anything else of
// vq's environment.
func TestStdioServerGetsAMinimalEnvironment(t *testing.T) {
	ctx := testkit.Bound(t)
	t.Setenv("VQ_API_KEY", "vqs_secret_of_the_parent")
	t.Setenv("GITHUB_TOKEN", "ghp_secret_of_the_parent")
	t.Setenv("HOME", "/home/of/vq")
	endpoint, env, _ := stdioTestServer(t)
	c := mcpclient.New(mcpclient.Options{OverMCP: true, Endpoint: endpoint, StdioEnv: append(env, "ADDED=by --env", "HOME=/home/from/env")})
	t.Cleanup(func() { c.Close() })

	resp, err := c.Invoke(ctx, api.Call{Tool: "env"})
	if err != nil || !resp.OK {
		t.Fatalf("%v %s", err, resp.ErrorMessage())
	}
	got := map[string]string{}
	for _, kv := range strings.Split(resp.Summary+"\n"+contentText(t, resp), "\n") {
		name, value, _ := strings.Cut(kv, "=")
		got[name] = value
	}
	if got["ADDED"] != "by --env" || got["HOME"] != "/home/from/env" || got["PATH"] != os.Getenv("PATH") {
		t.Errorf("the child's environment lacks what it should have: %q", got)
	}
	for name := range got {
		switch name {
		case "ADDED", "HOME", "PATH", "USER", "LOGNAME", "SHELL", "TERM", "VQ_TEST_STDIO_SERVE", "VQ_TEST_STDIO_RECORD", "":
		default:
			t.Errorf("the child got %s=%q from vq's environment", name, got[name])
		}
	}
}

func contentText(t *testing.T, resp *api.ToolResponse) string {
	t.Helper()
	content := resp.Content
	if content == nil {
		t.Fatalf("no content in %s", resp.Data)
	}
	var parts []string
	for _, b := range content.Blocks {
		parts = append(parts, b.Text)
	}
	return strings.Join(parts, "\n")
}

// A stdio server's stderr reaches vq's (under --debug) a sanitized line at
// a time: no escape sequence (a clipboard write, a title), no reordering
// character obeyed; each line cut, and the whole bounded.
func TestStdioServerStderrIsSanitizedAndBounded(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	endpoint, env, _ := stdioTestServer(t)
	var stderr syncBuffer
	c := mcpclient.New(mcpclient.Options{OverMCP: true, Endpoint: endpoint, StdioEnv: env, StdioStderr: &stderr})
	t.Cleanup(func() { c.Close() })

	if resp, err := c.Invoke(ctx, api.Call{Tool: "stderr"}); err != nil || !resp.OK {
		t.Fatalf("%v %s", err, resp.ErrorMessage())
	}
	c.Close()
	got := stderr.String()
	if strings.ContainsAny(got, "\x1b\a\u202e") {
		t.Errorf("the child's control characters reached vq's stderr: %q", got[:min(len(got), 200)])
	}
	if !strings.Contains(got, "stdio server: clip  title  flip <U+202E> end\n") {
		t.Errorf("the first line is not there, sanitized: %q", got[:min(len(got), 300)])
	}
	if !strings.Contains(got, "stdio server: "+strings.Repeat("x", 1000)+"…\n") {
		t.Error("a 5000-byte line is not cut at 1000 bytes")
	}
	if len(got) > 1<<20 || !strings.HasSuffix(got, "stdio server: (more on stderr, past what --debug shows)\n") {
		t.Errorf("%d bytes of the child's 3 MB of stderr shown, ending %q", len(got), got[max(0, len(got)-100):])
	}
}

// A stdio server that ignores the end of its input and SIGTERM, under a
// launcher that ignores SIGTERM too, is killed with its whole process
// group when vq closes the session: no grandchild survives, and the
// teardown takes its bounds (grace, SIGTERM's, SIGKILL), not more.
func TestStubbornStdioServerAndItsChildrenAreEnded(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	endpoint, env, _ := stdioTestServer(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	env = append(env, "VQ_TEST_STDIO_SERVE=stubborn", "VQ_TEST_STDIO_SPAWN="+pidFile)
	// The launcher: a shell ignoring SIGTERM, which runs the server as its
	// child (not exec) and waits for it.
	launcher := "stdio:sh -c " + shellQuote(`trap "" TERM; "$0"; echo launcher done >&2`) + " " + strings.TrimPrefix(endpoint, "stdio:")
	c := mcpclient.New(mcpclient.Options{OverMCP: true, Endpoint: launcher, StdioEnv: env})
	if resp, err := c.Invoke(ctx, api.Call{Tool: "env"}); err != nil || !resp.OK {
		t.Fatalf("%v %s", err, resp.ErrorMessage())
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	grandchild, _ := strconv.Atoi(string(data))

	start := time.Now()
	c.Close()
	took := time.Since(start)
	if took > 5*time.Second {
		t.Errorf("closing took %v", took)
	}
	// The grandchild was killed; its parent (init, or a subreaper) may
	// not have reaped it yet, which a loaded machine can take a while to.
	for alive(grandchild) && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	if alive(grandchild) {
		syscall.Kill(grandchild, syscall.SIGKILL)
		t.Errorf("the server's own child %d outlived the session", grandchild)
	}
}

// alive reports a process that exists and is not a zombie.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // no /proc: kill -0 is all there is
	}
	_, rest, _ := strings.Cut(string(stat), ") ")
	return !strings.HasPrefix(rest, "Z")
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// A stdio server that cannot start is a configuration error: its own
// code, not recoverable, started once (no retry, no second revision), with
// the server's last lines of stderr, sanitized, in the message.
func TestStdioServerThatCannotStartIsAConfigurationError(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	dir := t.TempDir()
	starts := filepath.Join(dir, "starts")
	script := filepath.Join(dir, "dies.sh")
	os.WriteFile(script, []byte(`echo start >>"$1"
echo "Error accessing directory /nonexistent-dir" >&2
printf 'None of the specified directories are accessible \033]0;owned\007\n' >&2
exit 1
`), 0o644)
	for _, tc := range []struct {
		name, endpoint string
		want           []string
	}{
		{"no such command", "stdio:vq-test-no-such-command --flag", []string{"the stdio server vq-test-no-such-command cannot be run", "executable file not found"}},
		{"exits at start", "stdio:sh " + script + " " + starts, []string{
			"the stdio server sh exited before answering (exit status 1); its last lines of stderr: Error accessing directory /nonexistent-dir | None of the specified directories are accessible "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var notes []string
			c := mcpclient.New(mcpclient.Options{Options: api.Options{Notify: func(s string) { notes = append(notes, s) }}, OverMCP: true, Endpoint: tc.endpoint})
			t.Cleanup(func() { c.Close() })
			resp, err := c.Invoke(ctx, api.Call{Tool: "anything"})
			if err != nil {
				t.Fatal(err)
			}
			if resp.ErrorCode() != api.CodeServerConfig || resp.IsRecoverable() || len(notes) > 0 {
				t.Errorf("got %s (recoverable %v), notices %q: %s", resp.ErrorCode(), resp.IsRecoverable(), notes, resp.ErrorMessage())
			}
			for _, want := range tc.want {
				if !strings.Contains(resp.ErrorMessage(), want) {
					t.Errorf("the message lacks %q:\n%s", want, resp.ErrorMessage())
				}
			}
			if strings.ContainsAny(resp.ErrorMessage(), "\x1b\a") {
				t.Errorf("the message carries the server's control characters: %q", resp.ErrorMessage())
			}
		})
	}
	if got, _ := os.ReadFile(starts); string(got) != "start\n" {
		t.Errorf("the server was started %d times, want once", strings.Count(string(got), "start"))
	}
}
