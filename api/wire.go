package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// invokeBody is a Call plus the project and environment of every call.
type invokeBody struct {
	Tool        string         `json:"tool"`
	Args        map[string]any `json:"args"`
	Project     string         `json:"project,omitempty"`
	Environment string         `json:"environment,omitempty"`
}

func (t invokeTransport) Attempt(ctx context.Context, call Call) *ToolResponse {
	c := t.c
	body := invokeBody{Tool: call.Tool, Args: call.Args, Project: c.opts.Project, Environment: c.opts.Environment}
	if body.Args == nil {
		body.Args = map[string]any{}
	}
	var index objectIndex
	var dataIndex *objectIndex
	var ierr error
	url := c.opts.BaseURL + InvokePath
	status, header, raw, err := c.post(ctx, url, body, func(r io.Reader) {
		index, dataIndex, ierr = indexObject(r, "data")
	})
	if err != nil {
		return TransportFailure(body.Tool, url, status, err)
	}
	if status == http.StatusUnauthorized {
		return Unauthorized(body.Tool, header.Get("WWW-Authenticate"))
	}
	var resp *ToolResponse
	if ierr == nil {
		resp, ierr = toolResponseOf(raw, index, dataIndex)
	}
	if ierr != nil {
		return notAToolResponse(body.Tool, url, status, header, raw)
	}
	if resp.OK && status >= http.StatusBadRequest {
		return Contradicted(body.Tool, fmt.Sprintf("HTTP %d %s", status, http.StatusText(status)), status >= 500)
	}
	if resp.RetryAfterMs == 0 && status == http.StatusTooManyRequests {
		resp.RetryAfterMs = retryAfterHeader(header.Get("Retry-After"))
	}
	return resp
}

// post sends a JSON body and reads the answer within the body cap; an error is
// no complete answer (*unsentError: nothing written). decode runs concurrently.
func (c *Client) post(ctx context.Context, url string, body any, decode func(io.Reader)) (int, http.Header, []byte, error) {
	var wrote atomic.Bool
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteHeaders: func() { wrote.Store(true) }})
	req := c.http.R().SetContext(ctx).SetBody(body).SetHeader("Content-Type", "application/json").SetHeader("Accept", "application/json")
	if c.opts.APIKey != "" {
		req.SetAuthToken(c.opts.APIKey)
	}
	if key, keyed := ctx.Value(idempotencyKey{}).(string); keyed {
		req.SetHeader("Idempotency-Key", strconv.Quote(key)) // a structured-field string
	}
	res, err := req.Post(url)
	if err != nil {
		if !wrote.Load() {
			err = &unsentError{err}
		}
		return 0, nil, nil, err
	}
	raw := res.RawBody()
	defer raw.Close()
	answer := newBody(res.RawResponse.ContentLength, c.opts.MaxBodyBytes)
	go answer.fill(raw)
	if decode != nil {
		decode(answer.reader())
	}
	data, err := answer.bytes()
	return res.StatusCode(), res.Header(), data, err
}

// unsentError: failed before a byte was written, so the server did nothing.
type unsentError struct{ err error }

func (e *unsentError) Error() string { return e.err.Error() }
func (e *unsentError) Unwrap() error { return e.err }

// TransportFailure is the http_error of a request without a complete answer:
// unanswered unless never sent or a redirect was refused.
func TransportFailure(tool, url string, status int, err error) *ToolResponse {
	msg, transient := DescribeTransportError(shownURL(url), err)
	if status != 0 {
		msg = fmt.Sprintf("HTTP %d, then %s", status, msg)
	}
	r := ClientError(tool, CodeHTTPError, msg, true)
	_, unsent := errors.AsType[*unsentError](err)
	r.Failure = Failure{Transient: transient, TimedOut: TimedOut(err), NotSent: unsent, Unanswered: !unsent && !refusedRedirect(err)}
	return r
}

func refusedRedirect(err error) bool {
	var urlErr *url.Error
	return errors.As(err, &urlErr) && strings.Contains(urlErr.Err.Error(), "redirect")
}

// HTTPFailure is the http_error of a non-ToolResponse answer: 5xx transient,
// 4xx a refusal, else unanswered.
func HTTPFailure(tool, url string, status int, msg string) *ToolResponse {
	r := ClientError(tool, CodeHTTPError, msg, true)
	r.Failure = Failure{Transient: status >= 500, Unanswered: status < 400 || status >= 500}
	if status == http.StatusNotFound {
		r.Failure.NotServed = shownURL(url)
	}
	return r
}

// shownURL is a URL as messages show it: a password it carries is masked.
func shownURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Redacted()
}

// ErrTimedOut is a request that ran past Options.Timeout.
var ErrTimedOut = errors.New("request timed out")

// TimedOut reports a request that failed at a context or connection deadline.
func TimedOut(err error) bool {
	var netErr net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) && netErr.Timeout()
}

// DescribeTransportError says what went wrong and whether a retry may pass
// (not after a timeout: the server may still be working).
func DescribeTransportError(target string, err error) (string, bool) {
	var urlErr *url.Error
	switch {
	case errors.Is(err, ErrBodyTooLarge):
		return err.Error(), false
	case TimedOut(err):
		return ErrTimedOut.Error(), false
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "connection cut before the answer was complete", true
	case refusedRedirect(err):
		errors.As(err, &urlErr)
		return urlErr.Err.Error(), false
	case errors.Is(err, http.ErrSchemeMismatch):
		return schemeMismatch(target), false
	}
	var sysErr *os.SyscallError
	if errors.As(err, &sysErr) {
		// The system's words without the syscall and addresses.
		return "connection to " + target + " failed: " + sysErr.Err.Error(), true
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) {
		return fmt.Sprintf("connection to %s failed: %s %s", target, opErr.Op, opErr.Err), true
	}
	if errors.As(err, &urlErr) {
		// The method and URL are the user's own; what failed is inside.
		err = urlErr.Err
	}
	return "request failed: " + Snippet([]byte(err.Error())), true
}

// schemeMismatch explains an https:// request a plain-HTTP server answered.
func schemeMismatch(target string) string {
	host := target
	if u, err := url.Parse(target); err == nil && u.Host != "" {
		host = u.Host
	}
	return host + " answers plain HTTP, not HTTPS (TLS): for a server on this machine use http://" + host + "; otherwise check the URL's port"
}

// httpErrorMessage names the status and quotes a Snippet of the body.
func httpErrorMessage(status int, body []byte) string {
	msg := fmt.Sprintf("HTTP %d %s", status, http.StatusText(status))
	if s := Snippet(body); s != "" {
		return msg + ": " + s
	}
	return msg + " with an empty body"
}

const snippetRunes = 120

// Snippet keeps a body's first printable words (no tags or control characters).
func Snippet(b []byte) string {
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
	v = strings.TrimSpace(v)
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		return min(secs, maxRetryAfterMs/1000) * 1000
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(0, min(time.Until(at).Milliseconds(), maxRetryAfterMs))
	}
	return 0
}

// notAToolResponse answers a gateway's non-ToolResponse; a 429 is a rate limit.
func notAToolResponse(tool, url string, status int, header http.Header, raw []byte) *ToolResponse {
	if status == http.StatusTooManyRequests {
		return RateLimited(tool, url, header.Get("Retry-After"))
	}
	return HTTPFailure(tool, url, status, httpErrorMessage(status, raw))
}

// RateLimited is the client-made rate_limit of a 429 without a ToolResponse.
func RateLimited(tool, url, retryAfter string) *ToolResponse {
	r := ClientError(tool, CodeRateLimit, "rate limited (HTTP 429 from "+shownURL(url)+")", true)
	r.RetryAfterMs = retryAfterHeader(retryAfter)
	return r
}
