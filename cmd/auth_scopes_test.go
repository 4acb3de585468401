package cmd

import (
	"strings"
	"testing"
)

// vq auth status shows the scopes the server said it granted the token,
// as text and in --json.
func TestAuthStatusShowsTheScopesTheServerGranted(t *testing.T) {
	t.Parallel()
	s := stepUpServer(t, false)
	env := withEnv(oauthEnv(t), "VQ_OAUTH_HEADLESS", "1")
	if _, errOut, exit := runVQ(t, env, "--endpoint", s.Endpoint, "auth", "login", "--oauth", "--scope", "mcp:write"); exit != 0 {
		t.Fatalf("login: exit %d: %s", exit, errOut)
	}
	out, errOut, exit := runVQ(t, env, "--endpoint", s.Endpoint, "auth", "status")
	if exit != 0 || !strings.Contains(out, "; scopes mcp:write)\n") {
		t.Errorf("exit %d, stdout:\n%s%s", exit, out, errOut)
	}
	out, _, _ = runVQ(t, env, "--endpoint", s.Endpoint, "auth", "status", "--json", "--jq", ".servers[].oauth.scopes[]")
	if out != "mcp:write\n" {
		t.Errorf("--json scopes: %q", out)
	}
}
