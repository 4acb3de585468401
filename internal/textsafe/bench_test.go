package textsafe

import (
	"fmt"
	"io"
	"strings"
	"testing"
)

// sanitizeInputs are a typical cell (safe ASCII: the fast path), typical
// non-ASCII text, and hostile text full of escapes, controls and bidi
// overrides (the slow path).
var sanitizeInputs = []struct{ name, text string }{
	{"ascii", "Checkout 12 on mobile: 4.2% of pixels differ from the baseline"},
	{"unicode", "Café Größe — 見出し: 4,2 % der Pixel weichen ab"},
	{"hostile", "\x1b[31mred\x1b[0m \x1b]8;;https://evil.example\x07link\x1b]8;;\x07 \u202eevil\u202c\x00\x07\x9b2J tab\there\r\nnext line\xff"},
	{"long-ascii", strings.Repeat("scenario label with a long description ", 100)},
}

// BenchmarkSanitize measures both sanitizers on every input:
// Sanitize/<input> and SanitizeLine/<input>.
func BenchmarkSanitize(b *testing.B) {
	for _, fn := range []struct {
		name     string
		sanitize func(string) string
	}{{"Sanitize", Sanitize}, {"SanitizeLine", SanitizeLine}} {
		for _, in := range sanitizeInputs {
			b.Run(fn.name+"/"+in.name, func(b *testing.B) {
				b.SetBytes(int64(len(in.text)))
				b.ReportAllocs()
				for b.Loop() {
					fn.sanitize(in.text)
				}
			})
		}
	}
}

// BenchmarkCommandGuard measures the guard GitHub Actions puts on stdout
// over 100k lines of a plain table and an 8 MB JSON document, written in
// 64 KiB pieces as vq's buffered writers write them, against the same
// writes unguarded.
func BenchmarkCommandGuard(b *testing.B) {
	table := []byte(strings.Repeat("  Checkout step 12 of the cart flow   mobile      4.2%  ██████▌  failed\n", 100_000))
	doc := []byte(`{"failures":[` + strings.Repeat(`{"scenarioLabel":"Checkout step 12","viewport":"mobile","mismatchPercent":4.2},`, 100_000) + `{}]}`)
	for _, in := range []struct {
		name string
		text []byte
	}{{"table", table}, {"json", doc}} {
		for _, guarded := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/guarded=%v", in.name, guarded), func(b *testing.B) {
				b.SetBytes(int64(len(in.text)))
				for b.Loop() {
					w := io.Discard
					if guarded {
						w = NewCommandGuard(io.Discard)
					}
					for rest := in.text; len(rest) > 0; rest = rest[min(64<<10, len(rest)):] {
						w.Write(rest[:min(64<<10, len(rest))])
					}
				}
			})
		}
	}
}
