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
	// OpenURL shows the person the authorization URL (a browser); nil
	// means the URL is only announced through Notify (--no-browser).
	OpenURL func(string) error
	// Headless makes vq follow the authorization URL itself, for servers
	// that authorize without a person (tests, the sandbox, conformance).
	Headless bool
	// Unattended says no person is at a terminal to open the URL by hand:
	// a browser that cannot be opened ends the sign-in at once
	// (ErrNoBrowser), as no redirect can come.
	Unattended bool
	// Notify receives the lines a person needs: the URL to open, progress.
	Notify func(string)
	// ClientID and ClientSecret name a client registered with the issuer
	// beforehand; without them vq registers itself (dynamic registration).
	ClientID, ClientSecret string
	// ClientMetadataURL is vq's client id as a Client ID Metadata Document
	// (an https URL serving the client's metadata), used where the
	// authorization server advertises client_id_metadata_document_supported;
	// elsewhere ClientID or dynamic registration serve. The token keeps it,
	// for the sign-ins after (CheckClientMetadataURL says which URLs do).
	ClientMetadataURL string
	// Scopes are asked for beyond those the server's challenge or metadata
	// name: a server may want more (step-up) only for some calls.
	Scopes []string
}

// Target is the MCP endpoint a sign-in is for, and how vq reaches it.
type Target struct {
	Endpoint string
	// HTTP carries no credential: the client's (api.Client.HTTPClient), with
	// its timeout, redirect policy and --debug tracer.
	HTTP      *http.Client
	UserAgent string
}

// mcpInitializeVersion is the newest MCP revision opened with initialize,
// which the probe, a request made without the SDK, speaks: a server
// refuses an initialize in 2026-07-28, opened with server/discover.
const mcpInitializeVersion = "2025-11-25"

// LoginOAuth signs in to the MCP endpoint with OAuth 2.1: the endpoint's
// 401 names its protected-resource metadata, which names the authorization
// server; vq registers (or uses ClientID), sends the person to authorize
// with PKCE S256, receives the code on a loopback listener and exchanges it.
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
		// initialize is open: the server may challenge only on its tools
		// (step-up), which a session run through the handler finds out.
		// A server of 2026-07-28 refuses initialize (it opens with
		// server/discover), which the session speaks.
		resp.Body.Close()
		if err := t.stepUpProbe(ctx, flow.handler); err != nil {
			return OAuthToken{}, err
		}
	} else if err := flow.handler.Authorize(ctx, req, resp); err != nil {
		return OAuthToken{}, fmt.Errorf("sign-in failed: %w", err)
	}
	return flow.result(ctx, resp.Header.Get("WWW-Authenticate"))
}

// signIn is one OAuth authorization-code flow as vq runs it, for a login
// and a sign-in again alike: a loopback listener for the redirect, and the
// SDK's handler configured from the options, which does discovery,
// registration (a Client ID Metadata Document, else the client given, else
// dynamic), PKCE and the exchange. token records what it was issued.
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

// result is the token the flow was issued, with the issuer it is stored
// under; challenge is the WWW-Authenticate that started the flow.
func (s *signIn) result(ctx context.Context, challenge string) (OAuthToken, error) {
	if s.token.AccessToken == "" {
		return OAuthToken{}, errors.New("sign-in failed: the authorization server issued no access token")
	}
	tok := s.token
	tok.Issuer = issuer(ctx, s.hc, challenge, tok.Resource, tok.TokenURL)
	return tok, nil
}

// grantedScopes are the scopes a token response says it grants, else
// (RFC 6749 5.1: the scope is omitted when it is the one requested) those
// asked for.
func grantedScopes(tok *oauth2.Token, requested []string) []string {
	if granted, ok := tok.Extra("scope").(string); ok && granted != "" {
		return strings.Fields(granted)
	}
	return slices.Clone(requested)
}

// CheckClientMetadataURL says whether raw can be a client id of a Client ID
// Metadata Document: an https URL with a path other than the root, without
// a fragment, credentials or dot segments (draft-ietf-oauth-client-id-
// metadata-document, section 3).
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

// probe sends an unauthenticated initialize to learn how the endpoint wants
// to be signed in to: a 401 (or a 403 challenge) starts the sign-in; a 200
// may still hide one behind the tools, and a 400 behind a newer handshake
// (stepUpProbe). Any other answer means there is no OAuth sign-in to run
// (ErrNoOAuth).
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

// ErrNoBrowser is a sign-in that no one can finish: the browser did not
// open, and no person at a terminal can open the URL.
var ErrNoBrowser = errors.New("no browser could be opened, and no one at a terminal can open the sign-in URL")

// ErrNoOAuth is an MCP endpoint that answered without asking for a
// sign-in: it takes an API key, or nothing.
var ErrNoOAuth = errors.New("it needs no OAuth")

// issuer names the authorization server the tokens came from, the key they
// are stored under: from the protected-resource metadata, else the token
// endpoint's origin.
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

// callbackHandler receives the authorization server's redirect on the
// loopback listener.
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

// fetchCode sends the person (or, headless, vq itself) to the
// authorization URL and waits for the redirect to the listener, at
// redirect.
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

// followAuthorization is the headless browser: GET the authorization URL
// and follow its redirects within the authorization server's origin
// (textsafe.SameOrigin), and the one to redirect, the loopback listener,
// which ends them. It carries no credential, yet a redirect elsewhere is
// refused: the server's answer cannot make vq ask another server (one of
// this machine's) for anything.
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

// stepUpProbe opens an SDK session whose transport signs in through handler
// when challenged, and lists the tools: a server that lets initialize
// through without a token asks for one there. No challenge at all means
// the server needs no OAuth (ErrNoOAuth).
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

// challengeSpy is the session's OAuth handler, noting whether the server
// challenged and how the sign-in went.
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
