package cmd

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/api/account"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/testkit"
)

// stepUpServer opens initialize to all, lists its tools for mcp:basic and
// runs them for mcp:write too: the conformance suite's step-up.
func stepUpServer(t *testing.T, cimd bool) *testkit.OAuthServer {
	return testkit.NewOAuthServer(t, testkit.OAuthOptions{CIMD: cimd, Needs: map[string][]string{
		"tools/list": {"mcp:basic"}, "tools/call": {"mcp:basic", "mcp:write"},
	}})
}

// oauthEnv is a private config, signed in to nothing yet.
func oauthEnv(t *testing.T) map[string]string {
	return map[string]string{"VQ_CONFIG": filepath.Join(t.TempDir(), "config.json")}
}

func withEnv(env map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for key, val := range env {
		out[key] = val
	}
	return out
}

func storedToken(t *testing.T, env map[string]string, endpoint string) account.OAuthToken {
	t.Helper()
	tok, found, err := account.CredentialStore{ConfigPath: env["VQ_CONFIG"]}.LookupOAuth(context.Background(), endpoint)
	if err != nil || !found {
		t.Fatalf("no token stored for %s: %v", endpoint, err)
	}
	return tok
}

func scopesOf(auth url.Values) []string {
	scopes := strings.Fields(auth.Get("scope"))
	slices.Sort(scopes)
	return scopes
}

// Headless (as at a terminal) a call refused for want of a scope signs in
// again for the larger scope, stores the token, and is answered once.
func TestRefusedCallSignsInAgainAndIsAnsweredOnce(t *testing.T) {
	t.Parallel()
	s := stepUpServer(t, false)
	env := withEnv(oauthEnv(t), "VQ_OAUTH_HEADLESS", "1")
	if _, errOut, exit := runVQ(t, env, "--endpoint", s.Endpoint, "auth", "login", "--oauth"); exit != 0 {
		t.Fatalf("login: exit %d: %s", exit, errOut)
	}
	out, errOut, exit := runVQ(t, env, "--endpoint", s.Endpoint, "invoke", testkit.OAuthTool)
	if exit != 0 || !strings.Contains(out, testkit.OAuthToolAnswer) {
		t.Fatalf("call: exit %d\n%s%s", exit, out, errOut)
	}
	oauthFile := filepath.Join(filepath.Dir(env["VQ_CONFIG"]), "oauth.json")
	for _, want := range []string{
		s.Endpoint + " needs the scope mcp:basic mcp:write (HTTP 403 insufficient_scope): signing in again.\n",
		"Signed in again (issuer " + s.URL + "); token stored in the config file " + oauthFile + ".\n",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	auths := s.Authorizations()
	if len(auths) != 2 || !slices.Equal(scopesOf(auths[0]), []string{"mcp:basic"}) || !slices.Equal(scopesOf(auths[1]), []string{"mcp:basic", "mcp:write"}) {
		t.Errorf("authorization requests: %v, want mcp:basic, then mcp:basic mcp:write", auths)
	}
	if n := s.Answered("tools/call"); n != 1 {
		t.Errorf("tools/call answered %d times, want 1", n)
	}
	if tok := storedToken(t, env, s.Endpoint); tok.AccessToken != "access-code-2" || !slices.Contains(tok.Scopes, "mcp:write") {
		t.Errorf("stored token: %q with scopes %v, want the second sign-in's", tok.AccessToken, tok.Scopes)
	}
	raw, _ := os.ReadFile(oauthFile)
	if strings.Contains(errOut, "access-code") || !strings.Contains(string(raw), "access-code-2") {
		t.Errorf("a token on stderr, or none in the file:\n%s\n%s", errOut, raw)
	}
}

// A script (no terminal, not headless) keeps the refusal: scope_denied,
// and the sign-in that grants it.
func TestRefusedCallInAScriptIsScopeDeniedWithTheHint(t *testing.T) {
	t.Parallel()
	s := stepUpServer(t, false)
	env := oauthEnv(t)
	if _, errOut, exit := runVQ(t, withEnv(env, "VQ_OAUTH_HEADLESS", "1"), "--endpoint", s.Endpoint, "auth", "login", "--oauth"); exit != 0 {
		t.Fatalf("login: exit %d: %s", exit, errOut)
	}
	_, errOut, exit := runVQ(t, env, "--endpoint", s.Endpoint, "invoke", testkit.OAuthTool)
	if exit != exitcode.ForCode(api.CodeScopeDenied, false) ||
		!strings.Contains(errOut, "error: scope_denied: the server needs the scope mcp:basic mcp:write (HTTP 403 insufficient_scope from "+s.Endpoint+"); sign in again to be granted it: vq auth login --oauth --scope 'mcp:basic mcp:write'") ||
		strings.Contains(errOut, "signing in again") {
		t.Errorf("exit %d, stderr:\n%s", exit, errOut)
	}
	if n := len(s.Authorizations()); n != 1 || s.Answered("tools/call") != 0 {
		t.Errorf("%d authorization requests (want the login's), tools/call answered %d times", n, s.Answered("tools/call"))
	}
}

// At a terminal the sign-in again opens the browser, as the login does.
func TestRefusedCallAtATerminalSignsInAgainInTheBrowser(t *testing.T) {
	t.Parallel()
	s := stepUpServer(t, false)
	var mu sync.Mutex
	var opened []string
	browser := func(link string) error {
		mu.Lock()
		opened = append(opened, link)
		mu.Unlock()
		go func() { // the person approves in the browser
			if resp, err := http.Get(link); err == nil {
				resp.Body.Close()
			}
		}()
		return nil
	}
	run := vqRun{Env: withEnv(oauthEnv(t), "VQ_NO_TUI", "1"), TTY: true, OpenURL: browser}
	if _, errOut, exit := run.run(t, "--endpoint", s.Endpoint, "auth", "login", "--oauth"); exit != 0 {
		t.Fatalf("login: exit %d: %s", exit, errOut)
	}
	out, errOut, exit := run.run(t, "--endpoint", s.Endpoint, "invoke", testkit.OAuthTool)
	if exit != 0 || !strings.Contains(out, testkit.OAuthToolAnswer) || !strings.Contains(errOut, "signing in again.\nOpening the browser to sign in.") {
		t.Fatalf("call: exit %d\n%s%s", exit, out, errOut)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(opened) != 2 {
		t.Fatalf("the browser opened %v", opened)
	}
	if u, err := url.Parse(opened[1]); err != nil || !slices.Equal(scopesOf(u.Query()), []string{"mcp:basic", "mcp:write"}) {
		t.Errorf("the sign-in again opened %s", opened[1])
	}
}

// Where the authorization server takes Client ID Metadata Documents, the
// URL is vq's client id at the login, at the sign-in again of a refused
// call, and at a later login that does not repeat the flag.
func TestClientMetadataURLIsTheClientIDFromTheLoginOn(t *testing.T) {
	t.Parallel()
	const doc = "https://vq.example.com/oauth/client.json"
	s := stepUpServer(t, true)
	env := withEnv(oauthEnv(t), "VQ_OAUTH_HEADLESS", "1")
	if _, errOut, exit := runVQ(t, env, "--endpoint", s.Endpoint, "auth", "login", "--oauth", "--client-metadata-url", doc); exit != 0 {
		t.Fatalf("login: exit %d: %s", exit, errOut)
	}
	if tok := storedToken(t, env, s.Endpoint); tok.ClientID != doc || tok.ClientMetadataURL != doc {
		t.Errorf("stored client %q, document %q", tok.ClientID, tok.ClientMetadataURL)
	}
	if _, errOut, exit := runVQ(t, env, "--endpoint", s.Endpoint, "invoke", testkit.OAuthTool); exit != 0 {
		t.Fatalf("call: exit %d: %s", exit, errOut)
	}
	if _, errOut, exit := runVQ(t, env, "--endpoint", s.Endpoint, "auth", "login", "--oauth", "--scope", "mcp:admin"); exit != 0 {
		t.Fatalf("login again: exit %d: %s", exit, errOut)
	}
	auths := s.Authorizations()
	if len(auths) != 3 || s.Registrations() != 0 {
		t.Fatalf("%d authorization requests, %d registrations: %v", len(auths), s.Registrations(), auths)
	}
	for i, a := range auths {
		if a.Get("client_id") != doc {
			t.Errorf("authorization request %d: client_id %q, want %s", i, a.Get("client_id"), doc)
		}
	}
}

// Headless, vq follows the authorization server's redirects on its own
// origin and the one to vq's redirect URI, nothing else: an authorization
// endpoint that sends the browser to another port of the machine ends the
// sign-in there, saying so, and the other port receives no request; one
// that sends it to a page of its own signs in.
func TestHeadlessSignInFollowsNoRedirectOffTheAuthorizationServer(t *testing.T) {
	t.Parallel()
	foreign := testkit.NewServer(t, testkit.Always(http.StatusOK, "login here"))
	needs := map[string][]string{"tools/list": {"mcp:basic"}}
	away := testkit.NewOAuthServer(t, testkit.OAuthOptions{Needs: needs, Detour: foreign.URL + "/login"})
	env := withEnv(oauthEnv(t), "VQ_OAUTH_HEADLESS", "1")
	_, errOut, exit := runVQ(t, env, "--endpoint", away.Endpoint, "auth", "login", "--oauth")
	if want := "error: sign-in failed: headless sign-in: refused redirect to another host (" + strings.TrimPrefix(foreign.URL, "http://") + ")\n"; exit != exitcode.Unauthorized || errOut != want {
		t.Errorf("a detour to another port: exit %d, stderr:\n%s\nwant %q", exit, errOut, want)
	}
	if n := len(foreign.Calls()); n != 0 {
		t.Errorf("the other port received %d requests", n)
	}

	home := testkit.NewOAuthServer(t, testkit.OAuthOptions{Needs: needs, Detour: "/authorize"})
	_, errOut, exit = runVQ(t, env, "--endpoint", home.Endpoint, "auth", "login", "--oauth")
	if auths := home.Authorizations(); exit != 0 || len(auths) != 1 || auths[0].Get("hop") != "1" {
		t.Fatalf("a detour on the server: exit %d, authorizations %v: %s", exit, auths, errOut)
	}
	if tok := storedToken(t, env, home.Endpoint); tok.AccessToken == "" {
		t.Error("no token stored")
	}
}

// With no one at a terminal and no browser that opens (BROWSER names a
// missing command, or there is no display), vq auth login --oauth ends at
// once, saying how to sign in without a browser: it waited for ever for a
// redirect no one could bring about.
func TestOAuthLoginWithNoBrowserAndNoTerminalEndsAtOnce(t *testing.T) {
	t.Parallel()
	vq := vqBinary(t)
	s := testkit.NewOAuthServer(t, testkit.OAuthOptions{Needs: map[string][]string{"initialize": {"mcp:basic"}}})
	for name, browser := range map[string]string{
		"a missing browser": "BROWSER=" + filepath.Join(t.TempDir(), "no-such-browser"),
		"no display":        "BROWSER=",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := testkit.Bound(t)
			cmd := exec.CommandContext(ctx, vq, "--endpoint", s.Endpoint, "auth", "login", "--oauth")
			cmd.Env = []string{browser, "VQ_CONFIG=" + filepath.Join(t.TempDir(), "config.json"), "VQ_NO_KEYRING=1", "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr // stdin and stdout: /dev/null, no terminal
			err := cmd.Run()
			if ctx.Err() != nil {
				t.Fatalf("vq still waits for the sign-in:\n%s", stderr.String())
			}
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != exitcode.Unauthorized {
				t.Errorf("exit %v, want %d", err, exitcode.Unauthorized)
			}
			if auths := s.Authorizations(); len(auths) != 0 {
				t.Errorf("the authorization endpoint was asked %d times; no one could open it", len(auths))
			}
			for _, want := range []string{
				"error: sign-in failed: no browser could be opened, and no one at a terminal can open the sign-in URL (",
				"\nhint: without a browser, sign in with an API key: echo \"$VISUALQ_KEY\" | vq auth login --with-token\n",
			} {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
				}
			}
		})
	}
}
