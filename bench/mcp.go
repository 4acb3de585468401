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

// cacheDir is where a client or server the bench runs is installed once, so no
// run pays for a download (npx would fetch it on every cold cache).
func cacheDir(name string) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(cache, "vq-bench", name), nil
}

// npmBin finds the launcher bin of pkg, installing pkg with npm into
// cacheDir(name) once.
func npmBin(pkg, name, bin string) (string, error) {
	dir, err := cacheDir(name)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "node_modules", ".bin", bin)
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return "", fmt.Errorf("npm is not installed, so %s cannot be", pkg)
	}
	step("installing " + pkg + " into " + dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	cmd := exec.Command("npm", "install", "--prefix", dir, "--no-audit", "--no-fund", "--loglevel=error", pkg)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm install %s: %v: %s", pkg, err, firstLine(string(msg)))
	}
	return path, nil
}

// inspector finds the Inspector's launcher, installing it with npm once.
func (b *bench) inspector() (string, error) {
	return npmBin(inspectorPackage, "inspector-2.12.0", "mcp-inspector")
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

// everythingPackage is the reference server of the stdio row.
const everythingPackage = "@modelcontextprotocol/server-everything@2026.8.31"

// mcptoolsModule is f/mcptools, the Go MCP command-line client the stdio
// row compares with, when the Go module proxy serves it; VQ_BENCH_MCPTOOLS
// names a binary of it built elsewhere.
const mcptoolsModule = "github.com/f/mcptools/cmd/mcptools@latest"

// mcptools finds f/mcptools: VQ_BENCH_MCPTOOLS, or installed from the
// module proxy into the bench's cache once.
func mcptools() (string, error) {
	if path := os.Getenv("VQ_BENCH_MCPTOOLS"); path != "" {
		return path, nil
	}
	dir, err := cacheDir("mcptools")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "mcptools")
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	step("installing " + mcptoolsModule + " into " + dir)
	cmd := exec.Command("go", "install", mcptoolsModule)
	cmd.Env = append(os.Environ(), "GOBIN="+dir)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go install %s: %v: %s", mcptoolsModule, err, firstLine(string(msg)))
	}
	return path, nil
}

// stdio compares a whole run of one tools/call over stdio, the child
// started, asked and ended, with f/mcptools doing the same (or, when it
// cannot be had, the MCP Inspector's CLI, the best client at hand): the
// echo tool of server-everything, run with node directly (npx would add
// its own start-up to both sides).
func (b *bench) stdio() row {
	what := "a whole stdio run: server-everything's `echo` (`vq --endpoint stdio:… invoke echo message=hi`)"
	step(what)
	if b.quick {
		return skipped(what, "quick mode installs no npm server")
	}
	server, err := npmBin(everythingPackage, "server-everything-2026.8.31", "mcp-server-everything")
	if err != nil {
		return skipped(what, "server-everything cannot run here: "+err.Error())
	}
	vq := b.vqCmd("--endpoint", "stdio:"+server+" stdio", "invoke", "echo", "message=hi")
	other, otherName := command{}, "f/mcptools"
	if bin, err := mcptools(); err == nil {
		other = command{label: "mcptools", env: b.env, dir: b.tmp, argv: []string{bin, "call", "echo", "--params", `{"message":"hi"}`, server, "stdio"}}
	} else {
		insp, inspErr := b.inspector()
		if inspErr != nil {
			return skipped(what, "neither f/mcptools ("+err.Error()+") nor the MCP Inspector can run here: "+inspErr.Error())
		}
		step("f/mcptools cannot be had (" + firstLine(err.Error()) + "): comparing with the MCP Inspector CLI")
		otherName = "MCP Inspector CLI 2.12.0 (f/mcptools cannot be installed here)"
		other = command{label: "mcp-inspector", env: b.env, dir: b.tmp, argv: []string{insp, "--cli", server, "stdio",
			"--method", "tools/call", "--tool-name", "echo", "--tool-arg", "message=hi"}}
	}
	a, o, err := compare(vq, other, b.runs, b.rssRuns())
	if err != nil {
		return failed(what, err)
	}
	return ratioRow(what, otherName, a, o, 1.1, 0)
}
