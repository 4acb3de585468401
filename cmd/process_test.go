package cmd

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/testkit"
	"github.com/visualq/vq/sandbox"
)

// Tests here run the built vq binary, for what only a real process shows:
// exit codes from real signals (its peak memory: peak_linux_test.go).

// vqBinary is the vq the tests run as a process: this test binary, which
// TestMain (testscript.RunMain) put on PATH under the name vq, so that no
// test builds vq.
func vqBinary(t testing.TB) string {
	t.Helper()
	path, err := exec.LookPath("vq")
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// vqProcess is a started vq with its output captured.
type vqProcess struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
}

// vqCommand is the vq binary set up to talk to base with the test key,
// and no keyring, config or home of the user's.
func vqCommand(t *testing.T, base string, args ...string) *exec.Cmd {
	t.Helper()
	testkit.NoLeaks(t)
	cmd := exec.Command(vqBinary(t), args...)
	cmd.Env = []string{
		"VQ_BASE_URL=" + base, "VQ_API_KEY=" + secretKey, "VQ_NO_KEYRING=1",
		"VQ_CONFIG=" + filepath.Join(t.TempDir(), "config.json"), "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"),
	}
	return cmd
}

func startVQ(t *testing.T, base string, args ...string) *vqProcess {
	t.Helper()
	p := &vqProcess{cmd: vqCommand(t, base, args...)}
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.cmd.Process.Kill() })
	return p
}

// wait waits at most limit for vq to exit and returns its exit code.
func (p *vqProcess) wait(t *testing.T, limit time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatal(err)
		}
		return p.cmd.ProcessState.ExitCode()
	case <-time.After(limit):
		p.cmd.Process.Kill()
		<-done
		t.Fatalf("vq still running after %s\nstderr: %s", limit, p.stderr.String())
		return -1
	}
}

// blockingServer answers no request; it reports each request's arrival
// and the moment its client gave up on it.
func blockingServer(t *testing.T) (url string, arrived, cancelled <-chan struct{}) {
	in, gone := make(chan struct{}, 10), make(chan struct{}, 10)
	s := testkit.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		in <- struct{}{}
		select {
		case <-r.Context().Done():
			gone <- struct{}{}
		case <-time.After(30 * time.Second):
		}
	}))
	return s.URL, in, gone
}

func TestSignalsCancelTheRequestAndExit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sig  syscall.Signal
		exit int
	}{{syscall.SIGINT, exitcode.Interrupted}, {syscall.SIGTERM, exitcode.Terminated}} {
		for _, args := range [][]string{
			{"invoke", "get_run_failures", "runId=r"},
			{"invoke", "get_run_failures", "runId=r", "--transport", "mcp"},
			{"watch", "job_1"},
		} {
			t.Run(tc.sig.String()+"/"+strings.Join(args, " "), func(t *testing.T) {
				base, arrived, cancelled := blockingServer(t)
				p := startVQ(t, base, args...)
				select {
				case <-arrived:
				case <-time.After(10 * time.Second):
					t.Fatalf("no request arrived; stderr: %s", p.stderr.String())
				}
				p.cmd.Process.Signal(tc.sig)
				if exit := p.wait(t, 5*time.Second); exit != tc.exit {
					t.Errorf("exit %d, want %d; stderr: %s", exit, tc.exit, p.stderr.String())
				}
				select {
				case <-cancelled:
				case <-time.After(5 * time.Second):
					t.Error("the server never saw the request cancelled")
				}
				if !strings.Contains(p.stderr.String(), "interrupted") && !strings.Contains(p.stderr.String(), "to resume: vq watch job_1") {
					t.Errorf("stderr does not say what happened: %q", p.stderr.String())
				}
			})
		}
	}
}

// asStdioTextServer, set, makes this test binary a stdio MCP server of
// one text answer of its size (TestMain).
const asStdioTextServer = "VQ_TEST_AS_STDIO_TEXT_SERVER"

// A reader that stops early (vq failures run_100k | head -1) ends vq
// quietly: no error on stderr, and the exit code is the answer's, as if
// the whole answer had been read.
func TestClosedPipeEndsQuietlyWithTheAnswersCode(t *testing.T) {
	t.Parallel()
	ts := startSandbox(t)
	for _, args := range [][]string{{"failures", "run_100k"}, {"failures", "run_100k", "--json"}} {
		cmd := vqCommand(t, ts.URL, args...)
		cmd.Env = append(cmd.Env, "VQ_API_KEY="+sandbox.KeyAdmin)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		io.ReadFull(stdout, make([]byte, 16))
		stdout.Close()
		err = cmd.Wait()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatal(err)
		}
		if code := cmd.ProcessState.ExitCode(); code != 0 || stderr.Len() != 0 {
			t.Errorf("%v: exit %d, stderr %q; want 0 and nothing", args, code, stderr.String())
		}
	}
}
