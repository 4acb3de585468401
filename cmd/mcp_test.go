package cmd

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/visualq/vq/api/account"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/testkit"
	"github.com/visualq/vq/sandbox"
)

func startSandbox(t *testing.T) *httptest.Server {
	t.Helper()
	return startSandboxWith(t, sandbox.Options{JobStep: time.Millisecond, Rate: -1})
}

func startSandboxWith(t *testing.T, opts sandbox.Options) *httptest.Server {
	t.Helper()
	ts := testkit.Serve(t, sandbox.New(opts).Handler())
	return ts
}

func TestOAuthSignInEndToEnd(t *testing.T) {
	t.Parallel()
	ts := startSandbox(t)
	dir := t.TempDir()
	env := map[string]string{
		"VQ_CONFIG": filepath.Join(dir, "config.json"), "VQ_BASE_URL": ts.URL,
		"VQ_TRANSPORT": "mcp", "VQ_OAUTH_HEADLESS": "1",
	}
	if _, errOut, exit := runVQ(t, env, "failures", "run_abc"); exit != exitcode.Unauthorized {
		t.Fatalf("before sign-in: exit %d: %s", exit, errOut)
	}
	_, errOut, exit := runVQ(t, env, "auth", "login", "--oauth")
	if exit != 0 || !strings.Contains(errOut, "Signed in to "+ts.URL+"/api/mcp with OAuth (issuer "+ts.URL+")") {
		t.Fatalf("login: exit %d: %s", exit, errOut)
	}
	file := filepath.Join(dir, "oauth.json")
	info, err := os.Stat(file)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", info, err)
	}
	raw, _ := os.ReadFile(file)
	if !strings.Contains(string(raw), `"accessToken": "vq_at_`) || !strings.Contains(string(raw), `"refreshToken": "vq_rt_`) {
		t.Errorf("token file holds no tokens:\n%s", raw)
	}
	out, errOut, exit := runVQ(t, env, "failures", "run_abc")
	if exit != 0 || out == "" {
		t.Fatalf("call with the OAuth token: exit %d: %s%s", exit, out, errOut)
	}

	// An expired token is refreshed at the issuer and stored again.
	store := account.CredentialStore{ConfigPath: env["VQ_CONFIG"]}
	tok, found, err := store.LookupOAuth(context.Background(), ts.URL+"/api/mcp")
	if err != nil || !found {
		t.Fatal(found, err)
	}
	tok.Expiry = time.Now().Add(-time.Minute)
	if _, err := store.SaveOAuth(tok); err != nil {
		t.Fatal(err)
	}
	if _, errOut, exit := runVQ(t, env, "failures", "run_abc"); exit != 0 {
		t.Fatalf("expired token not refreshed: exit %d: %s", exit, errOut)
	}
	if refreshed, _, _ := store.LookupOAuth(context.Background(), ts.URL+"/api/mcp"); refreshed.AccessToken == tok.AccessToken {
		t.Error("the refreshed token was not stored")
	}

	if _, errOut, exit := runVQ(t, env, "auth", "logout"); exit != 0 || !strings.Contains(errOut, "Removed the OAuth token") {
		t.Fatalf("logout: exit %d: %s", exit, errOut)
	}
	if _, _, exit := runVQ(t, env, "failures", "run_abc"); exit != exitcode.Unauthorized {
		t.Errorf("after logout: exit %d, want %d", exit, exitcode.Unauthorized)
	}
}
