package account

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/visualq/vq/api"
	"golang.org/x/oauth2"
)

// StoredOAuth is a token found in a credential store, with that store.
type StoredOAuth struct {
	Token OAuthToken
	Store CredentialStore
	// SignIn, when set, signs in again when the server refuses the token (401,
	// 403 insufficient_scope); without it the refusal is the answer.
	SignIn *OAuthLoginOptions
}

// maxSignIns bounds one credential's sign-ins again: a server naming new
// challenges cannot keep a person signing in, nor headless vq looping.
const maxSignIns = 3

// Credential is the OAuth sign-in an MCP transport sends. With
// StoredOAuth.SignIn it is also the OAuthHandler the SDK asks to Authorize a
// refused request: vq signs in again for the challenge's scopes plus those
// granted, stores the token, and the SDK sends the request once more.
type Credential struct {
	target Target
	store  CredentialStore
	signIn *OAuthLoginOptions

	// mu guards the token; flow is held through a sign-in, so requests refused together start one.
	mu, flow sync.Mutex
	token    OAuthToken
	src      oauth2.TokenSource
	answered map[string]bool // the challenges a sign-in again was started for.
}

// NewCredential is the stored sign-in for target, refreshed through target's HTTP.
func NewCredential(stored StoredOAuth, target Target) *Credential {
	return &Credential{
		target: target, store: stored.Store, signIn: stored.SignIn,
		token: stored.Token, src: stored.Store.oauthTokenSource(stored.Token, target.HTTP),
		answered: map[string]bool{},
	}
}

// Token is the current access token, refreshed when it has expired.
func (o *Credential) Token() (*oauth2.Token, error) {
	o.mu.Lock()
	src := o.src
	o.mu.Unlock()
	return src.Token()
}

// SignInAgain is the credential as handler when it has SignIn, else a nil interface.
func (o *Credential) SignInAgain() auth.OAuthHandler {
	if o.signIn == nil {
		return nil
	}
	return o
}

// TokenSource gives the SDK none: the transport adds the bearer itself, and
// none when it cannot be refreshed, so the 401 leads to Authorize.
func (o *Credential) TokenSource(context.Context) (oauth2.TokenSource, error) {
	return nil, nil
}

// Authorize signs in again, once per challenge and maxSignIns in all; an error
// leaves the refusal as the answer.
func (o *Credential) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	defer resp.Body.Close()
	// Read to its end: the record of a refusal that stays the answer quotes it.
	_, _ = io.Copy(io.Discard, resp.Body)
	challenge := resp.Header.Get("WWW-Authenticate")
	scope, insufficient := api.InsufficientScope(challenge)
	if resp.StatusCode == http.StatusForbidden && !insufficient {
		return errors.New("forbidden, for a reason other than a scope: no sign-in grants it")
	}

	o.flow.Lock()
	defer o.flow.Unlock()
	if sentToken(resp) != o.current() {
		// Its token was replaced since: the SDK sends it again with the new one.
		return nil
	}
	key := fmt.Sprintf("%d %s", resp.StatusCode, scope)
	if o.answered[key] || len(o.answered) == maxSignIns {
		o.notify(fmt.Sprintf("%s refused the token again; vq signs in again once per refusal (%d times at most), so not this time.", o.target.Endpoint, maxSignIns))
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
	o.notify(fmt.Sprintf("%s %s: signing in again.", o.target.Endpoint, why))
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
	o.token, o.src = tok, o.store.oauthTokenSource(tok, o.target.HTTP)
	o.mu.Unlock()
	o.notify(fmt.Sprintf("Signed in again (issuer %s)%s.", tok.Issuer, stored))
	return nil
}

// signInAgain runs a login's flow with the token's Client ID Metadata Document
// and scopes.
func (o *Credential) signInAgain(ctx context.Context, req *http.Request, resp *http.Response) (OAuthToken, error) {
	o.mu.Lock()
	opts := *o.signIn
	opts.ClientMetadataURL, opts.Scopes = o.token.ClientMetadataURL, o.token.Scopes
	o.mu.Unlock()
	flow, err := newSignIn(o.target, opts)
	if err != nil {
		return OAuthToken{}, err
	}
	defer flow.close()
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

// current is the access token requests are sent with now, "" when none.
func (o *Credential) current() string {
	if tok, err := o.Token(); err == nil {
		return tok.AccessToken
	}
	return ""
}

func (o *Credential) notify(msg string) {
	if o.signIn.Notify != nil {
		o.signIn.Notify(msg)
	}
}
