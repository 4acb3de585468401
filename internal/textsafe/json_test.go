package textsafe

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// --json writes large answers a piece at a time; runes a terminal would
// obey are escaped wherever they fall, other text passes as sent.
func TestWriteJSONEscapesAcrossPieces(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 256<<10-3)
	doc := `{"data":"` + long + "é\u202e" + strings.Repeat("b", 300<<10) + "\u202e\xff\x7f" + `"}`
	want := `{"data":"` + long + `é\u202e` + strings.Repeat("b", 300<<10) + `\u202e\ufffd\u007f"}` + "\n"
	var out bytes.Buffer
	if err := WriteJSON(&out, []byte(doc), false); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != want {
		t.Errorf("got %d bytes, want %d; first difference at %d", len(got), len(want), firstDiff(got, want))
	}
	if got := string(EscapeJSON([]byte(doc))) + "\n"; got != want {
		t.Errorf("EscapeJSON differs from WriteJSON at %d", firstDiff(got, want))
	}
}

func firstDiff(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func TestPlainASCIIPrefixFindsTheFirstByteToEscape(t *testing.T) {
	t.Parallel()
	for n := 0; n < 20; n++ {
		for at := 0; at <= n; at++ {
			for _, special := range []byte{0x7f, 0x80, 0xc2, 0xff} {
				b := bytes.Repeat([]byte{'a'}, n)
				want := n
				if at < n {
					b[at], want = special, at
				}
				if got := plainASCIIPrefix(b); got != want {
					t.Fatalf("len %d, %#x at %d: prefix %d, want %d", n, special, at, got, want)
				}
			}
		}
	}
}

// FuzzWriteJSONFrom holds a document written a piece at a time (where the
// pieces fall: step bytes each, cutting runes) to the same document
// written whole.
func FuzzWriteJSONFrom(f *testing.F) {
	f.Add([]byte(`{"a":"é\u202e`+"\u202e\xe2\x80"+`x"}`), uint8(1))
	f.Add([]byte("\xf0\x9f\x98\x80\xf0\x9f\x98\n"), uint8(3))
	f.Add([]byte(""), uint8(2))
	f.Add([]byte("0\xc3\xc3\xa9"), uint8(1))
	f.Fuzz(func(t *testing.T, doc []byte, step uint8) {
		var whole, pieces bytes.Buffer
		if err := WriteJSON(&whole, doc, false); err != nil {
			t.Fatal(err)
		}
		n := int(step%8) + 1
		err := WriteJSONFrom(&pieces, func(w io.Writer) error {
			for rest := doc; len(rest) > 0; rest = rest[min(n, len(rest)):] {
				w.Write(rest[:min(n, len(rest))])
			}
			return nil
		})
		if err != nil || !bytes.Equal(pieces.Bytes(), whole.Bytes()) {
			t.Fatalf("in pieces of %d: %q, whole: %q", n, pieces.Bytes(), whole.Bytes())
		}
	})
}
