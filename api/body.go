package api

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
)

// ErrBodyTooLarge reports an answer past the body cap.
var ErrBodyTooLarge = errors.New("response body too large")

// BodyTooLarge is the cap's error (size 0: found past it while reading).
func BodyTooLarge(size, limit int64) error {
	if size > 0 {
		return fmt.Errorf("%w: %d bytes, the limit is %d", ErrBodyTooLarge, size, limit)
	}
	return fmt.Errorf("%w: more than %d bytes", ErrBodyTooLarge, limit)
}

// body is a response read within a cap, readable while it arrives; chunks
// joined at the end keep it at the cap (a growing buffer would double it).
type body struct {
	announced int64 // Content-Length, or -1
	limit     int64
	next      int64 // size of the next chunk

	mu     sync.Mutex
	chunks [][]byte // what has arrived; only the last chunk grows
	total  int64
	err    error         // io.EOF once the body is complete
	more   chan struct{} // a signal to the reader: more has arrived
	done   chan struct{} // closed when the body is complete or failed
}

func newBody(contentLength, limit int64) *body {
	next := int64(4 << 10)
	if contentLength > 0 {
		// One byte more than announced, to see a body longer than its header.
		next = contentLength + 1
	}
	return &body{announced: contentLength, limit: limit, next: next, more: make(chan struct{}, 1), done: make(chan struct{})}
}

func (b *body) fill(r io.Reader) {
	if b.announced > b.limit {
		b.publish(nil, 0, BodyTooLarge(b.announced, b.limit))
		return
	}
	var chunk []byte
	for {
		if len(chunk) == cap(chunk) {
			chunk = bodyBuffer(min(b.next, b.limit+1-b.total))
			b.next = min(2*b.next, 8<<20) // from 4 MiB on in huge pages
			b.mu.Lock()
			b.chunks = append(b.chunks, chunk)
			b.mu.Unlock()
		}
		n, err := r.Read(chunk[len(chunk):cap(chunk)])
		chunk = chunk[:len(chunk)+n]
		if b.total+int64(n) > b.limit {
			err = BodyTooLarge(0, b.limit)
		}
		b.publish(chunk, n, err)
		if err != nil {
			return
		}
	}
}

// publish makes n more bytes readable, ending the body on err.
func (b *body) publish(chunk []byte, n int, err error) {
	b.mu.Lock()
	if len(b.chunks) > 0 {
		b.chunks[len(b.chunks)-1] = chunk
	}
	b.total += int64(n)
	b.err = err
	b.mu.Unlock()
	if err != nil {
		close(b.done)
		return
	}
	select {
	case b.more <- struct{}{}:
	default:
	}
}

// bytes waits for the whole body.
func (b *body) bytes() ([]byte, error) {
	<-b.done
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.err != io.EOF:
		return nil, b.err
	case len(b.chunks) > 1: // joined once: reader and post both ask
		joined := bodyBuffer(b.total)
		for _, chunk := range b.chunks {
			joined = append(joined, chunk...)
		}
		b.chunks = [][]byte{joined}
	}
	return b.chunks[0], nil
}

// reader streams bodies up to streamDecodeMax, else reads in place once
// complete (a stream decoder copies a huge string: twice the cap). One
// reader at a time: the signal wakes one waiter.
func (b *body) reader() io.Reader {
	if 0 < b.announced && b.announced <= streamDecodeMax {
		return &bodyReader{b: b}
	}
	data, err := b.bytes()
	if err != nil {
		return failedReader{err}
	}
	return bytes.NewBuffer(data)
}

// streamDecodeMax is the largest body read as it arrives.
const streamDecodeMax = 32 << 20

type failedReader struct{ err error }

func (r failedReader) Read([]byte) (int, error) { return 0, r.err }

type bodyReader struct {
	b      *body
	chunk  int // the chunk being read
	offset int // how far into it
}

func (r *bodyReader) Read(p []byte) (int, error) {
	for {
		r.b.mu.Lock()
		var have []byte
		if r.chunk < len(r.b.chunks) {
			have = r.b.chunks[r.chunk][r.offset:]
		}
		last, err := r.chunk >= len(r.b.chunks)-1, r.b.err
		r.b.mu.Unlock()
		switch {
		case len(have) > 0:
			n := copy(p, have)
			r.offset += n
			return n, nil
		case !last:
			r.chunk, r.offset = r.chunk+1, 0
		case err != nil:
			return 0, err
		default:
			select {
			case <-r.b.more:
			case <-r.b.done:
			}
		}
	}
}
