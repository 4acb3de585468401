package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/go-resty/resty/v2"
	"golang.org/x/oauth2"
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
	// Timeout bounds each HTTP request, body included. Zero means 60s.
	Timeout time.Duration
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
}

// StoredOAuth is a token found in a credential store, with that store.
type StoredOAuth struct {
	Token OAuthToken
	Store CredentialStore
}

// Client calls VisualQ tools. It is safe for concurrent use.
type Client struct {
	opts  Options
	http  *resty.Client
	mcp   mcpState
	oauth oauth2.TokenSource // from opts.OAuth
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
		hc.SetTransport(&tracer{next: hc.GetClient().Transport, w: opts.Debug, secret: opts.APIKey})
	}
	c := &Client{opts: opts, http: hc}
	if opts.OAuth != nil {
		c.oauth = opts.OAuth.Store.oauthTokenSource(opts.OAuth.Token, c.plainHTTPClient())
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

// InvokeURL is the invoke endpoint of the configured server.
func (c *Client) InvokeURL() string { return c.opts.BaseURL + "/api/mcp/v1/invoke" }

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

type invokeBody struct {
	Tool        string         `json:"tool"`
	Args        map[string]any `json:"args"`
	Project     string         `json:"project,omitempty"`
	Environment string         `json:"environment,omitempty"`
}

// MaxRateLimitRetries bounds how often one call is retried after rate
// limits, besides the waiting budget: a server that asks for tiny waits
// over and over is not hammered for the whole budget.
const MaxRateLimitRetries = 10

// withRetries applies the contract's retry rules (SPEC.md, "Retries") to one
// attempt function: rate limits wait and retry within a budget, unexpected
// failures retry once, refusals and 401s never.
func (c *Client) withRetries(ctx context.Context, tool string, attempt func() *ToolResponse) (*ToolResponse, error) {
	var waited time.Duration
	rateLimited := 0
	retriedUnexpected := false
	for {
		resp := attempt()
		if err := ctx.Err(); err != nil {
			return resp, err
		}
		if c.opts.NoRetry {
			return resp, nil
		}
		var wait time.Duration
		switch {
		case resp.ErrorCode() == CodeRateLimit:
			wait = resp.retryAfter()
			if waited+wait > c.opts.RateLimitBudget || rateLimited >= MaxRateLimitRetries {
				return resp, nil
			}
			waited += wait
			rateLimited++
			c.notify(fmt.Sprintf("%s: rate limited, retrying in %s", tool, wait.Round(time.Millisecond)))
		case resp.isUnexpected() && !retriedUnexpected:
			retriedUnexpected = true
			wait = 500 * time.Millisecond
			c.notify(fmt.Sprintf("%s: %s, retrying once", tool, resp.ErrorCode()))
		default:
			return resp, nil
		}
		if err := sleep(ctx, wait); err != nil {
			return resp, err
		}
	}
}

func (c *Client) notify(msg string) {
	if c.opts.Notify != nil {
		c.opts.Notify(msg)
	}
}

// isUnexpected is the failure class the seed says to retry once: a tool's
// unexpected error, or a transport failure that may pass on its own. A
// readiness lock is a refusal whatever code carries it: sending the call
// again is the loop its message asks not to make.
func (r *ToolResponse) isUnexpected() bool {
	if _, locked := ReadinessLock(r); locked {
		return false
	}
	return r.ErrorCode() == CodeToolError || r.transient
}

// retryAfter is how long a rate-limited call should wait, from the body's
// retryAfterMs, else one second.
func (r *ToolResponse) retryAfter() time.Duration {
	if r.RetryAfterMs > 0 {
		return time.Duration(r.RetryAfterMs) * time.Millisecond
	}
	return time.Second
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (c *Client) postInvoke(ctx context.Context, body invokeBody) *ToolResponse {
	var index objectIndex
	var dataIndex *objectIndex
	var ierr error
	status, header, raw, err := c.post(ctx, c.InvokeURL(), body, func(r io.Reader) {
		index, dataIndex, ierr = indexObject(r, "data")
	})
	if err != nil {
		return transportFailure(body.Tool, status, err)
	}
	if status == http.StatusUnauthorized {
		return unauthorized(body.Tool, header.Get("WWW-Authenticate"))
	}
	var resp *ToolResponse
	if ierr == nil {
		resp, ierr = toolResponseOf(raw, index, dataIndex)
	}
	if ierr != nil {
		return httpError(body.Tool, status, httpErrorMessage(status, raw))
	}
	if resp.RetryAfterMs == 0 && status == http.StatusTooManyRequests {
		resp.RetryAfterMs = retryAfterHeader(header.Get("Retry-After"))
	}
	return resp
}

// post sends a JSON body and reads the answer within the body cap. A non-nil
// error means no complete answer arrived; status is then 0 unless headers
// came before the failure. A non-nil decode is given the answer to read;
// see streamDecodeMax for when it reads while the answer arrives.
func (c *Client) post(ctx context.Context, url string, body any, decode func(io.Reader)) (int, http.Header, []byte, error) {
	req := c.http.R().SetContext(ctx).SetBody(body).SetHeader("Content-Type", "application/json").SetHeader("Accept", "application/json")
	if c.opts.APIKey != "" {
		req.SetAuthToken(c.opts.APIKey)
	}
	res, err := req.Post(url)
	if err != nil {
		return 0, nil, nil, err
	}
	raw := res.RawBody()
	defer raw.Close()
	size := res.RawResponse.ContentLength
	answer := newBody(size, c.opts.MaxBodyBytes)
	if decode != nil && 0 < size && size <= streamDecodeMax {
		go answer.fill(raw)
		decode(answer.reader())
		data, err := answer.bytes()
		return res.StatusCode(), res.Header(), data, err
	}
	answer.fill(raw)
	data, err := answer.bytes()
	if decode != nil && err == nil {
		decode(bytes.NewBuffer(data))
	}
	return res.StatusCode(), res.Header(), data, err
}

// streamDecodeMax is the largest answer decoded while it arrives, on this
// goroutine as another one reads it: a 100k-failure answer (8 MB) is then
// decoded alongside its transfer instead of after it. A decoder reading a
// stream copies each value it is in the middle of, so one huge string
// would double its memory: larger answers, and answers of unannounced
// length, are decoded in place once read.
const streamDecodeMax = 32 << 20

// transportFailure turns a request that got no complete answer into the
// client-made http_error of the contract.
func transportFailure(tool string, status int, err error) *ToolResponse {
	msg, transient := describeTransportError(err)
	if status != 0 {
		msg = fmt.Sprintf("HTTP %d, then %s", status, msg)
	}
	r := clientError(tool, CodeHTTPError, msg, true)
	r.transient = transient
	return r
}

// httpError is the client-made http_error for an answer that came but was
// no ToolResponse: recoverable, and retried once when the server failed
// (5xx), as the contract retries unexpected failures.
func httpError(tool string, status int, msg string) *ToolResponse {
	r := clientError(tool, CodeHTTPError, msg, true)
	r.transient = status >= 500
	return r
}

// describeTransportError says what went wrong in words a user can act on,
// and whether the failure is the kind that may pass on a second try. A
// timeout is not retried: the server may still be doing the work.
func describeTransportError(err error) (string, bool) {
	var netErr net.Error
	var urlErr *url.Error
	switch {
	case errors.Is(err, errBodyTooLarge):
		return err.Error(), false
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "request timed out (raise --timeout if the server is slow)", false
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "connection cut before the answer was complete", true
	case errors.As(err, &urlErr) && strings.Contains(urlErr.Err.Error(), "redirect"):
		return urlErr.Err.Error(), false
	case errors.Is(err, os.ErrDeadlineExceeded):
		return "request timed out", false
	}
	var sysErr *os.SyscallError
	if errors.As(err, &sysErr) {
		// "connection refused", "connection reset by peer": the system's
		// words without the syscall and addresses around them.
		return "connection failed: " + sysErr.Err.Error(), true
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) {
		return fmt.Sprintf("connection failed: %s %s", opErr.Op, opErr.Err), true
	}
	if errors.As(err, &urlErr) {
		// The method and URL are the user's own; what failed is inside.
		err = urlErr.Err
	}
	return "request failed: " + snippet([]byte(err.Error())), true
}

// httpErrorMessage names the status and quotes a short, single-line,
// printable snippet of a body that was not a ToolResponse.
func httpErrorMessage(status int, body []byte) string {
	msg := fmt.Sprintf("HTTP %d %s", status, http.StatusText(status))
	if s := snippet(body); s != "" {
		return msg + ": " + s
	}
	return msg + " with an empty body"
}

const snippetRunes = 120

// snippet keeps the first printable words of a body: markup tags and control
// characters dropped, whitespace collapsed, invalid UTF-8 replaced.
func snippet(b []byte) string {
	var out strings.Builder
	inTag, space, n := false, false, 0
	for _, r := range strings.ToValidUTF8(string(b[:min(len(b), 4096)]), "\uFFFD") {
		switch {
		case r == '<':
			inTag = true
			continue
		case r == '>' && inTag:
			inTag = false
			space = true
			continue
		case inTag:
			continue
		case r <= ' ' || (r >= 0x7f && r < 0xa0):
			space = true
			continue
		}
		if space && out.Len() > 0 {
			out.WriteByte(' ')
		}
		space = false
		out.WriteRune(r)
		if n++; n >= snippetRunes {
			out.WriteString("…")
			break
		}
	}
	return out.String()
}

func retryAfterHeader(v string) int64 {
	var secs int64
	if _, err := fmt.Sscanf(v, "%d", &secs); err == nil && secs > 0 {
		return secs * 1000
	}
	return 0
}

// DecodeToolResponse parses a body as a ToolResponse. It fails for anything
// that is not a JSON object carrying a boolean "ok", so a gateway's HTML or a
// truncated body is never mistaken for an answer. The response keeps raw:
// its Data points into it rather than holding a copy, which for a large
// answer (100k failures, ~8 MB) is most of the memory a call takes.
func DecodeToolResponse(raw []byte) (*ToolResponse, error) {
	top, data, err := indexObject(bytes.NewBuffer(raw), "data")
	if err != nil {
		return nil, fmt.Errorf("not a ToolResponse: %w", err)
	}
	return toolResponseOf(raw, top, data)
}

// toolResponseOf is DecodeToolResponse's second half: the response from
// raw, once raw has been indexed (top) with its data (data, when an object).
func toolResponseOf(raw []byte, index objectIndex, dataIndex *objectIndex) (*ToolResponse, error) {
	top := index.in(raw)
	// Everything but data is small: decode it the ordinary way, numbers kept
	// exact so next actions go back to the server as sent. data stays a view
	// into raw, indexed once for the questions asked of it later.
	var probe struct {
		OK *bool `json:"ok"`
		ToolResponse
	}
	dec := json.NewDecoder(bytes.NewReader(top.without("data")))
	dec.UseNumber()
	if err := dec.Decode(&probe); err != nil {
		return nil, fmt.Errorf("not a ToolResponse: %w", err)
	}
	if probe.OK == nil {
		return nil, errors.New(`not a ToolResponse: no boolean "ok"`)
	}
	resp := &probe.ToolResponse
	resp.OK = *probe.OK
	resp.raw = raw
	resp.Data = top.get("data")
	if len(resp.Data) == 0 {
		resp.Data = json.RawMessage("null")
	}
	if dataIndex != nil {
		data := dataIndex.in(raw)
		resp.data = &data
	}
	if resp.Warnings == nil {
		resp.Warnings = []string{}
	}
	if resp.NextActions == nil {
		resp.NextActions = []NextAction{}
	}
	return resp, nil
}
