package account

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/textsafe"
	"golang.org/x/oauth2"
)

// OAuthLoginOptions drive an OAuth sign-in: vq auth login --oauth, and
// the sign-in again of a call the server refused (StoredOAuth.SignIn).
type OAuthLoginOptions struct {
	OpenURL    func(string) error // OpenURL shows the URL (a browser); nil only announces it (--no-browser).
	Headless   bool               // Headless follows the URL itself, for servers that need no person.
	Unattended bool               // Unattended: no person can open the URL, so a failed browser is ErrNoBrowser.
	Notify     func(string)       // Notify receives the lines a person needs.
	// ClientID and ClientSecret name a pre-registered client; without them vq
	// registers itself dynamically.
	ClientID, ClientSecret string
	// ClientMetadataURL is vq's client id as a Client ID Metadata Document, used
	// where the issuer supports it; the token keeps it for later sign-ins.
	ClientMetadataURL string
	Scopes            []string // Scopes are asked for beyond the server's (step-up).
}

// Target is the MCP endpoint a sign-in is for, and how vq reaches it.
type Target struct {
	Endpoint  string
	HTTP      *http.Client // without credential: api.Client.HTTPClient, with its timeout and tracer
	UserAgent string
}

// mcpInitializeVersion is the newest MCP revision opened with initialize, which
// the probe speaks (2026-07-28 opens with server/discover).
const mcpInitializeVersion = "2025-11-25"

// LoginOAuth signs in to the MCP endpoint with OAuth 2.1 (PKCE S256, the code
// received on a loopback listener).
func LoginOAuth(ctx context.Context, t Target, o OAuthLoginOptions) (OAuthToken, error) {
	req, resp, err := t.probe(ctx)
	if err != nil {
		return OAuthToken{}, err
	}
	flow, err := newSignIn(t, o)
	if err != nil {
		resp.Body.Close()
		return OAuthToken{}, err
	}
	defer flow.close()
	if resp.StatusCode == http.StatusOK && len(o.Scopes) == 0 || resp.StatusCode == http.StatusBadRequest {
		// initialize is open (or refused by a 2026-07-28 server): a session
		// through the handler finds a challenge on the tools (step-up).
		resp.Body.Close()
		if err := t.stepUpProbe(ctx, flow.handler); err != nil {
			return OAuthToken{}, err
		}
	} else if err := flow.handler.Authorize(ctx, req, resp); err != nil {
		return OAuthToken{}, fmt.Errorf("sign-in failed: %w", err)
	}
	return flow.result(ctx, resp.Header.Get("WWW-Authenticate"))
}

// signIn is one authorization-code flow (login or sign-in again): a loopback
// listener and the SDK's handler, which does discovery, registration, PKCE and
// the exchange.
type signIn struct {
	hc      *http.Client
	handler *auth.AuthorizationCodeHandler
	srv     *http.Server
	token   OAuthToken
}

func newSignIn(t Target, o OAuthLoginOptions) (*signIn, error) {
	endpoint := t.Endpoint
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("no loopback port for the sign-in redirect: %w", err)
	}
	redirect := "http://" + ln.Addr().String() + "/callback"
	callbacks := make(chan callbackResult, 1)
	s := &signIn{hc: t.HTTP, srv: &http.Server{Handler: callbackHandler(callbacks)}}
	go s.srv.Serve(ln) //nolint:errcheck // ends with ErrServerClosed on Close.

	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL: redirect,
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs:            []string{redirect},
			ClientName:              "vq",
			GrantTypes:              []string{"authorization_code", "refresh_token"},
			ResponseTypes:           []string{"code"},
			TokenEndpointAuthMethod: "none",
		}},
		RequestRefreshToken: true,
		Client:              s.hc,
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			return fetchCode(ctx, args.URL, redirect, o, callbacks)
		},
		NewTokenSource: func(ctx context.Context, cfg *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			s.token = OAuthToken{
				Resource: endpoint, ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret,
				TokenURL: cfg.Endpoint.TokenURL, AuthStyle: int(cfg.Endpoint.AuthStyle),
				ClientMetadataURL: o.ClientMetadataURL, Scopes: grantedScopes(tok, cfg.Scopes),
			}.with(tok)
			return cfg.TokenSource(ctx, tok), nil
		},
	}
	if o.ClientMetadataURL != "" {
		cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: o.ClientMetadataURL}
	}
	if o.ClientID != "" {
		cfg.PreregisteredClient = &oauthex.ClientCredentials{ClientID: o.ClientID}
		if o.ClientSecret != "" {
			cfg.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: o.ClientSecret}
		}
	}
	if len(o.Scopes) > 0 {
		cfg.ScopeFilter = func(discovered []string) []string {
			out := slices.Clone(discovered)
			for _, s := range o.Scopes {
				if !slices.Contains(out, s) {
					out = append(out, s)
				}
			}
			return out
		}
	}
	if s.handler, err = auth.NewAuthorizationCodeHandler(cfg); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

func (s *signIn) close() { s.srv.Close() }

// result is the token issued, with its issuer; challenge started the flow.
func (s *signIn) result(ctx context.Context, challenge string) (OAuthToken, error) {
	if s.token.AccessToken == "" {
		return OAuthToken{}, errors.New("sign-in failed: the authorization server issued no access token")
	}
	tok := s.token
	tok.Issuer = issuer(ctx, s.hc, challenge, tok.Resource, tok.TokenURL)
	return tok, nil
}

// grantedScopes are the scopes granted, else those asked for (RFC 6749 5.1).
func grantedScopes(tok *oauth2.Token, requested []string) []string {
	if granted, ok := tok.Extra("scope").(string); ok && granted != "" {
		return strings.Fields(granted)
	}
	return slices.Clone(requested)
}

// CheckClientMetadataURL says whether raw can be a Client ID Metadata Document
// id: https, a non-root path, no fragment, credentials or dot segments.
func CheckClientMetadataURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Scheme != "https" || u.Host == "":
		return errors.New("is not an https:// URL")
	case u.Path == "" || u.Path == "/":
		return errors.New("has no path: the document is served at a path, such as /oauth/client.json")
	case strings.Contains(raw, "#"):
		return errors.New("has a fragment (#…), which a client id may not")
	case u.User != nil:
		return errors.New("carries a user name or password, which a client id may not")
	case slices.ContainsFunc(strings.Split(u.Path, "/"), func(seg string) bool { return seg == "." || seg == ".." }):
		return errors.New("has a . or .. path segment, which a client id may not")
	}
	return nil
}

// probe sends an unauthenticated initialize: a 401 (or 403 challenge) starts
// the sign-in, a 200 or 400 may hide one (stepUpProbe), else ErrNoOAuth.
func (t Target) probe(ctx context.Context) (*http.Request, *http.Response, error) {
	endpoint := t.Endpoint
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"vq","version":%q}}}`,
		mcpInitializeVersion, api.UserAgentVersion(t.UserAgent))
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("User-Agent", t.UserAgent)
	resp, err := t.HTTP.Do(req)
	if err != nil {
		if api.TimedOut(err) {
			return nil, nil, fmt.Errorf("cannot reach %s: %w", endpoint, api.ErrTimedOut)
		}
		msg, _ := api.DescribeTransportError(endpoint, err)
		return nil, nil, fmt.Errorf("cannot reach %s: %s", endpoint, msg)
	}
	switch resp.StatusCode {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusOK, http.StatusBadRequest:
		return req, resp, nil
	case http.StatusNotFound:
		resp.Body.Close()
		return nil, nil, fmt.Errorf("wrong path: the MCP server is at %s (got 404 from %s)", api.MCPPath, endpoint)
	}
	resp.Body.Close()
	return nil, nil, fmt.Errorf("%s answered HTTP %d without asking for a sign-in: %w", endpoint, resp.StatusCode, ErrNoOAuth)
}

// ErrNoBrowser is a sign-in no one can finish: no browser, no person.
var ErrNoBrowser = errors.New("no browser could be opened, and no one at a terminal can open the sign-in URL")

// ErrNoOAuth is an MCP endpoint that asked for no sign-in.
var ErrNoOAuth = errors.New("it needs no OAuth")

// issuer is the key tokens are stored under: the resource metadata's, else
// the token endpoint's origin.
func issuer(ctx context.Context, hc *http.Client, challenge, endpoint, tokenURL string) string {
	if meta := api.ResourceMetadata(challenge); meta != "" {
		if prm, err := oauthex.GetProtectedResourceMetadata(ctx, meta, endpoint, hc); err == nil && prm != nil && len(prm.AuthorizationServers) > 0 {
			return prm.AuthorizationServers[0]
		}
	}
	if u, err := url.Parse(tokenURL); err == nil {
		return u.Scheme + "://" + u.Host
	}
	return tokenURL
}

type callbackResult struct {
	code, state, iss string
	err              error
}

// callbackHandler receives the redirect on the loopback listener.
func callbackHandler(out chan<- callbackResult) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		res := callbackResult{code: q.Get("code"), state: q.Get("state"), iss: q.Get("iss")}
		if e := q.Get("error"); e != "" {
			res.err = fmt.Errorf("the authorization server refused: %s %s", e, q.Get("error_description"))
		} else if res.code == "" {
			res.err = errors.New("the authorization server sent no code")
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if res.err != nil {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintln(w, "vq: sign-in failed; see the terminal.")
		} else {
			fmt.Fprintln(w, "vq: signed in. You can close this tab.")
		}
		select {
		case out <- res:
		default: // a second redirect (reload): the first one counts.
		}
	})
}

// fetchCode sends the person (or vq, headless) to the URL and waits for redirect.
func fetchCode(ctx context.Context, authURL, redirect string, o OAuthLoginOptions, callbacks <-chan callbackResult) (*auth.AuthorizationResult, error) {
	notify := func(s string) {
		if o.Notify != nil {
			o.Notify(s)
		}
	}
	switch {
	case o.Headless:
		if err := followAuthorization(ctx, authURL, redirect); err != nil {
			return nil, err
		}
	case o.OpenURL != nil:
		notify("Opening the browser to sign in. If it does not open, visit:\n  " + authURL)
		if err := o.OpenURL(authURL); err != nil {
			if o.Unattended {
				return nil, fmt.Errorf("%w (%s)", ErrNoBrowser, strings.ReplaceAll(err.Error(), "\n", "; "))
			}
			notify("Could not open a browser (" + err.Error() + "); open the URL above yourself.")
		}
	default:
		notify("Open this URL in a browser to sign in:\n  " + authURL)
	}
	notify("Waiting for the sign-in to finish (Ctrl-C to give up)…")
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case res := <-callbacks:
		if res.err != nil {
			return nil, res.err
		}
		return &auth.AuthorizationResult{Code: res.code, State: res.state, Iss: res.iss}, nil
	}
}

// followAuthorization is the headless browser: it follows redirects within the
// issuer's origin and to the listener only, so a server cannot make vq ask
// another server (one of this machine's) for anything.
func followAuthorization(ctx context.Context, authURL, redirect string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return err
	}
	back, err := url.Parse(redirect)
	if err != nil {
		return err
	}
	browser := &http.Client{CheckRedirect: func(next *http.Request, via []*http.Request) error {
		switch {
		case len(via) >= 10:
			return errors.New("stopped after 10 redirects")
		case textsafe.SameOrigin(next.URL, req.URL), textsafe.SameOrigin(next.URL, back) && next.URL.Path == back.Path:
			return nil
		}
		return fmt.Errorf("refused redirect to another host (%s)", next.URL.Host)
	}}
	resp, err := browser.Do(req)
	if uerr, ok := errors.AsType[*url.Error](err); ok {
		err = uerr.Err // without the authorization URL, its state and challenge
	}
	if err != nil {
		return fmt.Errorf("headless sign-in: %w", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.Request.URL.Path != "/callback" {
		return fmt.Errorf("headless sign-in: the authorization server wants a person (HTTP %d at %s)", resp.StatusCode, resp.Request.URL.Redacted())
	}
	return nil
}

// stepUpProbe lists the tools in a session that signs in through handler when
// challenged; no challenge at all is ErrNoOAuth.
func (t Target) stepUpProbe(ctx context.Context, handler *auth.AuthorizationCodeHandler) error {
	endpoint := t.Endpoint
	challenged := &challengeSpy{OAuthHandler: handler}
	client := mcp.NewClient(&mcp.Implementation{Name: "vq", Version: api.UserAgentVersion(t.UserAgent)}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	transport := &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: t.HTTP, OAuthHandler: challenged, DisableStandaloneSSE: true}
	session, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: api.MCPProtocolVersion})
	if err == nil {
		_, err = session.ListTools(ctx, nil)
		session.Close()
	}
	switch {
	case challenged.err != nil:
		return fmt.Errorf("sign-in failed: %w", challenged.err)
	case !challenged.called:
		return fmt.Errorf("%s answered initialize and tools/list without asking for a sign-in: %w", endpoint, ErrNoOAuth)
	case err != nil:
		return fmt.Errorf("sign-in failed: %w", err)
	}
	return nil
}

// challengeSpy is the session's OAuth handler, noting the challenge and sign-in.
type challengeSpy struct {
	auth.OAuthHandler
	called bool
	err    error
}

func (s *challengeSpy) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	s.called = true
	s.err = s.OAuthHandler.Authorize(ctx, req, resp)
	return s.err
}
