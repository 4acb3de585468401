package api

import (
	"testing"

	"github.com/visualq/vq/bench/fixture"
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
