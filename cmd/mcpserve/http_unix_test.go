//go:build unix

package mcpserve_test

import (
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/visualq/vq/internal/testkit"
)

// SIGTERM stops vq mcp serve --http: the calls in flight of every session
// end, each cancelling its request at the server, and vq exits as a
// terminated vq does (143).
func TestMCPServeOverHTTPStopsOnSIGTERMCancellingItsCalls(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	srv := newHeldServer(t)
	s := startHTTPServe(t, ctx, srv.Env())
	a, b := s.connect(t, ctx, nil), s.connect(t, ctx, nil)
	errs := make(chan error, 2)
	go func() { _, err := callRun(ctx, a, "run_a"); errs <- err }()
	go func() { _, err := callRun(ctx, b, "run_b"); errs <- err }()
	testkit.Receive(t, ctx, srv.arrived, "a call at the server")
	testkit.Receive(t, ctx, srv.arrived, "the other call at the server")

	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	cancelled := map[string]bool{}
	for range 2 {
		cancelled[testkit.Receive(t, ctx, srv.cancelled, "the calls cancelled at the server")] = true
	}
	if !cancelled["run_a"] || !cancelled["run_b"] {
		t.Errorf("cancelled at the server: %v", cancelled)
	}
	for range 2 {
		if err := testkit.Receive(t, ctx, errs, "the calls to end"); err == nil {
			t.Error("a call ended by SIGTERM was answered as if it had run")
		}
	}
	testkit.Receive(t, ctx, s.exited, "vq to exit")
	if exit, ok := errors.AsType[*exec.ExitError](s.err); !ok || exit.ExitCode() != 143 || !strings.Contains(s.stderr.String(), "vq mcp serve: stopped\n") {
		t.Errorf("vq exited %v\nstderr: %s", s.err, s.stderr)
	}
}
