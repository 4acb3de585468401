package cmd

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/testkit"
	"github.com/visualq/vq/internal/textsafe"
	"github.com/visualq/vq/sandbox"
)

// Tests here run the built vq binary, for what only a real process shows:
// exit codes from real signals and its peak memory.

var vqBinary struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// buildVQ builds vq once per test binary; TestMain removes it.
func buildVQ(t testing.TB) string {
	t.Helper()
	vqBinary.once.Do(func() {
		vqBinary.dir, vqBinary.err = os.MkdirTemp("", "vq-bin-")
		if vqBinary.err != nil {
			return
		}
		vqBinary.path = filepath.Join(vqBinary.dir, "vq")
		out, err := exec.Command("go", "build", "-o", vqBinary.path, "..").CombinedOutput()
		if err != nil {
			vqBinary.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if vqBinary.err != nil {
		t.Fatal(vqBinary.err)
	}
	return vqBinary.path
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
	cmd := exec.Command(buildVQ(t), args...)
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

// gib is the size of the endless body: a gibibyte, written in chunks and
// never held in memory by the test.
const gib = 1 << 30

// hugeServer streams a gibibyte of JSON string (no Content-Length, so the
// cap must count) to every tool call; MCP's handshake is answered by the
// stub.
func hugeServer(t *testing.T) string {
	chunk := bytes.Repeat([]byte("a"), 1<<20)
	stream := func(w http.ResponseWriter, r *http.Request, wrap func(string) string) {
		w.Header().Set("Content-Type", "application/json")
		head, _, _ := strings.Cut(wrap(`{"ok":true,"summary":"X"}`), `"X"`)
		io.WriteString(w, head+`"`)
		for written := 0; written < gib; written += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}
	fl := fault{answer: stream}
	s := testkit.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/invoke") {
			io.Copy(io.Discard, r.Body)
			stream(w, r, func(s string) string { return s })
			return
		}
		serveMCPStub(w, r, fl)
	}))
	return s.URL
}

func TestHugeBodyHitsTheCapWithBoundedMemory(t *testing.T) {
	if raceDetector {
		// A peak RSS is a measurement, and the race run starves the vq it
		// measures; the plain go test run holds the bound.
		t.Skip("peak memory is measured in the run without the race detector")
	}
	base := hugeServer(t)
	for _, tc := range []struct {
		args []string
		// bound is the peak RSS allowed. Invoke reads the cap into chunks
		// (about the cap). MCP holds more: the SDK's own growing buffer
		// and vq's copy of the body that keeps the server's key order.
		bound int64
	}{
		{[]string{"invoke", "get_run_failures"}, 512 << 20},
		{[]string{"invoke", "get_run_failures", "--transport", "mcp"}, 1536 << 20},
	} {
		args := tc.args
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			cmd := vqCommand(t, base, append(args, "--no-retry")...)
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = io.Discard, &stderr
			exit, peak := runMeasured(t, cmd, 60*time.Second)
			if exit != 20 {
				t.Errorf("exit %d, want 20 (http_error, recoverable); stderr: %s", exit, stderr.String())
			}
			if !strings.Contains(stderr.String(), "response body too large: more than 268435456 bytes") {
				t.Errorf("stderr: %s", stderr.String())
			}
			t.Logf("peak RSS %d MiB", peak>>20)
			if peak > tc.bound {
				t.Errorf("peak RSS %d MiB: memory is not bounded by the 256 MiB cap", peak>>20)
			}
		})
	}
}

// A stdio server's message of 60 MiB, a text answer (a file's contents
// read back), costs vq at most three times its size at its peak, whether
// vq prints the document (--json) or the text; and what it prints is the
// answer, byte for byte.
func TestStdioMessagePeaksWithinThreeTimesItsSize(t *testing.T) {
	if raceDetector {
		t.Skip("peak memory is measured in the run without the race detector")
	}
	const size = 60 << 20
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	summary, _ := json.Marshal(testkit.TextSummary)
	for _, tc := range []struct {
		name  string
		flags []string
		want  func(io.Writer)
	}{
		{"--json", []string{"--json"}, func(w io.Writer) {
			io.WriteString(w, `{"ok":true,"tool":"`+testkit.TextTool+`","summary":`+string(summary)+`,"data":`)
			testkit.WriteTextResult(w, size)
			io.WriteString(w, `,"warnings":[],"nextActions":[]}`+"\n")
		}},
		{"text", nil, func(w io.Writer) { testkit.WriteText(w, size) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The server is this test binary (TestMain), which a stdio
			// child gets to know only through --env.
			cmd := vqCommand(t, "http://127.0.0.1:9", append([]string{"--endpoint", "stdio:" + textsafe.ShellQuote(self),
				"--env", asStdioTextServer + "=" + strconv.Itoa(size), "invoke", testkit.TextTool}, tc.flags...)...)
			got, want := sha256.New(), sha256.New()
			written := &countingWriter{w: got}
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = written, &stderr
			exit, peak := runMeasured(t, cmd, 2*time.Minute)
			tc.want(want)
			if exit != 0 || stderr.Len() > 0 {
				t.Fatalf("exit %d, stderr: %s", exit, stderr.String())
			}
			if !bytes.Equal(got.Sum(nil), want.Sum(nil)) {
				t.Errorf("vq printed %d bytes, which are not the answer", written.n)
			}
			t.Logf("peak RSS %d MiB", peak>>20)
			if peak > 3*size {
				t.Errorf("peak RSS %d MiB, more than three times the %d MiB message", peak>>20, size>>20)
			}
		})
	}
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return c.w.Write(p)
}

// Variables that make this test binary something else (TestMain).
const (
	// asPeakMeter names the file a meter writes the peak RSS to.
	asPeakMeter = "VQ_TEST_AS_PEAK_METER"
	// asStdioTextServer is the size of the stdio text server's answer.
	asStdioTextServer = "VQ_TEST_AS_STDIO_TEXT_SERVER"
)

// runMeasured runs the command (vq, its streams set) through this test
// binary as a meter and returns its exit code and peak RSS. A process the
// test starts itself would report at least the test binary's own peak: Go
// starts a child with vfork, and the peak a process has at exec is kept
// as its own. The meter is a small process of its own, which starts vq
// the same way and reports the peak of vq (and of vq's children, which vq
// waits for). The meter and vq are ended at limit.
func runMeasured(t *testing.T, cmd *exec.Cmd, limit time.Duration) (exit int, peak int64) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "peak")
	meter := exec.Command(self, append([]string{cmd.Path}, cmd.Args[1:]...)...)
	meter.Env = append(slices.Clone(cmd.Env), asPeakMeter+"="+file)
	meter.Stdout, meter.Stderr = cmd.Stdout, cmd.Stderr
	meter.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := meter.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(limit, func() { syscall.Kill(-meter.Process.Pid, syscall.SIGKILL) })
	err = meter.Wait()
	if !timer.Stop() {
		t.Fatalf("vq still running after %s", limit)
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Fatal(err)
	}
	measured, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("the meter measured nothing: %v", err)
	}
	peak, _ = strconv.ParseInt(string(measured), 10, 64)
	return meter.ProcessState.ExitCode(), peak
}

// measurePeak runs argv with this process's streams and environment,
// writes its peak RSS in bytes to file, and is its exit code.
func measurePeak(file string, argv []string) int {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, asPeakMeter+"=") })
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "meter:", err)
		return 127
	}
	peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // kilobytes on Linux
	if err := os.WriteFile(file, strconv.AppendInt(nil, peak, 10), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "meter:", err)
		return 127
	}
	return cmd.ProcessState.ExitCode()
}

func TestTheAPIKeyIsNeverAFlag(t *testing.T) {
	t.Parallel()
	_, stderr, exit := runVQ(t, nil, "invoke", "t", "--api-key", secretKey)
	if exit != exitcode.Usage || strings.Contains(stderr, secretKey) {
		t.Errorf("exit %d, stderr %q", exit, stderr)
	}
}

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
