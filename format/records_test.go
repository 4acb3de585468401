package format

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// A large record list is printed by two goroutines, one a half; the table
// must be the one a single pass prints, whatever the second half holds:
// members in another order, a missing member, a column first seen there,
// text that needs sanitizing.
func TestLargeRecordListPrintsAsOnePass(t *testing.T) {
	var doc strings.Builder
	doc.WriteString("[\n")
	const n = 40_000
	for i := range n {
		switch {
		case i == n-5:
			fmt.Fprintf(&doc, `{"b": %d, "a": "swapped"}`, i)
		case i == n-4:
			fmt.Fprintf(&doc, `{"a":"only a"}`)
		case i == n-3:
			fmt.Fprintf(&doc, `{"a":"late","b":%d,"c":"new column"}`, i)
		case i == n-2:
			fmt.Fprintf(&doc, `{"a":"\u001b[31mred\u202e","b":%d}`, i)
		default:
			fmt.Fprintf(&doc, `{"a":"label %d","b":%d.5}`, i, i)
		}
		if i < n-1 {
			doc.WriteString(",\n  ")
		}
	}
	doc.WriteString("]")
	r := Records(doc.String())
	sh, ok := r.measure()
	if !ok || sh.half.at == 0 {
		t.Fatalf("measure: ok %v, split at %d: a %d-byte list should split", ok, sh.half.at, len(r))
	}
	render := func(sh *shape) string {
		var out bytes.Buffer
		w := bufio.NewWriter(&out)
		r.write(w, "  ", sh)
		w.Flush()
		return out.String()
	}
	split := render(sh)
	whole := *sh
	whole.half.row, whole.half.at = 0, 0
	if one := render(&whole); split != one {
		t.Fatalf("split output (%d bytes) differs from one pass (%d bytes)", len(split), len(one))
	}
	if lines := strings.Count(split, "\n"); lines != n+1 {
		t.Errorf("%d lines, want a header and %d rows", lines, n)
	}
	for _, want := range []string{"  a            b        c\n", "  swapped        39995  \n", "  late           39997  new column\n", "  red<U+202E>    39998  \n"} {
		if !strings.Contains(split, want) {
			t.Errorf("no line %q in the table", want)
		}
	}
	if strings.ContainsAny(split, "\x1b\u202e") {
		t.Error("a control sequence reached the table")
	}
}

// One wide cell pads every row of the table: a list whose second half
// would make a large table is printed in one pass, never held in memory.
func TestWideRecordListIsPrintedInOnePass(t *testing.T) {
	var doc strings.Builder
	doc.WriteString("[")
	for i := range 45_000 {
		if i > 0 {
			doc.WriteString(",")
		}
		fmt.Fprintf(&doc, `{"a":"label %d","b":%d}`, i, i)
	}
	fmt.Fprintf(&doc, `,{"a":"%s","b":0}]`, strings.Repeat("w", 20_000))
	if doc.Len() < splitFrom {
		t.Fatalf("the list is %d bytes, not large enough to split", doc.Len())
	}
	sh, ok := Records(doc.String()).measure()
	if !ok || sh.half.at != 0 {
		t.Errorf("measure: ok %v, split at %d; a table of %d-wide rows should not split", ok, sh.half.at, sh.widths[0])
	}
}
