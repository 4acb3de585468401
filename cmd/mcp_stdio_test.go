//go:build unix

package cmd

import (
	"bytes"
	"errors"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/textsafe"
	"github.com/visualq/vq/sandbox"
)

// runBuilt runs the built vq against the sandbox with the admin key, as a
// process: a stdio server is a child of a real process, which inherits
// its environment.
func runBuilt(t *testing.T, base string, args ...string) (stdout, stderr string, exit int) {
	t.Helper()
	cmd := vqCommand(t, base, args...)
	cmd.Env = append(cmd.Env, "VQ_API_KEY="+sandbox.KeyAdmin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
}

// stdioServe is the stdio: endpoint of the built vq's own MCP server.
func stdioServe(t *testing.T) string {
	return stdioEndpoint(textsafe.ShellQuote(buildVQ(t)) + " mcp serve")
}

func stdioEndpoint(command string) string { return "stdio:" + command }

func TestVQIsAClientOfItsOwnServerOverStdio(t *testing.T) {
	t.Parallel()
	ts := startSandbox(t)
	endpoint := stdioServe(t)
	// The child gets none of vq's VQ_ variables: --env passes them.
	env := []string{"--env", "VQ_BASE_URL=" + ts.URL, "--env", "VQ_API_KEY=" + sandbox.KeyAdmin, "--env", "VQ_NO_KEYRING=1"}
	for _, args := range [][]string{
		{"failures", "run_abc"},
		{"failures", "run_abc", "--json"},
		{"failures", "run_nope"},
		// An answer past the SDK's own stdio line cap (16 MiB).
		{"failures", "run_100k", "--json"},
	} {
		wantOut, wantErr, wantExit := runBuilt(t, ts.URL, args...)
		out, errOut, exit := runBuilt(t, ts.URL, append(append([]string{"--endpoint", endpoint}, env...), args...)...)
		if out != wantOut || errOut != wantErr || exit != wantExit {
			t.Errorf("vq %v through stdio vq mcp serve:\n%s%s(exit %d)\ndirectly:\n%s%s(exit %d)", args, out, errOut, exit, wantOut, wantErr, wantExit)
		}
	}
}

// The child's stderr reaches vq's only under --debug, and the child is
// gone by the time vq has exited: vq ends it and waits for it.
func TestStdioServerStderrUnderDebugAndEndedCleanly(t *testing.T) {
	t.Parallel()
	ts := startSandbox(t)
	// The shell says its pid, then becomes vq mcp serve under that pid.
	endpoint := stdioEndpoint("sh -c " + textsafe.ShellQuote(`echo "stdio child $$" >&2; exec "$0" mcp serve`) + " " + textsafe.ShellQuote(buildVQ(t)))

	env := []string{"--env", "VQ_BASE_URL=" + ts.URL, "--env", "VQ_API_KEY=" + sandbox.KeyAdmin, "--env", "VQ_NO_KEYRING=1"}
	out, errOut, exit := runBuilt(t, ts.URL, append([]string{"--endpoint", endpoint, "failures", "run_abc"}, env...)...)
	if exit != 0 || out == "" || strings.Contains(errOut, "stdio child") {
		t.Errorf("without --debug: exit %d, stdout %q, stderr %q", exit, out, errOut)
	}

	_, errOut, exit = runBuilt(t, ts.URL, append([]string{"--endpoint", endpoint, "failures", "run_abc", "--debug"}, env...)...)
	m := regexp.MustCompile(`stdio server: stdio child (\d+)\n`).FindStringSubmatch(errOut)
	if exit != 0 || m == nil {
		t.Fatalf("with --debug: exit %d, stderr lacks the child's line:\n%s", exit, errOut)
	}
	pid, _ := strconv.Atoi(m[1])
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the stdio child %d outlived vq (kill -0: %v)", pid, err)
	}
}

// A stdio server that cannot start exits server_config (50), not
// recoverable, at the first try: a command that does not exist, and one
// that dies at start, whose last stderr lines say why. --env with another
// kind of server is a usage error.
func TestStdioServerThatCannotStartExitsServerConfig(t *testing.T) {
	t.Parallel()
	ts := startSandbox(t)
	dies := stdioEndpoint("sh -c " + textsafe.ShellQuote(`echo "None of the specified directories are accessible" >&2; exit 1`))
	for _, tc := range []struct {
		name     string
		args     []string
		exit     int
		contains string
	}{
		{"no such command", []string{"--endpoint", "stdio:vq-no-such-command", "tools"}, exitcode.ServerConfig, "the stdio server vq-no-such-command cannot be run"},
		{"dies at start", []string{"--endpoint", dies, "invoke", "echo"}, exitcode.ServerConfig, "its last lines of stderr: None of the specified directories are accessible (not recoverable, exit 50)\n"},
		{"--env without stdio", []string{"--env", "A=b", "tools"}, exitcode.Usage, "--env sets a stdio: server's environment"},
		{"--env without =", []string{"--endpoint", dies, "--env", "A", "tools"}, exitcode.Usage, `--env "A" is not KEY=VALUE`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, exit := runBuilt(t, ts.URL, tc.args...)
			if exit != tc.exit || !strings.Contains(errOut, tc.contains) || strings.Contains(errOut, "retrying") {
				t.Errorf("exit %d (want %d), stderr:\n%s", exit, tc.exit, errOut)
			}
		})
	}
}
