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

// cappedBody is an MCP response body as the SDK reads it. The SDK reads
// whole bodies into memory, so the body cap is enforced here; and it
// reports a body it could not read only as text, so the reason is kept in
// the record for mcpFailure to describe like the invoke transport does.
type cappedBody struct {
	io.ReadCloser
	// ctx is the request's: its deadline is the --timeout, and the
	// transport below reports a read it cut short only as "canceled".
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
		// A read cut because the request's owner cancelled it is no fault
		// of the body, and the owner knows why: a session's initialize
		// stream drained after the connect that opened it returned, an
		// interrupt, or the idle bound (callMCP asks it first).
		if cause := b.cause(err); !errors.Is(cause, context.Canceled) {
			b.rec.fail(cause)
		}
	}
	return n, err
}

// cause names a failed read by the request's context when that ended it.
// http.Client's own timer cuts the read at the deadline, possibly an
// instant before the context reports it: a read failing at or past the
// deadline timed out.
func (b *cappedBody) cause(err error) error {
	if ctxErr := b.ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	if deadline, ok := b.ctx.Deadline(); ok && !time.Now().Before(deadline) {
		return context.DeadlineExceeded
	}
	return err
}

// fail records err as why a response body could not be read, unless a
// reason is recorded already.
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
		// A call's cancellation is best-effort and sent after the call has
		// ended (the SDK gives it five seconds of its own): a server that
		// hangs must not hold vq's exit, or the failure of a timed-out
		// handshake, past the call's own bound.
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
	// A GET is the session's standalone stream, which outlives the request
	// that opened it: what it carries is no call's answer.
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

// giveUpBudget bounds what vq spends, once it has given up on a request,
// on leaving the server nothing open: the sending of a call's
// cancellation, the end of a handshake whose session it then closes.
const giveUpBudget = 500 * time.Millisecond

// isCancelNotice reports the POST of a notifications/cancelled message,
// which is small: its body is read again from GetBody.
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

// afterClose calls then once the body is closed.
type afterClose struct {
	io.ReadCloser
	then func()
}

func (b afterClose) Close() error {
	defer b.then()
	return b.ReadCloser.Close()
}

// bodyRecorder appends what the SDK reads to the record, up to limit
// bytes; the SDK reads on its own goroutines, hence the lock.
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

// httpRecord keeps the last failed HTTP status seen while one MCP request
// was carried out, so a transport error can be reported as 401 or 404.
type httpRecord struct {
	mu              sync.Mutex
	status          int
	wwwAuthenticate string
	retryAfter      string
	// bodyErr is why a response body could not be read (cut, timed out,
	// past the cap).
	bodyErr  error
	failedAt int // where the failed response's body starts in body.
	// body is every response body read for the request: the SDK decodes
	// structuredContent into a map, losing the server's key order, which
	// vq keeps (columns and --json follow it), so it is read again here.
	body bytes.Buffer
	// answers are a stdio server's answers to the request, as read, up to
	// the body's bound in all (keep).
	answers []callAnswer
	// noticed is closed once a cancellation of the request has been sent,
	// or its sending has failed (awaitCancelNotice).
	noticed    chan struct{}
	noticeOnce sync.Once
}

type httpRecordKey struct{}

func newHTTPRecord() *httpRecord { return &httpRecord{noticed: make(chan struct{})} }

// cancelNoticeSent records that the transport has sent the request's
// notifications/cancelled, or failed to.
func (r *httpRecord) cancelNoticeSent() { r.noticeOnce.Do(func() { close(r.noticed) }) }

// awaitCancelNotice waits until the server has been told of the request's
// end, when err is the request giving up on ctx, which has ended (a
// timeout, an interrupt). The SDK sends notifications/cancelled on a
// goroutine of its own after the request has returned, and a session
// closed before it has (withSession drops the session at once, and vq
// closes it on its way out) never sends it: the server's handler, and any
// question it waits on vq to answer, would run on with no one to end
// them. A closed connection carries no notice, and the wait is bounded by
// the notice's own budget.
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

// forgetFailure drops the failed response recorded last, and its body: a
// sign-in again answered it, and what the request is answered now is the
// record's (its status, its result).
func (r *httpRecord) forgetFailure() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.body.Truncate(r.failedAt)
	r.status, r.wwwAuthenticate, r.retryAfter = 0, "", ""
}

// keep keeps a stdio server's answer to the request; the oldest are let
// go past limit bytes in all.
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

// toolResult finds the raw result of the last tools/call answered, and
// its structuredContent: the SDK decodes structuredContent into a map,
// losing the server's key order, and drops members it does not know,
// while vq keeps both (columns and --json follow the server's order;
// --json carries all it sent). A stdio server's answer reached the SDK
// without its texts: res, the SDK's decoding, is given them back.
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

// resultWith is the raw result of the last answer recorded whose result
// has the member (content for tools/call, contents for resources/read):
// kept as read from a stdio server, or found in the recorded bodies (a
// JSON body, or the data lines of an event stream).
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

// resultMissing reports an answer, the last one recorded, whose result is
// null or no object: no tool result at all, which the SDK reads as an
// empty one.
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

// eachMessage calls fn with every JSON-RPC message recorded: JSON bodies
// one after the other (a session opened within the request records
// initialize's answer before the request's own), the data lines of event
// streams, and a stdio server's answers.
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
