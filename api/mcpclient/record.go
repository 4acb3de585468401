package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/api"
)

// cappedBody caps a body (the SDK reads bodies whole) and keeps a failed read's cause, which the SDK flattens.
type cappedBody struct {
	io.ReadCloser
	// ctx is the request's (--timeout): the transport reports a cut read only as "canceled".
	ctx                  context.Context
	rec                  *httpRecord
	contentLength, limit int64
	read                 int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.contentLength > b.limit {
		return 0, b.rec.fail(api.BodyTooLarge(b.contentLength, b.limit))
	}
	if room := b.limit + 1 - b.read; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := b.ReadCloser.Read(p)
	b.read += int64(n)
	if b.read > b.limit {
		return n, b.rec.fail(api.BodyTooLarge(0, b.limit))
	}
	if err != nil && !errors.Is(err, io.EOF) {
		// A read the request's owner cancelled is no fault of the body; the owner knows why.
		if cause := b.cause(err); !errors.Is(cause, context.Canceled) {
			b.rec.fail(cause)
		}
	}
	return n, err
}

// cause names a failed read by the request's context when that ended it;
// http.Client's timer may cut the read an instant before ctx reports it.
func (b *cappedBody) cause(err error) error {
	if ctxErr := b.ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	if deadline, ok := b.ctx.Deadline(); ok && !time.Now().Before(deadline) {
		return context.DeadlineExceeded
	}
	return err
}

// fail records err as why a body could not be read, unless one is recorded.
func (r *httpRecord) fail(err error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.bodyErr == nil {
		r.bodyErr = err
	}
	return err
}

type mcpRoundTripper struct {
	next http.RoundTripper
	c    *Client
}

func (t *mcpRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("User-Agent", t.c.opts.UserAgent)
	endpoint := sameOrigin(req.URL, t.c.MCPEndpoint())
	if token := t.c.bearer(); token != "" && endpoint {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if endpoint {
		for name, values := range t.c.opts.Headers {
			req.Header[name] = values
		}
	}
	var endNotice context.CancelFunc
	if isCancelNotice(req) {
		// The SDK gives a cancellation five seconds of its own: a hung server
		// must not hold vq's exit past the call's own bound.
		var ctx context.Context
		ctx, endNotice = context.WithTimeout(req.Context(), giveUpBudget)
		req = req.WithContext(ctx)
	}
	res, err := t.next.RoundTrip(req)
	if endNotice != nil {
		if rec, ok := req.Context().Value(httpRecordKey{}).(*httpRecord); ok {
			rec.cancelNoticeSent()
		}
		if err != nil {
			endNotice()
			return res, err
		}
		res.Body = afterClose{ReadCloser: res.Body, then: endNotice}
	}
	rec, ok := req.Context().Value(httpRecordKey{}).(*httpRecord)
	// A GET is the session's standalone stream: it carries no call's answer.
	if !ok || err != nil || req.Method == http.MethodGet {
		return res, err
	}
	if res.StatusCode >= 400 {
		rec.set(res.StatusCode, res.Header)
	}
	body := &cappedBody{ReadCloser: res.Body, ctx: req.Context(), rec: rec, contentLength: res.ContentLength, limit: t.c.opts.MaxBodyBytes}
	res.Body = struct {
		io.Reader
		io.Closer
	}{io.TeeReader(body, bodyRecorder{rec: rec, limit: t.c.opts.MaxBodyBytes}), res.Body}
	return res, nil
}

// giveUpBudget bounds the cleanup after vq gives up on a request (the cancellation, a handshake).
const giveUpBudget = 500 * time.Millisecond

// isCancelNotice reports the (small) POST of a notifications/cancelled.
func isCancelNotice(req *http.Request) bool {
	if req.Method != http.MethodPost || req.GetBody == nil || req.ContentLength <= 0 || req.ContentLength > 1024 {
		return false
	}
	body, err := req.GetBody()
	if err != nil {
		return false
	}
	defer body.Close()
	data, _ := io.ReadAll(body)
	return bytes.Contains(data, []byte(`"method":"notifications/cancelled"`))
}

type afterClose struct {
	io.ReadCloser
	then func()
}

func (b afterClose) Close() error {
	defer b.then()
	return b.ReadCloser.Close()
}

// bodyRecorder appends what the SDK reads (on its own goroutines) to the record, up to limit.
type bodyRecorder struct {
	rec   *httpRecord
	limit int64
}

func (w bodyRecorder) Write(p []byte) (int, error) {
	w.rec.mu.Lock()
	defer w.rec.mu.Unlock()
	if room := w.limit - int64(w.rec.body.Len()); room > 0 {
		w.rec.body.Write(p[:min(int64(len(p)), room)])
	}
	return len(p), nil
}

// httpRecord keeps one MCP request's last failed HTTP status and bodies.
type httpRecord struct {
	mu              sync.Mutex
	status          int
	wwwAuthenticate string
	retryAfter      string
	bodyErr         error // why a body could not be read
	failedAt        int   // where the failed response's body starts in body.
	// body is every body read: the SDK's map loses the server's key order.
	body    bytes.Buffer
	answers []callAnswer // a stdio server's answers, bounded by keep
	// noticed is closed once the request's cancellation was sent or failed.
	noticed    chan struct{}
	noticeOnce sync.Once
}

type httpRecordKey struct{}

func newHTTPRecord() *httpRecord { return &httpRecord{noticed: make(chan struct{})} }

func (r *httpRecord) cancelNoticeSent() { r.noticeOnce.Do(func() { close(r.noticed) }) }

// awaitCancelNotice waits, bounded, for the SDK to send a given-up request's cancellation: it does so
// on its own goroutine after the request returned, and a session closed first never sends it.
func (r *httpRecord) awaitCancelNotice(ctx context.Context, err error) {
	if ctx.Err() == nil || err == nil || errors.Is(err, mcp.ErrConnectionClosed) {
		return
	}
	budget := time.NewTimer(giveUpBudget)
	defer budget.Stop()
	select {
	case <-r.noticed:
	case <-budget.C:
	}
}

func (r *httpRecord) set(status int, header http.Header) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.status, r.wwwAuthenticate, r.retryAfter = status, header.Get("WWW-Authenticate"), header.Get("Retry-After")
	r.failedAt = r.body.Len()
}

// forgetFailure drops the last failed response and its body: a sign-in again answered it.
func (r *httpRecord) forgetFailure() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.body.Truncate(r.failedAt)
	r.status, r.wwwAuthenticate, r.retryAfter = 0, "", ""
}

// keep keeps a stdio server's answer, dropping the oldest past limit bytes in all.
func (r *httpRecord) keep(a callAnswer, limit int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.answers = append(r.answers, a)
	kept := int64(0)
	for i := len(r.answers) - 1; i >= 0; i-- {
		if kept += int64(len(r.answers[i].line)); kept > limit {
			r.answers = slices.Delete(r.answers, 0, i+1)
			return
		}
	}
}

// toolResult finds the last tools/call's raw result and structuredContent,
// which the SDK reorders and prunes; res gets back a stdio answer's texts.
func (r *httpRecord) toolResult(res *mcp.CallToolResult) (raw, structured json.RawMessage) {
	a := r.answerWith("content")
	if a == nil {
		raw = r.resultWith("content")
		return raw, structuredOf(res, raw)
	}
	a.restoreTexts(res)
	raw = a.result.in(a.line)
	if structured, kept := a.structuredContent(); kept {
		return raw, structured
	}
	return raw, structuredOf(res, raw)
}

// answerWith is the last answer kept whose result has the member, or nil.
func (r *httpRecord) answerWith(member string) *callAnswer {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.answers) - 1; i >= 0; i-- {
		if slices.Contains(r.answers[i].members, member) {
			return &r.answers[i]
		}
	}
	return nil
}

// resultWith is the raw result of the last answer whose result has member.
func (r *httpRecord) resultWith(member string) json.RawMessage {
	if a := r.answerWith(member); a != nil {
		return a.result.in(a.line)
	}
	var found json.RawMessage
	r.eachMessage(func(doc []byte) {
		var msg struct {
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal(doc, &msg) != nil || len(msg.Result) == 0 {
			return
		}
		var probe map[string]json.RawMessage
		if json.Unmarshal(msg.Result, &probe) == nil && len(probe[member]) > 0 {
			found = msg.Result
		}
	})
	return found
}

// resultMissing reports a last answer whose result is no object, which the SDK reads as empty.
func (r *httpRecord) resultMissing() bool {
	var last json.RawMessage
	answered := false
	r.eachMessage(func(doc []byte) {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal(doc, &msg) == nil && msg.ID != nil && msg.Method == "" {
			last, answered = msg.Result, true
		}
	})
	return answered && (len(last) == 0 || last[0] != '{')
}

// eachMessage calls fn with every JSON-RPC message recorded: stdio answers, JSON bodies, stream data lines.
func (r *httpRecord) eachMessage(fn func(doc []byte)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, a := range r.answers {
		fn(a.line)
	}
	body := r.body.Bytes()
	for dec := json.NewDecoder(bytes.NewReader(body)); ; {
		var doc json.RawMessage
		if dec.Decode(&doc) != nil {
			break // the end, or an event stream's first line
		}
		fn(doc)
	}
	for _, line := range bytes.Split(body, []byte("\n")) {
		if data, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r"), []byte("data:")); ok {
			fn(bytes.TrimSpace(data))
		}
	}
}
