package mcpclient

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/api/account"
)

// Options configure a Client: api's, which its calls and its HTTP run
// with, and the MCP transport's own.
type Options struct {
	api.Options
	// OverMCP sends the calls through the MCP session (--transport mcp):
	// New makes the session api's Transport. Without it calls go to the
	// invoke endpoint, and only tools/list, resources and prompts speak
	// MCP.
	OverMCP bool
	// Endpoint is the full MCP endpoint, or a stdio: command
	// (StdioScheme); empty means {BaseURL}/api/mcp.
	Endpoint string
	// CallBound bounds an MCP call by Timeout in all; without it Timeout
	// bounds the call's silence (no answer nor progress notification).
	CallBound bool
	// OAuth, when set and APIKey is empty, is the stored sign-in (vq auth
	// login --oauth) whose access token the transport sends. An expired
	// token is refreshed through the client's HTTP (its timeout, redirect
	// policy and --debug tracer) and saved back to the store.
	OAuth *account.StoredOAuth
	// Headers are sent with every MCP request (--header), for servers
	// with an authentication header of their own; --debug redacts them.
	Headers http.Header
	// LogLevel, when set, is sent as logging/setLevel to a server that
	// offers logging; its log messages reach Notify either way.
	LogLevel string
	// Elicit, when set, answers a server's elicitation requests (and vq
	// declares the capability); without it they are refused at once. Its
	// context ends when the calls in flight as the question came have
	// ended: it must answer then, with api.ElicitCancel.
	Elicit func(context.Context, api.Elicitation) (mcp.ElicitResult, error)
	// StdioStderr is shown a stdio server's stderr, a sanitized line at a
	// time (--debug); nil shows nothing. The last lines are kept for the
	// error of a server that cannot start either way.
	StdioStderr io.Writer
	// StdioEnv are KEY=VALUE pairs (--env) added to a stdio server's
	// environment, which has only a few of vq's variables (childEnv).
	StdioEnv []string
}

// Client is vq's client of a VisualQ (or any MCP) server: api's Client,
// whose calls, CI requests and watches it runs, with the MCP session
// beside it, which carries the calls when OverMCP and answers tools/list,
// resources and prompts whatever the transport. It is safe for
// concurrent use.
type Client struct {
	*api.Client
	opts  Options
	mcp   mcpState
	oauth *account.Credential // from opts.OAuth
	// inFlight are the MCP tool calls being sent, which bound the
	// server's questions (onElicit).
	inFlight callsInFlight
}

// New builds a client. It does not touch the network.
func New(opts Options) *Client {
	opts.Options = opts.WithDefaults()
	opts.Redact = append(slices.Clone(opts.Redact), headerSecrets(opts.Headers)...)
	c := &Client{opts: opts}
	if opts.OverMCP {
		opts.Transport = sessionTransport{c}
	}
	c.Client = api.New(opts.Options)
	if opts.OAuth != nil {
		c.oauth = account.NewCredential(*opts.OAuth, c.signInTarget())
	}
	return c
}

// sessionTransport is the session as api's Transport: one tools/call per
// attempt.
type sessionTransport struct{ c *Client }

func (t sessionTransport) Attempt(ctx context.Context, call api.Call) *api.ToolResponse {
	return t.c.callMCP(ctx, call)
}

func (t sessionTransport) Close() error { return t.c.Close() }

// ReadOnlyHint is the server's readOnlyHint of tool, when a list this
// client had names the tool. It asks for no list: after a broken call
// that would be a new session, or a new child.
func (t sessionTransport) ReadOnlyHint(_ context.Context, tool string) bool {
	v, known := t.c.mcp.readOnly.Load(tool)
	return known && v.(bool)
}

// headerSecrets are what --debug redacts of the --header values: each
// value, with and without its auth scheme.
func headerSecrets(headers http.Header) []string {
	var secrets []string
	for _, values := range headers {
		for _, v := range values {
			_, token, hasScheme := strings.Cut(v, " ")
			secrets = append(secrets, v)
			if hasScheme {
				secrets = append(secrets, token)
			}
		}
	}
	return secrets
}

// MCPEndpoint is the MCP endpoint the client uses: Options.Endpoint, else
// {BaseURL}/api/mcp.
func (c *Client) MCPEndpoint() string {
	if c.opts.Endpoint != "" {
		return c.opts.Endpoint
	}
	return c.opts.BaseURL + api.MCPPath
}

// Close ends the MCP session, if one was opened; Close is always safe to
// call.
func (c *Client) Close() error {
	c.mcp.mu.Lock()
	defer c.mcp.mu.Unlock()
	return c.dropSessionLocked()
}

func (c *Client) dropSessionLocked() error {
	if c.mcp.session == nil {
		return nil
	}
	err := c.mcp.session.Close()
	c.mcp.session, c.mcp.tools = nil, nil
	return err
}

func (c *Client) notify(msg string) {
	if c.opts.Notify != nil {
		c.opts.Notify(msg)
	}
}

// LoginOAuth signs in to the client's MCP endpoint with OAuth 2.1
// (account.LoginOAuth), through the client's HTTP.
func (c *Client) LoginOAuth(ctx context.Context, o account.OAuthLoginOptions) (account.OAuthToken, error) {
	return account.LoginOAuth(ctx, c.signInTarget(), o)
}

// signInTarget is the client's MCP endpoint as a sign-in reaches it.
func (c *Client) signInTarget() account.Target {
	return account.Target{Endpoint: c.MCPEndpoint(), HTTP: c.HTTPClient(), UserAgent: c.opts.UserAgent}
}

// mcpHTTPClient is HTTPClient behind a round tripper that adds the
// credential and --header, and records what the SDK does not report: the
// HTTP status and the WWW-Authenticate challenge of a failed request. It
// has no timeout of its own: an event stream lasts as long as its call,
// which callContext bounds.
func (c *Client) mcpHTTPClient() *http.Client {
	if c.mcp.http == nil {
		c.mcp.http = c.HTTPClient()
		c.mcp.http.Timeout = 0
		c.mcp.http.Transport = &mcpRoundTripper{next: c.mcp.http.Transport, c: c}
	}
	return c.mcp.http
}

// bearer is the credential of the MCP transport: the API key, else an
// OAuth access token (refreshed by the token source when it has expired).
// A token source that fails yields no header: the server's 401 then tells
// the user to sign in again.
func (c *Client) bearer() string {
	if c.opts.APIKey != "" {
		return c.opts.APIKey
	}
	if c.oauth != nil {
		if tok, err := c.oauth.Token(); err == nil {
			return tok.AccessToken
		}
	}
	return ""
}

// oauthHandler is the transport's OAuthHandler: the credential's sign-in
// again when a refused request may be answered with one, else none (a
// nil interface, not a nil pointer in one).
func (c *Client) oauthHandler() auth.OAuthHandler {
	if c.opts.APIKey != "" || c.oauth == nil {
		return nil
	}
	signIn := c.oauth.SignInAgain()
	if signIn == nil {
		return nil
	}
	return signInWithinTheCall{signIn}
}

// signInWithinTheCall is a sign-in again as the call that was refused
// runs it: the call's bound is held meanwhile (a person takes the time
// they take), and once signed in, the refusal is dropped from the
// request's record, which the request sent again answers.
type signInWithinTheCall struct{ auth.OAuthHandler }

func (h signInWithinTheCall) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	defer holdBound(ctx)()
	if err := h.OAuthHandler.Authorize(ctx, req, resp); err != nil {
		return err
	}
	if rec, ok := ctx.Value(httpRecordKey{}).(*httpRecord); ok {
		rec.forgetFailure()
	}
	return nil
}

func sameOrigin(u *url.URL, endpoint string) bool {
	e, err := url.Parse(endpoint)
	return err == nil && strings.EqualFold(u.Scheme, e.Scheme) && strings.EqualFold(u.Host, e.Host)
}
