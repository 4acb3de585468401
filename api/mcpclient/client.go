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

// Options configure a Client: api's, and the MCP transport's own.
type Options struct {
	api.Options
	// OverMCP sends the calls through the MCP session (--transport mcp), else to the invoke endpoint.
	OverMCP bool
	// Endpoint is the MCP endpoint or a stdio: command; empty means {BaseURL}/api/mcp.
	Endpoint string
	// CallBound bounds an MCP call by Timeout in all, else its silence.
	CallBound bool
	// OAuth, without APIKey, is the stored sign-in sent, refreshed through the client's HTTP and saved.
	OAuth *account.StoredOAuth
	// Headers are sent with every MCP request (--header); --debug redacts them.
	Headers http.Header
	// LogLevel, when set, is sent as logging/setLevel; log messages reach Notify either way.
	LogLevel string
	// Elicit answers elicitation (nil refuses); its ctx ends with the calls in flight: answer ElicitCancel.
	Elicit func(context.Context, api.Elicitation) (mcp.ElicitResult, error)
	// StdioStderr is shown a stdio server's stderr, sanitized (--debug).
	StdioStderr io.Writer
	// StdioEnv are KEY=VALUE pairs (--env) added to a stdio server's environment.
	StdioEnv []string
}

// Client is api's Client with an MCP session carrying the calls when OverMCP and answering tools/list,
// resources and prompts. It is safe for concurrent use.
type Client struct {
	*api.Client
	opts     Options
	mcp      mcpState
	oauth    *account.Credential // from opts.OAuth
	inFlight callsInFlight       // bound the server's questions (onElicit)
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

// sessionTransport is the session as api's Transport.
type sessionTransport struct{ c *Client }

func (t sessionTransport) Attempt(ctx context.Context, call api.Call) *api.ToolResponse {
	return t.c.callMCP(ctx, call)
}

func (t sessionTransport) Close() error { return t.c.Close() }

// ReadOnlyHint is the readOnlyHint of a list this client had; it asks none: that could open a new session.
func (t sessionTransport) ReadOnlyHint(_ context.Context, tool string) bool {
	v, known := t.c.mcp.readOnly.Load(tool)
	return known && v.(bool)
}

// headerSecrets are the --header values, with and without their auth scheme.
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

// MCPEndpoint is Options.Endpoint, else {BaseURL}/api/mcp.
func (c *Client) MCPEndpoint() string {
	if c.opts.Endpoint != "" {
		return c.opts.Endpoint
	}
	return c.opts.BaseURL + api.MCPPath
}

// Close ends the MCP session, if one was opened.
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

// LoginOAuth signs in to the MCP endpoint with OAuth 2.1 through the client's HTTP.
func (c *Client) LoginOAuth(ctx context.Context, o account.OAuthLoginOptions) (account.OAuthToken, error) {
	return account.LoginOAuth(ctx, c.signInTarget(), o)
}

func (c *Client) signInTarget() account.Target {
	return account.Target{Endpoint: c.MCPEndpoint(), HTTP: c.HTTPClient(), UserAgent: c.opts.UserAgent}
}

// mcpHTTPClient adds credential and --header, records failed statuses the SDK hides; no timeout (callContext).
func (c *Client) mcpHTTPClient() *http.Client {
	if c.mcp.http == nil {
		c.mcp.http = c.HTTPClient()
		c.mcp.http.Timeout = 0
		c.mcp.http.Transport = &mcpRoundTripper{next: c.mcp.http.Transport, c: c}
	}
	return c.mcp.http
}

// bearer is the API key, else the OAuth token; none when refresh fails, so the 401 says to sign in again.
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

// oauthHandler is the credential's sign-in again, or a nil interface.
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

// signInWithinTheCall holds the call's bound while a person signs in, then drops the refusal from the record.
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
