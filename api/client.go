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

// Options configure a Client; zero fields but BaseURL take defaults.
type Options struct {
	BaseURL         string
	APIKey          string
	Project         string
	Environment     string
	Timeout         time.Duration // each HTTP request, body included; 60s
	NoRetry         bool
	Debug           io.Writer    // an HTTP trace, credentials redacted
	Redact          []string     // more values the trace redacts (--header values)
	Notify          func(string) // one-line notices: "rate limited, retrying in 2s"
	UserAgent       string
	MaxBodyBytes    int64         // the body cap; MaxBodyBytes
	RateLimitBudget time.Duration // total wait on 429s; 60s
	Transport       Transport     // nil: the invoke endpoint
}

// Transport carries one attempt; Client adds retries, follow-ups, watches.
type Transport interface {
	// Attempt sends call once; a transport failure is a client-made answer.
	Attempt(ctx context.Context, call Call) *ToolResponse
	Close() error
}

// WithDefaults is o with the zero fields' defaults.
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
	// No cookie jar (resty.New has one): the key is the one credential
	// sent, and nothing a server sets comes back in later calls.
	hc := resty.NewWithClient(&http.Client{}).
		SetTimeout(opts.Timeout).
		SetRedirectPolicy(sameHostRedirects()).
		SetHeader("User-Agent", opts.UserAgent).
		SetDoNotParseResponse(true)
	if opts.Debug != nil {
		hc.SetTransport(&tracer{next: hc.GetClient().Transport, w: opts.Debug, secrets: append([]string{opts.APIKey}, opts.Redact...)})
	}
	c := &Client{opts: opts, http: hc, transport: opts.Transport, gate: &rateGate{turn: make(chan struct{}, 1), now: time.Now}}
	if c.transport == nil {
		c.transport = invokeTransport{c}
	}
	return c
}

// Close ends what the transport holds open.
func (c *Client) Close() error { return c.transport.Close() }

// sameHostRedirects stays within the origin: the credential never leaves it.
func sameHostRedirects() resty.RedirectPolicy {
	return resty.RedirectPolicyFunc(func(req *http.Request, via []*http.Request) error {
		switch {
		case len(via) >= 5:
			return errors.New("stopped after 5 redirects")
		case textsafe.SameOrigin(req.URL, via[0].URL):
			return nil
		case req.URL.Scheme != via[0].URL.Scheme:
			return fmt.Errorf("refused redirect from %s to %s", via[0].URL.Scheme, req.URL.Scheme)
		}
		return fmt.Errorf("refused redirect to another host (%s)", req.URL.Host)
	})
}

// Where a VisualQ server serves its endpoints under its base URL.
const (
	InvokePath = "/api/mcp/v1/invoke"
	CIPath     = "/api/ci/"
	MCPPath    = "/api/mcp"
)

// Invoke calls a tool with the retry policy and always answers (err only when
// ctx ended).
func (c *Client) Invoke(ctx context.Context, call Call) (*ToolResponse, error) {
	repeatable := func() bool {
		h, ok := c.transport.(ReadOnlyHints)
		return ReadOnlyTool(call.Tool, ok && h.ReadOnlyHint(ctx, call.Tool))
	}
	resp, err := c.retry(ctx, call, repeatable, func() *ToolResponse { return c.transport.Attempt(ctx, call) })
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

// InvokeOnce is one attempt, for callers with a retry policy of their own.
func (c *Client) InvokeOnce(ctx context.Context, call Call) (*ToolResponse, error) {
	resp := c.transport.Attempt(ctx, call)
	return resp, ctx.Err()
}

// The --transport values.
const (
	TransportInvoke = "invoke"
	TransportMCP    = "mcp"
)

// invokeTransport POSTs calls to the invoke endpoint.
type invokeTransport struct{ c *Client }

func (invokeTransport) Close() error { return nil }

// HTTPClient is the client's http.Client without a credential (OAuth, MCP).
func (c *Client) HTTPClient() *http.Client {
	base := c.http.GetClient()
	return &http.Client{Timeout: base.Timeout, CheckRedirect: base.CheckRedirect, Transport: base.Transport}
}

// FetchPublic downloads a linked file only from home's origin, so an answer
// cannot aim vq elsewhere; no credential, capped at max.
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

// UserAgentVersion is the version of a user agent "vq/1.2.3", else "dev".
func UserAgentVersion(ua string) string {
	if _, v, ok := strings.Cut(ua, "/"); ok && v != "" {
		return v
	}
	return "dev"
}
