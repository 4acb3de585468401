package cmd

import (
	"strings"
	"testing"

	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/testkit"
)

// vq tools reaches the server outside the tool-call path; its failures
// say how to sign in like every other command's.
func TestToolsSaysHowToSignIn(t *testing.T) {
	t.Parallel()
	ts := startSandbox(t)
	_, stderr, exit := runVQ(t, map[string]string{"VQ_BASE_URL": ts.URL}, "tools")
	if exit != exitcode.Unauthorized || !strings.Contains(stderr, "no API key: run vq auth login, or set VQ_API_KEY") {
		t.Errorf("no key: exit %d, stderr %s", exit, stderr)
	}
	_, stderr, exit = runVQ(t, map[string]string{"VQ_BASE_URL": ts.URL, "VQ_API_KEY": "wrong"}, "tools")
	if exit != exitcode.Unauthorized || !strings.Contains(stderr, "(HTTP 401); sign in with: vq auth login (or vq auth login --oauth; resource metadata: "+ts.URL) {
		t.Errorf("401: exit %d, stderr %s", exit, stderr)
	}
}

// An OAuth sign-in at a server that asks for none points at the API key.
func TestOAuthLoginWhereNoneIsNeededPointsAtTheAPIKey(t *testing.T) {
	t.Parallel()
	s := testkit.NewServer(t, testkit.Always(200, `{"jsonrpc":"2.0","id":1,"result":{}}`))
	_, stderr, exit := runVQ(t, map[string]string{"VQ_OAUTH_HEADLESS": "1"}, "auth", "login", "--oauth", "--endpoint", s.URL+"/api/mcp")
	if exit != exitcode.Unauthorized || !strings.Contains(stderr, "without asking for a sign-in: it needs no OAuth (an API key works with: vq auth login)") {
		t.Errorf("exit %d, stderr %s", exit, stderr)
	}
}
