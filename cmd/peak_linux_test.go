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
	"syscall"
	"testing"
	"time"

	"github.com/visualq/vq/internal/testkit"
	"github.com/visualq/vq/internal/textsafe"
)

// Peak memory of the built vq, read through a meter process: Linux's
// rusage, whose ru_maxrss is in kilobytes there.

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

// asPeakMeter names the file a meter writes its reading to: with it set,
// this test binary is the meter (runMeasured) before it is a test.
const asPeakMeter = "VQ_TEST_AS_PEAK_METER"

func init() {
	if file := os.Getenv(asPeakMeter); file != "" {
		os.Exit(measurePeak(file, os.Args[1:]))
	}
}

// runMeasured runs the command (vq, its streams set) through this test
// binary as a meter and returns its exit code and peak RSS. vq's own
// rusage, read here, would not be vq's: Go starts a child with vfork, in
// the memory of the process that starts it, and at exec Linux keeps that
// memory's peak as the child's ru_maxrss (a test holding 200 MB reads
// 207 MB for true). The meter is a process of its own, fresh and small,
// which starts vq the same way and reports the ru_maxrss of vq (and of
// vq's children, which vq waits for): the larger of vq's peak and the
// meter's own, which is logged as the floor of the figure. The meter and
// vq are ended at limit.
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
	var floor int64
	if _, scanErr := fmt.Sscan(string(measured), &peak, &floor); err != nil || scanErr != nil {
		t.Fatalf("the meter measured nothing: %v %v", err, scanErr)
	}
	t.Logf("the meter's own peak RSS, below which no figure reads: %d MiB", floor>>20)
	return meter.ProcessState.ExitCode(), peak
}

// measurePeak runs argv with this process's streams and environment,
// writes its peak RSS in bytes to file, then the meter's own, and is its
// exit code.
func measurePeak(file string, argv []string) int {
	floor, err := vmHWM("self")
	if err != nil {
		fmt.Fprintln(os.Stderr, "meter:", err)
		return 127
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, asPeakMeter+"=") })
	err = cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "meter:", err)
		return 127
	}
	peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // kilobytes on Linux
	if err := os.WriteFile(file, fmt.Appendf(nil, "%d %d", peak, floor), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "meter:", err)
		return 127
	}
	return cmd.ProcessState.ExitCode()
}
