package mcpclient_test

import (
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/api/account"
	"github.com/visualq/vq/api/mcpclient"
	"github.com/visualq/vq/internal/testkit"
)

// stepUpNeeds is a server that opens initialize to all, lists its tools
// for mcp:basic and runs them for mcp:write too: the conformance suite's
// step-up.
var stepUpNeeds = map[string][]string{"tools/list": {"mcp:basic"}, "tools/call": {"mcp:basic", "mcp:write"}}

// notices collects what a sign-in tells the person.
type notices struct {
	mu    sync.Mutex
	lines []string
}

func (n *notices) add(s string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.lines = append(n.lines, s)
}

func (n *notices) String() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return strings.Join(n.lines, "\n")
}

// signedIn logs in headless to s as vq auth login --oauth does and
// stores the token; the client then sends it, signing in again with
// signIn when that is set.
func signedIn(t *testing.T, s *testkit.OAuthServer, login account.OAuthLoginOptions, signIn *account.OAuthLoginOptions) (*mcpclient.Client, account.CredentialStore) {
	t.Helper()
	store := account.CredentialStore{ConfigPath: filepath.Join(t.TempDir(), "config.json")}
	opts := mcpclient.Options{Options: api.Options{Timeout: 10 * time.Second, NoRetry: true}, OverMCP: true, Endpoint: s.Endpoint}
	login.Headless = true
	tok, err := mcpclient.New(opts).LoginOAuth(testkit.Bound(t), login)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.SaveOAuth(tok); err != nil {
		t.Fatal(err)
	}
	opts.OAuth = &account.StoredOAuth{Token: tok, Store: store, SignIn: signIn}
	c := mcpclient.New(opts)
	t.Cleanup(func() { c.Close() })
	return c, store
}

// The same whether the server opens with initialize or, speaking only
// 2026-07-28, refuses it for server/discover.
func TestRefusedCallSignsInAgainForTheLargerScopeAndProceeds(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	for _, newestOnly := range []bool{false, true} {
		t.Run(fmt.Sprintf("newest only %v", newestOnly), func(t *testing.T) {
			s := testkit.NewOAuthServer(t, testkit.OAuthOptions{Needs: stepUpNeeds, NewestOnly: newestOnly})
			var told notices
			c, store := signedIn(t, s, account.OAuthLoginOptions{}, &account.OAuthLoginOptions{Headless: true, Notify: told.add})
			if got := s.Authorizations(); len(got) != 1 || got[0].Get("scope") != "mcp:basic" {
				t.Fatalf("the login's authorization requests: %v", got)
			}

			resp, err := c.Invoke(ctx, api.Call{Tool: testkit.OAuthTool})
			if err != nil || !resp.OK || resp.Summary != testkit.OAuthToolAnswer {
				t.Fatalf("the call after signing in again: %+v, %v", resp, err)
			}
			auths := s.Authorizations()
			if len(auths) != 2 || !sameScopes(auths[1].Get("scope"), "mcp:basic mcp:write") {
				t.Fatalf("authorization requests: %v, want a second one for mcp:basic mcp:write", auths)
			}
			if n := s.Answered("tools/call"); n != 1 {
				t.Errorf("tools/call answered %d times, want 1", n)
			}
			for _, want := range []string{
				s.Endpoint + " needs the scope mcp:basic mcp:write (HTTP 403 insufficient_scope): signing in again.",
				"Signed in again (issuer " + s.URL + "); token stored in the config file " + store.OAuthPath() + ".",
			} {
				if !strings.Contains(told.String(), want) {
					t.Errorf("notices lack %q:\n%s", want, told.String())
				}
			}
			stored, found, err := store.LookupOAuth(ctx, s.Endpoint)
			if err != nil || !found || !sameScopes(strings.Join(stored.Scopes, " "), "mcp:basic mcp:write") || stored.AccessToken != "access-code-2" {
				t.Errorf("stored token: %+v (found %v, %v), want the second sign-in's", stored, found, err)
			}

			// The new token serves the calls after: no sign-in more.
			if resp, _ := c.Invoke(ctx, api.Call{Tool: testkit.OAuthTool}); !resp.OK || len(s.Authorizations()) != 2 || s.Answered("tools/call") != 2 {
				t.Errorf("second call: %+v, %d authorizations, tools/call answered %d times", resp, len(s.Authorizations()), s.Answered("tools/call"))
			}
		})
	}
}

// A token the server no longer accepts (revoked, its refresh lapsed) is
// refused at initialize, where a session starts: vq signs in again there.
func TestStaleTokenSignsInAgainAtInitialize(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	s := testkit.NewOAuthServer(t, testkit.OAuthOptions{Needs: map[string][]string{"initialize": {"mcp:basic"}, "tools/call": {"mcp:basic"}}})
	var told notices
	store := account.CredentialStore{ConfigPath: filepath.Join(t.TempDir(), "config.json")}
	tok, err := mcpclient.New(mcpclient.Options{OverMCP: true, Endpoint: s.Endpoint}).LoginOAuth(ctx, account.OAuthLoginOptions{Headless: true})
	if err != nil {
		t.Fatal(err)
	}
	tok.AccessToken = "revoked"
	c := mcpclient.New(mcpclient.Options{Options: api.Options{NoRetry: true}, OverMCP: true, Endpoint: s.Endpoint,
		OAuth: &account.StoredOAuth{Token: tok, Store: store, SignIn: &account.OAuthLoginOptions{Headless: true, Notify: told.add}}})
	defer c.Close()
	resp, err := c.Invoke(ctx, api.Call{Tool: testkit.OAuthTool})
	if err != nil || !resp.OK {
		t.Fatalf("call: %+v, %v\n%s", resp, err, told.String())
	}
	if !strings.Contains(told.String(), s.Endpoint+" did not accept the token (HTTP 401): signing in again.") || len(s.Authorizations()) != 2 || s.Answered("tools/call") != 1 {
		t.Errorf("%d authorization requests, tools/call answered %d times; notices:\n%s", len(s.Authorizations()), s.Answered("tools/call"), told.String())
	}
}

// A server the sign-in cannot satisfy gets one sign-in again for its
// refusal, not a loop: the call is scope_denied, and so is the next one
// with the same refusal, without another sign-in.
func TestSignInAgainIsOncePerRefusal(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	s := testkit.NewOAuthServer(t, testkit.OAuthOptions{Needs: stepUpNeeds, Withhold: []string{"mcp:write"}})
	var told notices
	c, _ := signedIn(t, s, account.OAuthLoginOptions{}, &account.OAuthLoginOptions{Headless: true, Notify: told.add})
	for i := range 2 {
		resp, err := c.Invoke(ctx, api.Call{Tool: testkit.OAuthTool})
		if scope, denied := resp.Failure.Scope, resp.Failure.ScopeDenied; err != nil || !denied || scope != "mcp:basic mcp:write" {
			t.Fatalf("call %d: %+v %+v, %v; want scope_denied naming mcp:basic mcp:write\n%s", i, resp, resp.Error, err, told.String())
		}
	}
	if n := len(s.Authorizations()); n != 2 {
		t.Errorf("%d authorization requests, want the login's and one sign-in again", n)
	}
	if n := s.Answered("tools/call"); n != 0 {
		t.Errorf("tools/call answered %d times", n)
	}
	if !strings.Contains(told.String(), "refused the token again; vq signs in again once per refusal (3 times at most), so not this time.") {
		t.Errorf("notices:\n%s", told.String())
	}
}

// Without SignIn (a script) the refusal is the answer, and nothing signs
// in.
func TestRefusedCallWithoutSignInIsScopeDenied(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	s := testkit.NewOAuthServer(t, testkit.OAuthOptions{Needs: stepUpNeeds})
	c, _ := signedIn(t, s, account.OAuthLoginOptions{}, nil)
	resp, err := c.Invoke(ctx, api.Call{Tool: testkit.OAuthTool})
	if scope, denied := resp.Failure.Scope, resp.Failure.ScopeDenied; err != nil || !denied || scope != "mcp:basic mcp:write" || resp.Error.Message != "the server needs the scope mcp:basic mcp:write (HTTP 403 insufficient_scope from "+s.Endpoint+")" {
		t.Fatalf("call: %+v, %v", resp, err)
	}
	if n := len(s.Authorizations()); n != 1 {
		t.Errorf("%d authorization requests, want the login's only", n)
	}
}

// A person may take longer to sign in than the call may stay silent: the
// sign-in holds the call's idle bound.
func TestSignInAgainHoldsTheCallsIdleBound(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	s := testkit.NewOAuthServer(t, testkit.OAuthOptions{Needs: stepUpNeeds})
	var wg sync.WaitGroup
	t.Cleanup(wg.Wait)
	slowPerson := func(authURL string) error {
		wg.Go(func() {
			time.Sleep(600 * time.Millisecond)
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		})
		return nil
	}
	store := account.CredentialStore{ConfigPath: filepath.Join(t.TempDir(), "config.json")}
	tok, err := mcpclient.New(mcpclient.Options{OverMCP: true, Endpoint: s.Endpoint}).LoginOAuth(ctx, account.OAuthLoginOptions{Headless: true})
	if err != nil {
		t.Fatal(err)
	}
	c := mcpclient.New(mcpclient.Options{Options: api.Options{Timeout: 200 * time.Millisecond, NoRetry: true}, OverMCP: true, Endpoint: s.Endpoint,
		OAuth: &account.StoredOAuth{Token: tok, Store: store, SignIn: &account.OAuthLoginOptions{OpenURL: slowPerson}}})
	defer c.Close()
	resp, err := c.Invoke(ctx, api.Call{Tool: testkit.OAuthTool})
	if err != nil || !resp.OK {
		t.Fatalf("call: %+v, %v", resp, err)
	}
}

func TestLoginOffersTheClientMetadataDocumentWhereTheServerTakesOne(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	const doc = "https://vq.example.com/oauth/client.json"
	for _, tc := range []struct {
		cimd                bool
		clientID            string
		registrations       int
		secondAuthClientIDs string
	}{
		{cimd: true, clientID: doc, registrations: 0},
		// Not advertised: vq registers, and keeps the document for an
		// authorization server that takes it later.
		{cimd: false, clientID: "registered-1", registrations: 1},
	} {
		s := testkit.NewOAuthServer(t, testkit.OAuthOptions{CIMD: tc.cimd, Needs: stepUpNeeds})
		c, store := signedIn(t, s, account.OAuthLoginOptions{ClientMetadataURL: doc}, &account.OAuthLoginOptions{Headless: true})
		auths := s.Authorizations()
		if len(auths) != 1 || auths[0].Get("client_id") != tc.clientID || s.Registrations() != tc.registrations {
			t.Errorf("CIMD %v: authorization requests %v, %d registrations; want client_id %s", tc.cimd, auths, s.Registrations(), tc.clientID)
		}
		tok, _, _ := store.LookupOAuth(ctx, s.Endpoint)
		if tok.ClientID != tc.clientID || tok.ClientMetadataURL != doc {
			t.Errorf("CIMD %v: stored client %q, document %q", tc.cimd, tok.ClientID, tok.ClientMetadataURL)
		}
		// The sign-in again offers the stored document too.
		if resp, err := c.Invoke(ctx, api.Call{Tool: testkit.OAuthTool}); err != nil || !resp.OK {
			t.Fatalf("CIMD %v: call: %+v, %v", tc.cimd, resp, err)
		}
		if auths := s.Authorizations(); len(auths) != 2 || (tc.cimd && auths[1].Get("client_id") != doc) {
			t.Errorf("CIMD %v: the sign-in again's authorization requests: %v", tc.cimd, auths)
		}
	}
}

func sameScopes(got, want string) bool {
	g, w := strings.Fields(got), strings.Fields(want)
	slices.Sort(g)
	slices.Sort(w)
	return slices.Equal(g, w)
}
