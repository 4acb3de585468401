package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"golang.org/x/oauth2"
)

// maxSignIns bounds the sign-ins again of one client: each answers a
// challenge not answered before, and a server that keeps naming new ones
// cannot keep a person signing in (nor a headless vq looping).
const maxSignIns = 3

// oauthCredential is the OAuth sign-in the MCP transport sends (Options.
// OAuth): the stored token's source, until a sign-in again replaces it.
//
// With StoredOAuth.SignIn it is also the transport's OAuthHandler, which
// the SDK asks to Authorize when the server refuses a request at the HTTP
// layer (401, or 403 insufficient_scope), before the request ran: vq signs
// in again for the scopes the challenge names plus those granted before,
// stores the new token, and the SDK sends the request once more. Without
// SignIn (a script) there is no handler, and the refusal is the answer.
type oauthCredential struct {
	c      *Client
	store  CredentialStore
	signIn *OAuthLoginOptions

	// mu guards the token; flow is held through a sign-in again, so that
	// requests refused together start one.
	mu, flow sync.Mutex
	token    OAuthToken
	src      oauth2.TokenSource
	// answered are the challenges a sign-in again was started for.
	answered map[string]bool
}

func newOAuthCredential(c *Client, stored *StoredOAuth) *oauthCredential {
	return &oauthCredential{
		c: c, store: stored.Store, signIn: stored.SignIn,
		token: stored.Token, src: stored.Store.oauthTokenSource(stored.Token, c.plainHTTPClient()),
		answered: map[string]bool{},
	}
}

// Token is the current access token, refreshed when it has expired.
func (o *oauthCredential) Token() (*oauth2.Token, error) {
	o.mu.Lock()
	src := o.src
	o.mu.Unlock()
	return src.Token()
}

// oauthHandler is the transport's OAuthHandler: the credential when a
// refused request may be answered with a sign-in again, else none (a nil
// interface, not a nil pointer in one).
func (c *Client) oauthHandler() auth.OAuthHandler {
	if c.opts.APIKey != "" || c.oauth == nil || c.oauth.signIn == nil {
		return nil
	}
	return c.oauth
}

// TokenSource gives the SDK no token source: the round tripper adds the
// bearer (Client.bearer) to every request, the standalone stream's too,
// and sends none when the token cannot be refreshed, so that the server's
// 401 leads to Authorize instead of a failed request.
func (o *oauthCredential) TokenSource(context.Context) (oauth2.TokenSource, error) {
	return nil, nil
}

// Authorize answers a refused request with a sign-in again, at most once
// per challenge and maxSignIns in all; an error leaves the refusal as the
// request's answer (unauthorized, or scope_denied with its hint).
func (o *oauthCredential) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	defer resp.Body.Close()
	// Read into the request's record, which quotes the body of a refusal
	// that stays the answer.
	_, _ = io.Copy(io.Discard, resp.Body)
	challenge := resp.Header.Get("WWW-Authenticate")
	scope, insufficient := insufficientScope(challenge)
	if resp.StatusCode == http.StatusForbidden && !insufficient {
		return errors.New("forbidden, for a reason other than a scope: no sign-in grants it")
	}

	o.flow.Lock()
	defer o.flow.Unlock()
	if sentToken(resp) != o.current() {
		// Refused with a token another request's sign-in (or a refresh)
		// has replaced since: the SDK sends it again with the new one.
		return nil
	}
	key := fmt.Sprintf("%d %s", resp.StatusCode, scope)
	if o.answered[key] || len(o.answered) == maxSignIns {
		o.notify(fmt.Sprintf("%s refused the token again; vq signs in again once per refusal (%d times at most), so not this time.", o.c.MCPEndpoint(), maxSignIns))
		return errors.New("signed in again for this refusal already")
	}
	o.answered[key] = true

	why := "did not accept the token (HTTP 401)"
	if insufficient {
		why = "needs more scope than the token has (HTTP 403 insufficient_scope)"
		if scope != "" {
			why = "needs the scope " + scope + " (HTTP 403 insufficient_scope)"
		}
	}
	o.notify(fmt.Sprintf("%s %s: signing in again.", o.c.MCPEndpoint(), why))
	tok, err := o.signInAgain(ctx, req, resp)
	if err != nil {
		o.notify("Signing in again failed: " + err.Error())
		return err
	}
	// A token that cannot be stored still serves this process's calls.
	stored := "; token stored in the "
	if where, err := o.store.SaveOAuth(tok); err != nil {
		stored = ", but the token could not be stored: " + err.Error()
	} else {
		stored += where
	}
	o.mu.Lock()
	o.token, o.src = tok, o.store.oauthTokenSource(tok, o.c.plainHTTPClient())
	o.mu.Unlock()
	if rec, ok := ctx.Value(httpRecordKey{}).(*httpRecord); ok {
		rec.forgetFailure()
	}
	o.notify(fmt.Sprintf("Signed in again (issuer %s)%s.", tok.Issuer, stored))
	return nil
}

// signInAgain runs the OAuth flow for the refused request: the options of
// a login, offering the Client ID Metadata Document the token was got
// with and asking again for the scopes it was granted. The call's bound
// is held meanwhile: a person takes the time they take.
func (o *oauthCredential) signInAgain(ctx context.Context, req *http.Request, resp *http.Response) (OAuthToken, error) {
	o.mu.Lock()
	opts := *o.signIn
	opts.ClientMetadataURL, opts.Scopes = o.token.ClientMetadataURL, o.token.Scopes
	o.mu.Unlock()
	flow, err := o.c.newSignIn(opts)
	if err != nil {
		return OAuthToken{}, err
	}
	defer flow.close()
	defer holdBound(ctx)()
	if err := flow.handler.Authorize(ctx, req, resp); err != nil {
		return OAuthToken{}, err
	}
	return flow.result(ctx, resp.Header.Get("WWW-Authenticate"))
}

// sentToken is the bearer token the refused request carried, "" for none.
func sentToken(resp *http.Response) string {
	if resp.Request == nil {
		return ""
	}
	return strings.TrimPrefix(resp.Request.Header.Get("Authorization"), "Bearer ")
}

// current is the access token requests are sent with now, "" when it
// cannot be had.
func (o *oauthCredential) current() string {
	if tok, err := o.Token(); err == nil {
		return tok.AccessToken
	}
	return ""
}

func (o *oauthCredential) notify(msg string) {
	if o.signIn.Notify != nil {
		o.signIn.Notify(msg)
	}
}

type boundHoldKey struct{}

// withBoundHold lets a sign-in within the call of ctx pause the call's
// bound: hold stops it and returns what starts it again.
func withBoundHold(ctx context.Context, hold func() (release func())) context.Context {
	return context.WithValue(ctx, boundHoldKey{}, hold)
}

// holdBound pauses the bound of the call ctx belongs to, if it can be
// paused, and returns what starts it again.
func holdBound(ctx context.Context) (release func()) {
	if hold, ok := ctx.Value(boundHoldKey{}).(func() func()); ok {
		return hold()
	}
	return func() {}
}
