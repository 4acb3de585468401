//go:build unix

package sandbox_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	vqsandbox "github.com/visualq/vq/sandbox"
)

// proxy is a vq sandbox --record or --replay process and where it listens.
type proxy struct {
	cmd    *exec.Cmd
	url    string
	stderr bytes.Buffer
}

var listening = regexp.MustCompile(`^VisualQ sandbox listening on (http://127\.0\.0\.1:\d+)$`)

// startProxy starts vq sandbox with args on a free loopback port and
// reads where it listens from its banner.
func startProxy(t *testing.T, args ...string) *proxy {
	t.Helper()
	p := &proxy{cmd: exec.Command(vqPath(t), append([]string{"sandbox", "--addr", "127.0.0.1:0"}, args...)...)}
	p.cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "VQ_NO_KEYRING=1"}
	p.cmd.Stderr = &p.stderr
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.cmd.Process.Kill(); p.cmd.Wait() })
	found := make(chan string, 1)
	go func() {
		defer io.Copy(io.Discard, out)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
				return
			}
		}
		close(found)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	select {
	case p.url = <-found:
	case <-ctx.Done():
	}
	if p.url == "" {
		t.Fatalf("vq sandbox %s printed no address; stderr: %s", strings.Join(args, " "), p.stderr.String())
	}
	return p
}

// interrupt stops the sandbox as Ctrl-C does and returns its exit code.
func (p *proxy) interrupt(t *testing.T) int {
	t.Helper()
	if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatal(err)
		}
		return p.cmd.ProcessState.ExitCode()
	case <-ctx.Done():
		t.Fatalf("vq sandbox still running a minute after Ctrl-C; stderr: %s", p.stderr.String())
		return -1
	}
}

func vqPath(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("vq") // this test binary, put on PATH by TestMain
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// seen is what a user sees of one vq run.
type seen struct {
	code           int
	stdout, stderr string
}

// runVQ runs vq against base with key, as a user with no config of their own.
func runVQ(t *testing.T, base, key string, args ...string) seen {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, vqPath(t), args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "VQ_NO_KEYRING=1", "NO_COLOR=1",
		"VQ_BASE_URL=" + base, "VQ_API_KEY=" + key, "VQ_CONFIG=" + filepath.Join(t.TempDir(), "config.json")}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return seen{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
}

// linksAside is what a user sees with base written BASE, and a wait's
// elapsed seconds left out.
func (s seen) linksAside(base string) seen {
	elapsed := regexp.MustCompile(`\(\d+s\)`)
	for _, text := range []*string{&s.stdout, &s.stderr} {
		*text = elapsed.ReplaceAllString(strings.ReplaceAll(*text, base, "BASE"), "(Ns)")
	}
	return s
}

func getImage(t *testing.T, url string) (string, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.Header.Get("Content-Type"), b
}

// A real server recorded once through vq sandbox --record, then stopped:
// vq sandbox --replay answers the same commands with the same documents,
// to another key, a --wait with its polls in the order they came, and
// refuses what was not recorded; no recorded file holds the key.
func TestRecordThenReplayWithTheServerGone(t *testing.T) {
	t.Parallel()
	upstream, err := vqsandbox.Start(vqsandbox.Options{Addr: "127.0.0.1:0", JobStep: 150 * time.Millisecond, Rate: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer upstream.Close()
	dir := filepath.Join(t.TempDir(), "recording")
	rec := startProxy(t, "--record", dir, "--upstream", upstream.URL())

	commands := [][]string{
		{"failures", "run_abc", "--json"},
		{"diff", "run_abc", "--scenario", "Homepage", "--viewport", "desktop", "--json"},
		{"ci", "run-vrt", "branch=feature/new-header", "--wait", "--interval", "50ms"},
		{"--transport", "mcp", "failures", "run_abc", "--json"},
	}
	var live []seen
	for _, args := range commands {
		live = append(live, runVQ(t, rec.url, vqsandbox.KeyAdmin, args...).linksAside(rec.url))
	}
	image := regexp.MustCompile(`BASE/sandbox/images/[^"]+/diff\.png`).FindString(live[1].stdout)
	if image == "" {
		t.Fatalf("vq diff linked no diff image: %s", live[1].stdout)
	}
	liveType, liveImage := getImage(t, strings.Replace(image, "BASE", rec.url, 1))
	if code := rec.interrupt(t); code != 0 || rec.stderr.String() != "sandbox stopped\n" {
		t.Fatalf("vq sandbox --record on Ctrl-C exited %d, stderr %q", code, rec.stderr.String())
	}
	// Its polls saw the run move, so the replay must give them in order.
	if polls := regexp.MustCompile(`(?m)^run_ci_0001 \w+ \d+/12`).FindAllString(live[2].stderr, -1); len(polls) < 2 || polls[0] == polls[len(polls)-1] {
		t.Fatalf("the recorded --wait saw the run at one point only: %s", live[2].stderr)
	}
	upstream.Close()

	rep := startProxy(t, "--replay", dir)
	for i, args := range commands {
		got := runVQ(t, rep.url, "another-teams-key", args...).linksAside(rep.url)
		if got != live[i] {
			t.Errorf("vq %s\nreplayed: %+v\nrecorded: %+v", strings.Join(args, " "), got, live[i])
		}
	}
	if typ, b := getImage(t, strings.Replace(image, "BASE", rep.url, 1)); typ != liveType || !bytes.Equal(b, liveImage) || !strings.HasPrefix(typ, "image/") {
		t.Errorf("the diff image replayed as %s (%d bytes), recorded as %s (%d bytes)", typ, len(b), liveType, len(liveImage))
	}

	refused := runVQ(t, rep.url, "another-teams-key", "failures", "run_never_recorded")
	want := seen{code: 11, stderr: `error: validation_error: get_run_failures {"runId":"run_never_recorded"} was not recorded: this replay answers only the requests its recording holds (recoverable, exit 11)` + "\n"}
	if refused != want {
		t.Errorf("an unrecorded run: %+v\nwant %+v", refused, want)
	}
	refused = runVQ(t, rep.url, "another-teams-key", "--transport", "mcp", "failures", "run_never_recorded")
	want.stderr = strings.Replace(want.stderr, "get_run_failures", "MCP tools/call get_run_failures", 1)
	if refused != want {
		t.Errorf("an unrecorded run over MCP: %+v\nwant %+v", refused, want)
	}

	files := 0
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		b, err := os.ReadFile(path)
		if bytes.Contains(b, []byte(vqsandbox.KeyAdmin)) || bytes.Contains(bytes.ToLower(b), []byte("authorization")) {
			t.Errorf("%s holds the API key or an Authorization header:\n%s", d.Name(), b)
		}
		return err
	})
	if err != nil || files < len(commands) {
		t.Fatalf("the recording holds %d files (%v)", files, err)
	}
}
