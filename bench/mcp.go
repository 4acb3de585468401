package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/visualq/vq/sandbox"
)

// inspectorPackage is the MCP client vq's MCP transport is compared with.
const inspectorPackage = "@modelcontextprotocol/inspector@2.12.0"

// inspectorDir is where the Inspector is installed once, so no run pays
// for a download (npx would fetch it on every cold cache).
func inspectorDir() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(cache, "vq-bench", "inspector-2.12.0"), nil
}

// inspector finds the Inspector's launcher, installing it with npm once.
func (b *bench) inspector() (string, error) {
	dir, err := inspectorDir()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "node_modules", ".bin", "mcp-inspector")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return "", fmt.Errorf("npm is not installed, so %s cannot be", inspectorPackage)
	}
	step("installing " + inspectorPackage + " into " + dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	cmd := exec.Command("npm", "install", "--prefix", dir, "--no-audit", "--no-fund", "--loglevel=error", inspectorPackage)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm install %s: %v: %s", inspectorPackage, err, firstLine(string(msg)))
	}
	return bin, nil
}

// mcp compares one tools/call through vq's MCP transport with the same
// call made by the MCP Inspector's CLI, started directly with node (npx
// would only add its own start-up to the Inspector's side).
func (b *bench) mcp() row {
	what := "one MCP `tools/call` (`vq --transport mcp invoke … --json`)"
	step(what)
	vq := b.vqCmd("--transport", "mcp", "invoke", "get_run_failures", "runId=run_abc", "--json")
	if b.quick {
		// The Inspector takes seconds a call on a small VM: too slow for
		// the quick run, which still proves vq's side works.
		if _, err := vq.run(); err != nil {
			return failed(what, err)
		}
		return skipped(what, "quick mode runs vq's side once and not the Inspector (seconds a call)")
	}
	bin, err := b.inspector()
	if err != nil {
		return skipped(what, "the MCP Inspector cannot run here: "+err.Error())
	}
	insp := command{label: "mcp-inspector", env: b.env, dir: b.tmp, argv: []string{bin, "--cli", b.srv.url + "/api/mcp",
		"--transport", "http", "--header", "Authorization: Bearer " + sandbox.KeyAdmin,
		"--method", "tools/call", "--tool-name", "get_run_failures", "--tool-arg", "runId=run_abc"}}
	a, other, err := compare(vq, insp, b.runs, b.rssRuns())
	if err != nil {
		return failed(what, err)
	}
	r := ratioRow(what, "MCP Inspector CLI 2.12.0", a, other, 0.05, 0)
	rssRatio := float64(a.rss) / float64(other.rss)
	r.ratio += fmt.Sprintf(" time, %.2f× memory", rssRatio)
	r.goal = "≤ 0.05× time, ≤ 0.1× memory"
	if r.verdict == verdictPass && !(a.rss > 0 && rssRatio <= 0.1) {
		r.verdict = verdictFail
	}
	return r
}
