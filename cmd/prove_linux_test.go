package cmd

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/sandbox"
)

// With no tmux, no display and no terminal (a pipe, no controlling
// terminal), --copy says nothing could be copied before the proof starts:
// the server receives no call, and vq exits 9 (no_clipboard).
func TestProveCopyWithNoClipboardExits9(t *testing.T) {
	t.Parallel()
	ts := newCISandbox(t, time.Millisecond)
	cmd := vqCommand(t, ts.URL, "prove", "BN-470", "--copy")
	cmd.Env = append(cmd.Env, "VQ_API_KEY="+sandbox.KeyAdmin)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no controlling terminal: /dev/tty cannot open
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != exitcode.NoClipboard || stdout.String() != "" {
		t.Errorf("exit %d, stdout %q", code, stdout.String())
	}
	if calls := ts.Calls(); len(calls) != 0 {
		t.Errorf("the server received %d calls, want none: %s", len(calls), ts.InvokedTools())
	}
	want := "error: --copy: nothing copied: no clipboard to copy to: not inside tmux ($TMUX unset); no desktop display ($WAYLAND_DISPLAY and $DISPLAY unset); no terminal for OSC 52 (open /dev/tty: no such device or address) (use --markdown > FILE instead)\n"
	if stderr.String() != want {
		t.Errorf("stderr\n%q\nwant\n%q", stderr.String(), want)
	}
}
