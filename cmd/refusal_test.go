package cmd

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/sandbox"
)

// Every refusal says where it came from: the server (host:port and the
// profile that picked it) and where the key came from, or that none was
// sent and how to sign in. With two servers signed in, a script's log
// tells which refused which key.
func TestRefusalsNameTheirServerAndTheKeysSource(t *testing.T) {
	t.Parallel()
	for _, useKeyring := range []bool{false, true} {
		staging, prod := startLoggedSandbox(t), startLoggedSandbox(t)
		env := accountsEnv(t, useKeyring)
		login(t, env, sandbox.KeyReadOnly, "--base-url", staging.URL, "--name", "staging")
		login(t, env, sandbox.KeyFree, "--base-url", prod.URL, "--name", "prod")
		stored := "the config file " + env["VQ_CONFIG"]
		if useKeyring {
			stored = "the OS keyring"
		}
		gone := httptest.NewServer(nil)
		gone.Close()
		for _, c := range []struct {
			name string
			env  map[string]string
			args []string
			exit int
			line string
		}{
			{"the server's scope refusal", env, []string{"--profile", "staging", "approve", "run_abc", "--yes"}, exitcode.ForCode("scope_denied", false),
				"error: scope_denied: approve_vrt_results needs the write scope; this API key has read scopes only (server " + host(staging.URL) + ", profile staging; API key from " + stored + ") (not recoverable, exit 33)\n"},
			{"the server's plan refusal", env, []string{"tracking", "plan"}, exitcode.ForCode("plan_gate", false),
				"error: plan_gate: tracking_get_plan is a tracking tool, not included in the Free plan; upgrade to Pro to use it (server " + host(prod.URL) + ", profile prod; API key from " + stored + ") (not recoverable, exit 34)\n"},
			{"a 401 over MCP", with(env, "VQ_API_KEY", "vqs_wrong"), []string{"--profile", "staging", "--transport", "mcp", "failures", "run_abc"}, exitcode.Unauthorized,
				"error: unauthorized: the server did not accept the credential (HTTP 401); sign in with: vq auth login (or vq auth login --oauth; resource metadata: " + staging.URL + "/.well-known/oauth-protected-resource/api/mcp) (server " + host(staging.URL) + ", profile staging; API key from VQ_API_KEY) (not recoverable, exit 4)\n"},
			{"no key, nothing sent", env, []string{"--base-url", gone.URL, "failures", "run_abc"}, exitcode.Unauthorized,
				"error: unauthorized: no API key: run vq auth login, or set VQ_API_KEY (server " + host(gone.URL) + "; VQ_API_KEY is unset, and " + map[bool]string{false: "the config file " + env["VQ_CONFIG"] + " holds", true: "the OS keyring and the config file " + env["VQ_CONFIG"] + " hold"}[useKeyring] + " none for it) (not recoverable, exit 4)\n"},
			{"a server that is gone", with(env, "VQ_API_KEY", sandbox.KeyAdmin), []string{"--base-url", gone.URL, "--no-retry", "failures", "run_abc"}, exitcode.ForCode("http_error", true),
				"error: http_error: connection to " + gone.URL + "/api/mcp/v1/invoke failed: connection refused (server " + host(gone.URL) + "; API key from VQ_API_KEY) (recoverable, exit 20)\n"},
		} {
			_, stderr, exit := runVQ(t, c.env, c.args...)
			if exit != c.exit || stderr != c.line {
				t.Errorf("keyring %v, %s: exit %d, want %d\nstderr: %q\nwant:   %q", useKeyring, c.name, exit, c.exit, stderr, c.line)
			}
		}
		if got := staging.took(); len(got) != 2 || got[1] != "vqs_wrong" {
			t.Errorf("keyring %v: staging got %q, want its key then VQ_API_KEY", useKeyring, got)
		}

		// --json keeps the server's own document, byte for byte; the line
		// on stderr names the server.
		stdout, stderr, _ := runVQ(t, env, "--profile", "staging", "approve", "run_abc", "--yes", "--json")
		var doc struct{ Error struct{ Message string } }
		if json.Unmarshal([]byte(stdout), &doc) != nil || doc.Error.Message != "approve_vrt_results needs the write scope; this API key has read scopes only" || !strings.Contains(stderr, "(server "+host(staging.URL)+", profile staging; ") {
			t.Errorf("keyring %v: --json: %s\nstderr: %s", useKeyring, stdout, stderr)
		}
	}
}

// The TUI's header names the server the session's calls go to, with the
// profile that picked it; a refusal on its screen says where its key came
// from.
func TestTUIHeaderNamesTheServer(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("drives a terminal")
	}
	ts := startLoggedSandbox(t)
	env := accountsEnv(t, false)
	login(t, env, sandbox.KeyAdmin, "--base-url", ts.URL, "--name", "staging")
	env["VQ_NO_KEYRING"], env["TERM"] = "1", "xterm-256color"
	p := startTmux(t, 120, 30, env, "true", "failures", "run_abc")
	screen := p.waitFor("the failures", shows("✗ 3 of 12 checks failed"))
	first, _, _ := strings.Cut(screen, "\n")
	if want := host(ts.URL) + " (profile staging)"; !strings.HasPrefix(first, "✗ 3 of 12 checks failed") || !strings.HasSuffix(strings.TrimRight(first, " "), want) {
		t.Errorf("the header line is %q, want the verdict and %q at its right", first, want)
	}
	p.keys("q")
	p.waitFor("vq's exit", shows("EXIT=0"))

	env["VQ_API_KEY"] = "vqs_wrong"
	p = startTmux(t, 120, 30, env, "true", "failures", "run_abc")
	p.waitFor("the refusal", shows("unauthorized", "not recoverable · vq exits 4 · server "+host(ts.URL)+", profile staging; API key from VQ_API_KEY", "EXIT=4"))
}

// host is a loopback server's host:port, as a refusal names it.
func host(serverURL string) string { return strings.TrimPrefix(serverURL, "http://") }
