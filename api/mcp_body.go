package api

import (
	"context"
	"errors"
	"io"
	"time"
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
		return 0, b.fail(bodyTooLarge(b.contentLength, b.limit))
	}
	if room := b.limit + 1 - b.read; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := b.ReadCloser.Read(p)
	b.read += int64(n)
	if b.read > b.limit {
		return n, b.fail(bodyTooLarge(0, b.limit))
	}
	if err != nil && !errors.Is(err, io.EOF) {
		b.fail(b.cause(err))
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

func (b *cappedBody) fail(err error) error {
	b.rec.mu.Lock()
	defer b.rec.mu.Unlock()
	if b.rec.bodyErr == nil {
		b.rec.bodyErr = err
	}
	return err
}

// bodyError is why a response body of the request could not be read, or nil.
func (r *httpRecord) bodyError() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bodyErr
}

// retryAfterMs is the Retry-After of a failed response, in milliseconds.
func (r *httpRecord) retryAfterMs() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return retryAfterHeader(r.retryAfter)
}
