//go:build unix

package mcpserve_test

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/visualq/vq/cmd/cmdtest"
	"github.com/visualq/vq/internal/textsafe"
	"github.com/visualq/vq/sandbox"
)

// vq mcp serve as a stdio child: its stderr reaches vq's only under
// --debug, and the child is gone by the time vq has exited: vq ends it and
// waits for it.
func TestStdioServerStderrUnderDebugAndEndedCleanly(t *testing.T) {
	t.Parallel()
	ts := cmdtest.NewSandbox(t, sandbox.Options{JobStep: time.Millisecond, Rate: -1})
	// The shell says its pid, then becomes vq mcp serve under that pid.
	endpoint := "stdio:sh -c " + textsafe.ShellQuote(`echo "stdio child $$" >&2; exec vq mcp serve`)
	args := []string{"--endpoint", endpoint, "failures", "run_abc", "--env", "VQ_BASE_URL=" + ts.URL, "--env", "VQ_API_KEY=" + sandbox.KeyAdmin, "--env", "VQ_NO_KEYRING=1"}
	env := map[string]string{"VQ_API_KEY": sandbox.KeyAdmin}

	out, errOut, exit := runVQ(t, env, args...)
	if exit != 0 || out == "" || strings.Contains(errOut, "stdio child") {
		t.Errorf("without --debug: exit %d, stdout %q, stderr %q", exit, out, errOut)
	}

	_, errOut, exit = runVQ(t, env, append(args, "--debug")...)
	m := regexp.MustCompile(`stdio server: stdio child (\d+)\n`).FindStringSubmatch(errOut)
	if exit != 0 || m == nil {
		t.Fatalf("with --debug: exit %d, stderr lacks the child's line:\n%s", exit, errOut)
	}
	pid, _ := strconv.Atoi(m[1])
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the stdio child %d outlived vq (kill -0: %v)", pid, err)
	}
}
