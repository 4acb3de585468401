package api

import (
	"bytes"
	"testing"

	"github.com/visualq/vq/internal/fixture"
)

// BenchmarkDecodeToolResponse100k decodes the ~8 MB answer of a run with
// 100k failures: the work between the last byte read and the first byte
// rendered of `vq failures` on a huge run.
func BenchmarkDecodeToolResponse100k(b *testing.B) {
	body := fixture.RunFailures(100_000)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		resp, err := DecodeToolResponse(body)
		if err != nil || !resp.OK {
			b.Fatalf("decode: %v", err)
		}
	}
}

// BenchmarkDecodeStreamed100k decodes the same answer as a call does while
// it arrives: through body's reader, filled by another goroutine.
func BenchmarkDecodeStreamed100k(b *testing.B) {
	doc := fixture.RunFailures(100_000)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		in := newBody(int64(len(doc)), 1<<30)
		go in.fill(bytes.NewReader(doc))
		top, data, err := indexObject(in.reader(), "data")
		raw, rerr := in.bytes()
		if err != nil || rerr != nil {
			b.Fatalf("decode: %v, %v", err, rerr)
		}
		if resp, err := toolResponseOf(raw, top, data); err != nil || !resp.OK {
			b.Fatalf("decode: %v", err)
		}
	}
}
