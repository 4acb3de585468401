package cmd

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/cmd/iostreams"
	cmdsandbox "github.com/visualq/vq/cmd/sandbox"
	"github.com/visualq/vq/sandbox"
)

// lineExit is what a documented command line does against the sandbox
// when it does not simply exit 0: the exit code it implies, whether it
// serves until Ctrl-C, or why a test cannot run it.
type lineExit struct {
	exit   int
	serves bool
	skip   string
}

// exampleExits are the help examples that do not simply exit 0.
var exampleExits = map[string]lineExit{
	"vq auth login": {skip: "asks for the URL and the key at a terminal"},
	"vq sandbox":    {serves: true},
	"vq failures run_abc --format github --exit-status --junit vq-junit.xml --save-dir vq-diffs": {exit: 3},
	"vq sandbox --addr 127.0.0.1:8787 --latency 300ms --fail-rate 0.2":                           {serves: true},
	"vq prove BN-470 --copy": {skip: "needs a clipboard: prove_test.go copies through tmux, OSC 52 and to none"},
	"npx @modelcontextprotocol/inspector --cli -e VQ_BASE_URL=http://127.0.0.1:8787 -e VQ_API_KEY=vqs_admin vq mcp serve --method tools/list": {
		skip: "needs the MCP Inspector from npm and Node 22: .ci/run runs it against vq mcp serve"},

	"vq sandbox --record testdata/visualq --upstream http://127.0.0.1:9000": {serves: true},
	"vq sandbox --replay testdata/visualq":                                  {skip: "needs a recording: TestRecordThenReplayWithTheServerGone makes one and replays it"},
	"vq mcp serve --http 127.0.0.1:8788":                                    {serves: true},
}

// docShell runs documented command lines as a person would type them:
// each in bash, with the built vq first on PATH, in one directory, against
// one sandbox whose address stands in for the documents' hosts. jq and
// pbcopy, which a person has, are stand-ins here.
type docShell struct {
	ts      *httptest.Server
	host    string
	dir     string
	env     []string
	replace *strings.Replacer
}

// newDocShell is a docShell whose lines get env beside vq's private
// files, and have each old of oldNew replaced by the new that follows it
// (after the documents' hosts become the sandbox's).
func newDocShell(t *testing.T, ts *httptest.Server, env []string, oldNew ...string) *docShell {
	t.Helper()
	bin := filepath.Dir(vqBinary(t))
	dir := t.TempDir()
	stubs := filepath.Join(dir, "stubs")
	os.Mkdir(stubs, 0o755)
	for _, name := range []string{"jq", "pbcopy"} {
		os.WriteFile(filepath.Join(stubs, name), []byte("#!/bin/sh\ncat >/dev/null\n"), 0o755)
	}
	host := strings.TrimPrefix(ts.URL, "http://")
	return &docShell{
		ts: ts, host: host, dir: dir,
		env: append([]string{
			"PATH=" + bin + ":" + stubs + ":" + os.Getenv("PATH"), "HOME=" + dir, "VQ_CONFIG=" + filepath.Join(dir, "config.json"),
			"VQ_NO_KEYRING=1", "VQ_OAUTH_HEADLESS=1", "XDG_CACHE_HOME=" + filepath.Join(dir, "cache"),
		}, env...),
		replace: strings.NewReplacer(append([]string{
			"https://visualq.example.com", ts.URL,
			"https://mcp.example.com/mcp", ts.URL + "/api/mcp",
			"127.0.0.1:8787", host,
		}, oldNew...)...),
	}
}

// run runs line after the shell lines of prelude (what a person's shell
// already ran: exports), unless want skips it, and fails t unless it
// exits want.exit. A line that serves gets a Ctrl-C once it says it
// listens, on a port of its own: the default one may be taken, by the
// sandbox the README tells a person to start.
func (d *docShell) run(t *testing.T, prelude, line string, want lineExit) {
	t.Helper()
	if want.skip != "" {
		return
	}
	script := d.replace.Replace(line)
	if strings.HasPrefix(script, "vq sandbox") || strings.HasPrefix(script, "vq mcp serve --http") {
		// A second sandbox, or an MCP server over HTTP, listens on a port
		// of its own, given before the line's comment.
		command, comment, commented := strings.Cut(script, " #")
		script = strings.ReplaceAll(strings.TrimRight(command, " "), d.host, "127.0.0.1:0")
		script = strings.ReplaceAll(script, "127.0.0.1:8788", "127.0.0.1:0")
		if !strings.Contains(script, "--addr") && !strings.Contains(script, "--http") {
			script += " --addr 127.0.0.1:0"
		}
		if commented {
			script += " #" + comment
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", `set -o pipefail; fpath=("$PWD"); `+d.replace.Replace(prelude)+script)
	cmd.Dir = d.dir
	cmd.Env = d.env
	up := make(chan string, 1)
	out := &listenWatch{up: up}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		close(exited)
	}()
	if want.serves {
		select {
		case url := <-up:
			if strings.Contains(url, cmdsandbox.DefaultAddr) {
				t.Errorf("%s\n  (ran: %s)\n  listens on the default %s, which another sandbox may hold", line, script, url)
			}
			cmd.Process.Signal(os.Interrupt)
		case <-exited: // it never listened: its exit code and output say why
		case <-ctx.Done(): // it is killed, and fails below
		}
	}
	<-exited
	if code := cmd.ProcessState.ExitCode(); code != want.exit {
		t.Errorf("%s\n  (ran: %s)\n  exit %d, want %d\n%s", line, script, code, want.exit, out.String())
	}
}

// listenWatch is a command's output; up gets the URL of its first
// "listening on" line.
type listenWatch struct {
	mu  sync.Mutex
	out bytes.Buffer
	up  chan string
}

func (w *listenWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.out.Write(p)
	if _, rest, ok := strings.Cut(w.out.String(), " listening on "); ok && w.up != nil {
		if url, _, ok := strings.Cut(rest, "\n"); ok {
			w.up <- url
			w.up = nil
		}
	}
	return len(p), nil
}

func (w *listenWatch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.out.String()
}

// Every Example line of every command runs as printed against the
// sandbox and exits with the code it implies. The example's IDs are ones
// the sandbox made.
func TestEveryHelpExampleRuns(t *testing.T) {
	t.Parallel()
	checkedInThePlainRun(t)
	ts := startSandbox(t)
	env := map[string]string{"VQ_BASE_URL": ts.URL, "VQ_API_KEY": sandbox.KeyAdmin}
	idOf := func(args ...string) string {
		out, stderr, exit := runVQ(t, env, args...)
		if exit != 0 {
			t.Fatalf("%v: exit %d: %s", args, exit, stderr)
		}
		return strings.TrimSpace(out)
	}
	shell := newDocShell(t, ts, []string{
		"VQ_BASE_URL=" + ts.URL, "VQ_API_KEY=" + sandbox.KeyAdmin, "VISUALQ_KEY=" + sandbox.KeyAdmin,
		"CI_BRANCH=main", "CI_SHA=abc123",
	},
		"job_123", idOf("tracking", "run", "--jq", ".data.jobId"),
		"job_456", idOf("tracking", "run", "--jq", ".data.jobId"),
		"run_123", idOf("ci", "run-vrt", "branch=main", "--jq", ".data.runId"),
	)
	os.WriteFile(filepath.Join(shell.dir, "ci-args.json"), []byte(`{"commit":"abc123"}`), 0o644)

	root := NewRootCmd(&cmdutil.Factory{IOStreams: &iostreams.IOStreams{}, Getenv: func(string) string { return "" }})
	var lines []string
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		for _, line := range strings.Split(c.Example, "\n") {
			if line = strings.TrimSpace(line); line != "" {
				lines = append(lines, line)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if len(lines) < 40 {
		t.Fatalf("only %d example lines found", len(lines))
	}
	for _, line := range lines {
		shell.run(t, "", line, exampleExits[line])
	}
}

// readmeRuns are the README's sections whose command blocks a newcomer
// runs as printed, in this order, and the fewest lines each holds (so a
// block the test stops finding fails it rather than passing unrun).
var readmeRuns = []struct {
	heading  string
	minLines int
}{
	{"Set up", 2},
	{"Try it against the sandbox", 15},
	{"Commands", 15},
}

// readmeSkips are the README lines of those sections a test does not
// run, and why.
var readmeSkips = map[string]string{
	"go test ./...": "is the command that runs this test",
	"go install .":  "installs into the developer's GOPATH; the test runs the vq it built, first on PATH",
}

// commentExit is the exit code a README line's comment names ("...:
// exit 3").
var commentExit = regexp.MustCompile(`#.*\bexit (\d+)\b`)

// readmeBlockLines are the command lines of the sh blocks of the README
// section under "## heading", a line ending in a backslash joined to the
// next as the shell joins them.
func readmeBlockLines(t *testing.T, readme, heading string) []string {
	t.Helper()
	_, section, ok := strings.Cut(readme, "\n## "+heading+"\n")
	if !ok {
		t.Fatalf("README.md has no %q section", "## "+heading)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var lines []string
	inBlock, continued := false, false
	for _, text := range strings.Split(section, "\n") {
		text = strings.TrimSpace(text)
		switch {
		case strings.HasPrefix(text, "```"):
			inBlock, continued = text == "```sh", false
		case inBlock && continued:
			lines[len(lines)-1] += " " + strings.TrimSuffix(text, "\\")
			continued = strings.HasSuffix(text, "\\")
		case inBlock && text != "":
			lines = append(lines, strings.TrimSuffix(text, "\\"))
			continued = strings.HasSuffix(text, "\\")
		}
	}
	return lines
}

// The README's set-up, "Try it against the sandbox" and "Commands"
// sections are what a newcomer types first: every line of their command
// blocks runs, in order, in one shell session against one sandbox (the
// exports of earlier lines kept, no server or key but theirs), and exits
// with the code its comment names, or 0. `go run .` is the vq the test
// built from this checkout.
func TestREADMESandboxBlockRuns(t *testing.T) {
	t.Parallel()
	checkedInThePlainRun(t)
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	shell := newDocShell(t, startSandbox(t), nil, "go run . ", "vq ")
	prelude := ""
	for _, section := range readmeRuns {
		lines := readmeBlockLines(t, string(readme), section.heading)
		if len(lines) < section.minLines {
			t.Fatalf("the %q section's sh blocks hold %d lines, not at least %d:\n%s",
				section.heading, len(lines), section.minLines, strings.Join(lines, "\n"))
		}
		for _, line := range lines {
			command, _, _ := strings.Cut(line, " #")
			command = strings.TrimSpace(command)
			want := lineExit{skip: readmeSkips[command], serves: strings.HasPrefix(shell.replace.Replace(command), "vq sandbox")}
			if m := commentExit.FindStringSubmatch(line); m != nil {
				want.exit, _ = strconv.Atoi(m[1])
			}
			shell.run(t, prelude, line, want)
			if strings.HasPrefix(command, "export ") {
				prelude += command + "; "
			}
		}
	}
	if prelude == "" {
		t.Error("the README exports no server and key for the lines after it")
	}
}

// checkedInThePlainRun skips a check of the documentation (examples,
// recipes, the install and action scripts) under the race detector: the
// run without it (the README's test command) checks them, and .ci/run's
// race run would only repeat them several times slower (they were 2 of its
// 8 minutes), racing no goroutine of vq's that other tests do not.
func checkedInThePlainRun(t *testing.T) {
	t.Helper()
	if raceDetector {
		t.Skip("checked in the run without the race detector")
	}
}
