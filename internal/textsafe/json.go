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

// WriteJSON writes one JSON document, escaped (EscapeJSON), ending in a newline.
func WriteJSON(out io.Writer, doc []byte, indent bool) error {
	if indent {
		var buf bytes.Buffer
		if err := json.Indent(&buf, doc, "", "  "); err == nil {
			doc = buf.Bytes()
		}
	}
	return WriteJSONFrom(out, func(w io.Writer) error {
		_, err := w.Write(doc)
		return err
	})
}

// WriteJSONFrom is WriteJSON, not indented, of what write writes, streamed:
// a document of any size is never held whole.
func WriteJSONFrom(out io.Writer, write func(io.Writer) error) error {
	w := bufio.NewWriterSize(out, 64<<10)
	e := &escaper{w: w}
	if err := write(e); err != nil {
		return err
	}
	writeEscaped(w, e.rune[:e.held]) // a rune left cut, as the invalid bytes it is
	if e.last != '\n' {
		w.WriteByte('\n')
	}
	return w.Flush()
}

// escaper is writeEscaped over pieces: a rune cut between two is held.
type escaper struct {
	w    *bufio.Writer
	rune [utf8.UTFMax]byte
	held int  // bytes of rune held
	last byte // the last byte given, 0 before any
}

func (e *escaper) Write(p []byte) (int, error) {
	n := len(p)
	if n == 0 {
		return 0, nil
	}
	e.last = p[n-1]
	// A rune held is read on with what follows, as in one piece: what is
	// left of it once read (a byte that was not its start) is read on too.
	for e.held > 0 {
		if !utf8.FullRune(e.rune[:e.held]) {
			if len(p) == 0 {
				return n, nil
			}
			e.rune[e.held] = p[0]
			e.held++
			p = p[1:]
			continue
		}
		_, size := utf8.DecodeRune(e.rune[:e.held])
		writeEscaped(e.w, e.rune[:size])
		e.held = copy(e.rune[:], e.rune[size:e.held])
	}
	whole := len(p)
	for i := len(p) - 1; i >= max(0, len(p)-utf8.UTFMax+1); i-- {
		if utf8.RuneStart(p[i]) {
			if !utf8.FullRune(p[i:]) {
				whole = i
			}
			break
		}
	}
	writeEscaped(e.w, p[:whole])
	e.held += copy(e.rune[e.held:], p[whole:])
	return n, nil
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

// writeEscaped writes doc as EscapeJSON returns it, a plain piece at a time,
// so an 8 MB answer costs no pass before its first byte. Errors stay in w.
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

// plainASCIIPrefix is how many leading bytes of b EscapeJSON passes through
// (ASCII but DEL), tested eight at a time: every --json scans the answer.
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
