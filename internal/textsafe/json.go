package textsafe

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf8"
)

// WriteJSON writes one JSON document (indented for a person when asked),
// escaped as JSON does it, and ends it with a newline.
func WriteJSON(out io.Writer, doc []byte, indent bool) error {
	if indent {
		var buf bytes.Buffer
		if err := json.Indent(&buf, doc, "", "  "); err == nil {
			doc = buf.Bytes()
		}
	}
	w := bufio.NewWriterSize(out, 64<<10)
	writeEscaped(w, doc)
	if len(doc) == 0 || doc[len(doc)-1] != '\n' {
		w.WriteByte('\n')
	}
	return w.Flush()
}

// EscapeJSON rewrites, inside valid JSON, the runes a terminal could obey
// (DEL, C1 controls, bidi controls, zero-width characters) and invalid UTF-8 as
// \u escapes. Outside strings JSON is ASCII, so a byte-level pass is safe.
func EscapeJSON(doc []byte) []byte {
	if plainASCIIPrefix(doc) == len(doc) {
		return doc
	}
	out := bytes.NewBuffer(make([]byte, 0, len(doc)+64))
	w := bufio.NewWriter(out)
	writeEscaped(w, doc)
	w.Flush()
	return out.Bytes()
}

// writeEscaped writes doc as EscapeJSON returns it, plain ASCII a piece
// at a time: one piece is on its way to the reader while the next is
// scanned, so an 8 MB answer costs no pass of its own before its first
// byte is written. Write errors stay in w, for its Flush to report.
func writeEscaped(w *bufio.Writer, doc []byte) {
	const piece = 256 << 10
	for len(doc) > 0 {
		if n := plainASCIIPrefix(doc[:min(len(doc), piece)]); n > 0 {
			w.Write(doc[:n])
			doc = doc[n:]
			continue
		}
		r, size := utf8.DecodeRune(doc)
		switch {
		case r == utf8.RuneError && size == 1:
			w.WriteString(`\ufffd`)
		case r < 0xa0 || isInvisible(r):
			fmt.Fprintf(w, `\u%04x`, r)
		default:
			w.Write(doc[:size])
		}
		doc = doc[size:]
	}
}

// plainASCIIPrefix is how many leading bytes of b are ASCII other than DEL,
// the bytes EscapeJSON passes through. It tests eight bytes at a time: an
// 8 MB answer is scanned on every --json.
func plainASCIIPrefix(b []byte) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		// A byte ≥ 0x80 has its high bit set; adding one sets it for 0x7f
		// too (a carry out of 0xff only follows a byte already caught).
		if (w|(w+ones))&highs != 0 {
			break
		}
	}
	for i < len(b) && b[i] < 0x7f {
		i++
	}
	return i
}
