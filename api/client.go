package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/go-resty/resty/v2"
)

// MaxBodyBytes caps how much of a response vq will read into memory.
const MaxBodyBytes = 256 << 20

// Options configure a Client. The zero value of every field but BaseURL (or
// Endpoint for MCP) is usable.
type Options struct {
	BaseURL     string
	APIKey      string
	Project     string
	Environment string
	// Timeout bounds each HTTP request, body included. Zero means 60s. An
	// MCP call is bounded as a whole: by Timeout without an answer or a
	// progress notification, or, with CallBound, by Timeout in all.
	Timeout   time.Duration
	CallBound bool
	// NoRetry disables the contract's automatic retries.
	NoRetry bool
	// Debug, when set, receives an HTTP trace with credentials redacted.
	Debug io.Writer
	// Notify, when set, receives one-line human notices such as
	// "rate limited, retrying in 2s".
	Notify    func(string)
	UserAgent string
	// MaxBodyBytes overrides MaxBodyBytes (tests use small caps).
	MaxBodyBytes int64
	// RateLimitBudget bounds the total time spent waiting on 429s.
	// Zero means 60s.
	RateLimitBudget time.Duration
	// Transport is TransportInvoke (the default) or TransportMCP.
	Transport string
	// Endpoint is the full MCP endpoint; empty means {BaseURL}/api/mcp.
	Endpoint string
	// OAuth, when set and APIKey is empty, is the stored sign-in (vq auth
	// login --oauth) whose access token the MCP transport sends. An expired
	// token is refreshed through this client's HTTP (its timeout, redirect
	// policy and --debug tracer) and saved back to the store.
	OAuth *StoredOAuth
	// Headers are sent with every MCP request (--header), for servers
	// with an authentication header of their own.
	Headers http.Header
	// LogLevel, when set, is sent as logging/setLevel to an MCP server that
	// offers logging; its log messages reach Notify either way.
	LogLevel string
	// Elicit, when set, answers a server's elicitation requests (and vq
	// declares the capability); without it they are refused at once. Its
	// context ends when the calls in flight as the question came have
	// ended: it must answer then, with ElicitCancel.
	Elicit func(context.Context, Elicitation) (ElicitAnswer, error)
	// StdioStderr receives a stdio server's stderr; nil discards it.
	StdioStderr io.Writer
}

// StoredOAuth is a token found in a credential store, with that store.
type StoredOAuth struct {
	Token OAuthToken
	Store CredentialStore
	// SignIn, when set, is how to sign in again when the server refuses
	// the token of a request (401, or 403 insufficient_scope): a person at
	// a terminal, or headless. The new token is stored and the request
	// sent again. Without it the refusal is the answer, as in a script.
	SignIn *OAuthLoginOptions
}

// Client calls VisualQ tools. It is safe for concurrent use.
type Client struct {
	opts  Options
	http  *resty.Client
	mcp   mcpState
	oauth *oauthCredential // from opts.OAuth
	// inFlight are the MCP tool calls being sent, which bound the
	// server's questions (onElicit).
	inFlight callsInFlight
}

// New builds a client. It does not touch the network.
func New(opts Options) *Client {
	if opts.Timeout <= 0 {
		opts.Timeout = 60 * time.Second
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = MaxBodyBytes
	}
	if opts.RateLimitBudget <= 0 {
		opts.RateLimitBudget = 60 * time.Second
	}
	if opts.UserAgent == "" {
		opts.UserAgent = "vq"
	}
	opts.BaseURL = strings.TrimRight(opts.BaseURL, "/")

	hc := resty.New().
		SetTimeout(opts.Timeout).
		SetRedirectPolicy(sameHostRedirects()).
		SetHeader("User-Agent", opts.UserAgent).
		SetDoNotParseResponse(true)
	if opts.Debug != nil {
		hc.SetTransport(&tracer{next: hc.GetClient().Transport, w: opts.Debug, secrets: traceSecrets(opts)})
	}
	c := &Client{opts: opts, http: hc}
	if opts.OAuth != nil {
		c.oauth = newOAuthCredential(c, opts.OAuth)
	}
	return c
}

// sameHostRedirects follows redirects only within the original host and
// scheme, so the Authorization header can never be carried to another
// server, nor in clear to the same one.
func sameHostRedirects() resty.RedirectPolicy {
	return resty.RedirectPolicyFunc(func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return errors.New("stopped after 5 redirects")
		}
		if req.URL.Host != via[0].URL.Host {
			return fmt.Errorf("refused redirect to another host (%s)", req.URL.Host)
		}
		// https → http on the same host would carry the key in clear.
		if req.URL.Scheme != via[0].URL.Scheme {
			return fmt.Errorf("refused redirect from %s to %s", via[0].URL.Scheme, req.URL.Scheme)
		}
		return nil
	})
}

// traceSecrets are what --debug redacts wherever it appears: the key, and
// each --header value with and without its auth scheme.
func traceSecrets(opts Options) []string {
	secrets := []string{opts.APIKey}
	for _, values := range opts.Headers {
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

// InvokeURL is the invoke endpoint of the configured server.
func (c *Client) InvokeURL() string { return c.opts.BaseURL + InvokePath }

// InvokePath and CIPath are where a VisualQ server serves the invoke and
// CI endpoints under its base URL.
const (
	InvokePath = "/api/mcp/v1/invoke"
	CIPath     = "/api/ci/"
)

// Invoke calls a tool and always answers with a ToolResponse: failures of the
// transport become client-made http_error or unauthorized responses. The
// error is non-nil only when ctx ended (interrupt, signal).
func (c *Client) Invoke(ctx context.Context, call Call) (*ToolResponse, error) {
	return c.withRetries(ctx, call.Tool, func() *ToolResponse { return c.send(ctx, call) })
}

// InvokeOnce is Invoke without the automatic retries, for callers with a
// retry policy of their own: a job watch backs off on transient failures
// itself, and a failed job's final tool_error is an answer, not a glitch.
func (c *Client) InvokeOnce(ctx context.Context, call Call) (*ToolResponse, error) {
	resp := c.send(ctx, call)
	return resp, ctx.Err()
}

// send makes one attempt over the configured transport.
func (c *Client) send(ctx context.Context, call Call) *ToolResponse {
	if c.opts.Transport == TransportMCP {
		return c.callMCP(ctx, call)
	}
	body := invokeBody{Tool: call.Tool, Args: call.Args, Project: c.opts.Project, Environment: c.opts.Environment}
	if body.Args == nil {
		body.Args = map[string]any{}
	}
	return c.postInvoke(ctx, body)
}

// Transports a Client can speak (Options.Transport).
const (
	// TransportInvoke is POST {base}/api/mcp/v1/invoke, the default.
	TransportInvoke = "invoke"
	// TransportMCP is MCP over streamable HTTP at Options.Endpoint.
	TransportMCP = "mcp"
)

// plainHTTPClient is the invoke transport's http.Client (its timeout,
// redirect policy and --debug tracer) without a credential: for OAuth
// discovery, registration and token requests, and under the MCP transport.
func (c *Client) plainHTTPClient() *http.Client {
	base := c.http.GetClient()
	return &http.Client{Timeout: base.Timeout, CheckRedirect: base.CheckRedirect, Transport: base.Transport}
}

// FetchPublic downloads a public link an answer points at (a screenshot,
// perhaps on a CDN): no credential is sent, so any host may serve or
// redirect it; the client's --timeout and --debug trace apply, and the body
// is capped at max bytes.
func (c *Client) FetchPublic(ctx context.Context, link string, max int64) ([]byte, error) {
	hc := &http.Client{Timeout: c.opts.Timeout, Transport: c.http.GetClient().Transport}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, link, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", c.opts.UserAgent)
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err == nil && int64(len(body)) > max {
		return nil, bodyTooLarge(0, max)
	}
	return body, err
}
