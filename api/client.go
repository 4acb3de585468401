package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-resty/resty/v2"
	"github.com/visualq/vq/internal/textsafe"
)

// MaxBodyBytes caps how much of a response vq will read into memory.
const MaxBodyBytes = 256 << 20

// Options configure a Client. The zero value of every field but BaseURL is
// usable.
type Options struct {
	BaseURL     string
	APIKey      string
	Project     string
	Environment string
	// Timeout bounds each HTTP request, body included. Zero means 60s.
	Timeout time.Duration
	// NoRetry disables the contract's automatic retries.
	NoRetry bool
	// Debug, when set, receives an HTTP trace with credentials redacted.
	Debug io.Writer
	// Redact are values the trace redacts wherever they appear, besides
	// APIKey: the credentials of a transport's own (--header values).
	Redact []string
	// Notify, when set, receives one-line human notices such as
	// "rate limited, retrying in 2s".
	Notify    func(string)
	UserAgent string
	// MaxBodyBytes overrides MaxBodyBytes (tests use small caps).
	MaxBodyBytes int64
	// RateLimitBudget bounds the total time spent waiting on 429s.
	// Zero means 60s.
	RateLimitBudget time.Duration
	// Transport carries the calls; nil means the invoke endpoint,
	// POST {BaseURL}/api/mcp/v1/invoke. Package mcpclient's carries them
	// over an MCP session.
	Transport Transport
}

// Transport carries one attempt of a call to a server and back. Client
// wraps it in the contract's retries, follow-ups and watches, so that a
// call reads the same whichever transport carried it.
type Transport interface {
	// Attempt sends call once and always answers with a ToolResponse: a
	// failure of the transport is a client-made one (TransportFailure,
	// Unauthorized, ...).
	Attempt(ctx context.Context, call Call) *ToolResponse
	// Close ends what the transport holds open, such as a session.
	Close() error
}

// WithDefaults is o with the defaults of the fields left zero: what New
// and every transport built on the same options run with.
func (o Options) WithDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = 60 * time.Second
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = MaxBodyBytes
	}
	if o.RateLimitBudget <= 0 {
		o.RateLimitBudget = 60 * time.Second
	}
	if o.UserAgent == "" {
		o.UserAgent = "vq"
	}
	o.BaseURL = strings.TrimRight(o.BaseURL, "/")
	return o
}

// Client calls VisualQ tools. It is safe for concurrent use.
type Client struct {
	opts      Options
	http      *resty.Client
	transport Transport
	gate      *rateGate
}

// New builds a client. It does not touch the network.
func New(opts Options) *Client {
	opts = opts.WithDefaults()
	hc := resty.New().
		SetTimeout(opts.Timeout).
		SetRedirectPolicy(sameHostRedirects()).
		SetHeader("User-Agent", opts.UserAgent).
		SetDoNotParseResponse(true)
	if opts.Debug != nil {
		hc.SetTransport(&tracer{next: hc.GetClient().Transport, w: opts.Debug, secrets: append([]string{opts.APIKey}, opts.Redact...)})
	}
	c := &Client{opts: opts, http: hc, transport: opts.Transport, gate: newRateGate()}
	if c.transport == nil {
		c.transport = invokeTransport{c}
	}
	return c
}

// Close ends what the transport holds open. Invoke clients have nothing
// to close; Close is always safe to call.
func (c *Client) Close() error { return c.transport.Close() }

// sameHostRedirects follows redirects only within the original origin
// (textsafe.SameOrigin), so the Authorization header can never be carried
// to another server, nor in clear to the same one, and a link vq fetches
// cannot lead it to another server.
func sameHostRedirects() resty.RedirectPolicy {
	return resty.RedirectPolicyFunc(func(req *http.Request, via []*http.Request) error {
		switch {
		case len(via) >= 5:
			return errors.New("stopped after 5 redirects")
		case textsafe.SameOrigin(req.URL, via[0].URL):
			return nil
		case req.URL.Scheme != via[0].URL.Scheme:
			// https → http on the same host would carry the key in clear.
			return fmt.Errorf("refused redirect from %s to %s", via[0].URL.Scheme, req.URL.Scheme)
		}
		return fmt.Errorf("refused redirect to another host (%s)", req.URL.Host)
	})
}

// InvokePath, CIPath and MCPPath are where a VisualQ server serves the
// invoke, CI and MCP endpoints under its base URL.
const (
	InvokePath = "/api/mcp/v1/invoke"
	CIPath     = "/api/ci/"
	MCPPath    = "/api/mcp"
)

// Invoke calls a tool and always answers with a ToolResponse: failures of the
// transport become client-made http_error or unauthorized responses. The
// error is non-nil only when ctx ended (interrupt, signal).
//
// The answer of an async tool of the registry is read as the start of a
// job (StartVerdict): an ok one that starts none is no verdict. What
// comes next is read here too, so that no caller asks api again: the
// readiness lock (Readiness), the job or token work it started (Job,
// Token).
func (c *Client) Invoke(ctx context.Context, call Call) (*ToolResponse, error) {
	resp, err := c.retry(ctx, call, func() bool { return c.Repeatable(ctx, call.Tool) },
		func() *ToolResponse { return c.transport.Attempt(ctx, call) })
	resp = StartVerdict(call, resp)
	if state, locked := ReadinessLock(resp); locked {
		resp.Readiness = &state
	}
	if lr, ok := ParseLongRunning(resp); ok {
		resp.Token = lr.Token
	} else {
		resp.Job, _ = AcceptedJob(resp)
	}
	return resp, err
}

// InvokeOnce is Invoke without the automatic retries, for callers with a
// retry policy of their own: a job watch backs off on transient failures
// itself, and a failed job's final tool_error is an answer, not a glitch.
func (c *Client) InvokeOnce(ctx context.Context, call Call) (*ToolResponse, error) {
	resp := c.transport.Attempt(ctx, call)
	return resp, ctx.Err()
}

// The --transport values: the transport a call goes by.
const (
	// TransportInvoke is POST {base}/api/mcp/v1/invoke, the default.
	TransportInvoke = "invoke"
	// TransportMCP is MCP (package mcpclient), at {base}/api/mcp or an
	// endpoint of its own.
	TransportMCP = "mcp"
)

// invokeTransport is the invoke endpoint's Transport: the call, plus the
// project and environment of every call, POSTed as one JSON body.
type invokeTransport struct{ c *Client }

func (t invokeTransport) Attempt(ctx context.Context, call Call) *ToolResponse {
	body := invokeBody{Tool: call.Tool, Args: call.Args, Project: t.c.opts.Project, Environment: t.c.opts.Environment}
	if body.Args == nil {
		body.Args = map[string]any{}
	}
	return t.c.postInvoke(ctx, body)
}

func (invokeTransport) Close() error { return nil }

// HTTPClient is the invoke transport's http.Client (its timeout, redirect
// policy and --debug tracer) without a credential: for OAuth discovery,
// registration and token requests, and under the MCP transport.
func (c *Client) HTTPClient() *http.Client {
	base := c.http.GetClient()
	return &http.Client{Timeout: base.Timeout, CheckRedirect: base.CheckRedirect, Transport: base.Transport}
}

// FetchPublic downloads a link an answer points at (a screenshot) from
// the origin of home, the VisualQ server: a link elsewhere is not fetched
// ("image on HOST"), and its redirects stay on that origin, so an answer
// cannot make vq fetch from another server, one of this machine's
// included. No credential is sent; the client's --timeout, redirect
// policy and --debug trace apply, and the body is capped at max bytes.
func (c *Client) FetchPublic(ctx context.Context, home, link string, max int64) ([]byte, error) {
	u, ok := textsafe.WebURL(link)
	if !ok {
		return nil, errors.New("not an http(s) link")
	}
	if h, ok := textsafe.WebURL(home); !ok || !textsafe.SameOrigin(u, h) {
		return nil, fmt.Errorf("image on %s, not on the VisualQ server", u.Host)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, link, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", c.opts.UserAgent)
	resp, err := c.HTTPClient().Do(req)
	if uerr, ok := errors.AsType[*url.Error](err); ok {
		return nil, uerr.Err // the link is the caller's: why, without it
	}
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err == nil && int64(len(body)) > max {
		return nil, BodyTooLarge(0, max)
	}
	return body, err
}

// UserAgentVersion is the version part of a user agent such as
// "vq/1.2.3", "dev" when there is none: what vq names itself by to an MCP
// server (clientInfo).
func UserAgentVersion(ua string) string {
	if _, v, ok := strings.Cut(ua, "/"); ok && v != "" {
		return v
	}
	return "dev"
}
