package textsafe

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// commandIn reports what of a line a GitHub Actions runner would read as
// a workflow command, where bytes it might trim or ignore (non-ASCII,
// controls) count as nothing: "::" after the leading whitespace, "##["
// anywhere.
func commandIn(line []byte) string {
	var kept []byte
	for _, c := range line {
		if c < 0x80 && c >= ' ' && c != 0x7f || c == '\t' {
			kept = append(kept, c)
		}
	}
	switch {
	case bytes.HasPrefix(bytes.TrimLeft(kept, " \t"), []byte("::")):
		return "::"
	case bytes.Contains(kept, []byte("##[")):
		return "##["
	}
	return ""
}

// runnerLines splits output as the runner reads it: a line ends at LF or CR.
func runnerLines(out []byte) [][]byte {
	return bytes.FieldsFunc(out, func(r rune) bool { return r == '\n' || r == '\r' })
}

// Text written through the guard, whole or a byte at a time, forms no
// workflow command; it changes only where one would form; what vq gives
// as its own commands passes as it is.
func TestCommandGuardBreaksEveryWorkflowCommand(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"run ::set-output name=x::y (3s)\n", "run ::set-output name=x::y (3s)\n"},
		{"::set-output name=x::y\n", ":\\:set-output name=x::y\n"},
		{"summary\n::add-mask::X\n  \t::stop-commands::tok\r::x", "summary\n:\\:add-mask::X\n  \t:\\:stop-commands::tok\r:\\:x"},
		{"run ##[set-output name=status;]passed", `run ##\u005bset-output name=status;]passed`},
		{"###[ ##x #[ ## [ #\u200b#[", "###\\u005b ##x #[ ## [ #\u200b#\\u005b"},
		{"\u00a0::x\n\u3000\u200b:\u200b:y\n: :z\n:x::", "\u00a0:\\:x\n\u3000\u200b:\u200b\\:y\n: :z\n:x::"},
		{"## Heading\n[link](#x)\n", "## Heading\n[link](#x)\n"},
	} {
		for _, step := range []int{len(tc.in) + 1, 1} {
			var out bytes.Buffer
			g := NewCommandGuard(&out)
			for rest := tc.in; rest != ""; rest = rest[min(step, len(rest)):] {
				if n, err := g.Write([]byte(rest[:min(step, len(rest))])); err != nil || n != min(step, len(rest)) {
					t.Fatalf("Write: %d, %v", n, err)
				}
			}
			if out.String() != tc.want {
				t.Errorf("pieces of %d: %q\ngot  %q\nwant %q", step, tc.in, out.String(), tc.want)
			}
		}
	}

	var out bytes.Buffer
	g := NewCommandGuard(&out)
	io.WriteString(g, "text without an end ")
	io.WriteString(g.Commands(), "\n::error title=t::##[x\n")
	io.WriteString(g, "::set-output name=x::y\n")
	if want := "text without an end \n::error title=t::##[x\n:\\:set-output name=x::y\n"; out.String() != want {
		t.Errorf("after vq's own commands:\ngot  %q\nwant %q", out.String(), want)
	}
}

// JSON written through the guard, indented or not, is the same document:
// "##[" stands only in a string, where \u005b is '[', and no line of it
// starts with ':'.
func TestJSONThroughTheGuardIsTheSameDocument(t *testing.T) {
	t.Parallel()
	doc := []byte(`{"runId":"##[set-output name=status;]passed","summary":"a\n::add-mask::X","s":"\u0085::x #é#[y \\##[","a":[[1]]}`)
	var guarded bytes.Buffer
	for _, indent := range []bool{false, true} {
		if err := WriteJSON(NewCommandGuard(&guarded), doc, indent); err != nil {
			t.Fatal(err)
		}
	}
	var want any
	json.Unmarshal(doc, &want)
	dec := json.NewDecoder(bytes.NewReader(guarded.Bytes()))
	for range 2 {
		var got any
		if err := dec.Decode(&got); err != nil || !jsonEqual(got, want) {
			t.Errorf("%v: %v\n%s", err, got, guarded.String())
		}
	}
	for _, line := range runnerLines(guarded.Bytes()) {
		if c := commandIn(line); c != "" {
			t.Errorf("line %q forms %s", line, c)
		}
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// FuzzCommandGuard: any bytes, written in pieces of any size, come out
// with no line forming a workflow command, changed only by a backslash
// before a ':' or a '[' written \u005b.
func FuzzCommandGuard(f *testing.F) {
	f.Add([]byte("a\n::add-mask::X\r ##[stop-commands]tok"), uint8(3))
	f.Add([]byte(" \xe2\x80\x8b:\xc2\xa0:x\n#\x00#["), uint8(1))
	f.Fuzz(func(t *testing.T, in []byte, step uint8) {
		var out bytes.Buffer
		g := NewCommandGuard(&out)
		n := int(step%16) + 1
		for rest := in; len(rest) > 0; rest = rest[min(n, len(rest)):] {
			g.Write(rest[:min(n, len(rest))])
		}
		for _, line := range runnerLines(out.Bytes()) {
			if c := commandIn(line); c != "" {
				t.Fatalf("%q came out as %q: line %q forms %s", in, out.Bytes(), line, c)
			}
		}
		added := out.Len() - len(in)
		undo := func(b []byte) string {
			return strings.ReplaceAll(strings.ReplaceAll(string(b), `\u005b`, "["), `\`, "")
		}
		if undo(out.Bytes()) != undo(in) || added < 0 || added > bytes.Count(in, []byte(":"))+5*bytes.Count(in, []byte("[")) {
			t.Fatalf("%q came out as %q", in, out.Bytes())
		}
	})
}
