package cmd

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/sandbox"
)

// exampleExits are the examples that do not simply exit 0 against the
// sandbox: the exit code they imply, whether they serve until Ctrl-C, or
// why a test cannot run them.
var exampleExits = map[string]struct {
	exit   int
	serves bool
	skip   string
}{
	"vq auth login": {skip: "asks for the URL and the key at a terminal"},
	"vq sandbox":    {serves: true},
	"vq failures run_abc --format github --exit-status --junit vq-junit.xml": {exit: 3},
	"vq sandbox --addr 127.0.0.1:8787 --latency 300ms --fail-rate 0.2":       {serves: true},
	"vq prove BN-470 --copy": {skip: "needs a clipboard: prove_test.go copies through tmux, OSC 52 and to none"},
	"npx @modelcontextprotocol/inspector --cli -e VQ_BASE_URL=http://127.0.0.1:8787 -e VQ_API_KEY=vqs_admin vq mcp serve --method tools/list": {
		skip: "needs the MCP Inspector from npm and Node 22: .ci/run runs it against vq mcp serve"},
}

// Every Example line of every command runs as printed, in bash, with the
// built vq first on PATH, against the sandbox, and exits with the code it
// implies. The example's hosts are the sandbox's; its IDs are ones the
// sandbox made; jq and pbcopy, which a person has, are stand-ins here.
func TestEveryHelpExampleRuns(t *testing.T) {
	bin := filepath.Dir(buildVQ(t))
	ts := startSandbox(t)
	dir := t.TempDir()
	stubs := filepath.Join(dir, "stubs")
	os.Mkdir(stubs, 0o755)
	for _, name := range []string{"jq", "pbcopy"} {
		os.WriteFile(filepath.Join(stubs, name), []byte("#!/bin/sh\ncat >/dev/null\n"), 0o755)
	}
	os.WriteFile(filepath.Join(dir, "ci-args.json"), []byte(`{"commit":"abc123"}`), 0o644)

	env := map[string]string{"VQ_BASE_URL": ts.URL, "VQ_API_KEY": sandbox.KeyAdmin}
	idOf := func(args ...string) string {
		out, stderr, exit := runVQ(t, env, args...)
		if exit != 0 {
			t.Fatalf("%v: exit %d: %s", args, exit, stderr)
		}
		return strings.TrimSpace(out)
	}
	host := strings.TrimPrefix(ts.URL, "http://")
	replace := strings.NewReplacer(
		"https://visualq.example.com", ts.URL,
		"https://mcp.example.com/mcp", ts.URL+"/api/mcp",
		"127.0.0.1:8787", host,
		"job_123", idOf("tracking", "run", "--jq", ".data.jobId"),
		"job_456", idOf("tracking", "run", "--jq", ".data.jobId"),
		"run_123", idOf("ci", "run-vrt", "branch=main", "--jq", ".data.runId"),
	)

	root := NewRootCmd(&Factory{IO: &IOStreams{}, Getenv: func(string) string { return "" }})
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
		script := replace.Replace(line)
		if strings.HasPrefix(script, "vq sandbox") {
			// A second sandbox listens on a port of its own.
			script = strings.ReplaceAll(script, host, "127.0.0.1:0")
			if !strings.Contains(script, "--addr") {
				script += " --addr 127.0.0.1:0"
			}
		}
		want := exampleExits[line]
		if want.skip != "" {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		cmd := exec.CommandContext(ctx, "bash", "-c", `set -o pipefail; fpath=("$PWD"); `+script)
		cmd.Dir = dir
		cmd.Env = []string{
			"PATH=" + bin + ":" + stubs + ":" + os.Getenv("PATH"), "HOME=" + dir, "VQ_CONFIG=" + filepath.Join(dir, "config.json"),
			"VQ_NO_KEYRING=1", "VQ_BASE_URL=" + ts.URL, "VQ_API_KEY=" + sandbox.KeyAdmin, "VISUALQ_KEY=" + sandbox.KeyAdmin,
			"CI_BRANCH=main", "CI_SHA=abc123", "VQ_OAUTH_HEADLESS=1", "XDG_CACHE_HOME=" + filepath.Join(dir, "cache"),
		}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if want.serves {
			// A server runs until Ctrl-C: it gets one once it is up.
			time.Sleep(500 * time.Millisecond)
			cmd.Process.Signal(os.Interrupt)
		}
		cmd.Wait()
		cancel()
		if code := cmd.ProcessState.ExitCode(); code != want.exit {
			t.Errorf("%s\n  (ran: %s)\n  exit %d, want %d\n%s", line, script, code, want.exit, out.String())
		}
	}
}
