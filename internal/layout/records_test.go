package layout

import (
	"bufio"
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// FuzzRecordsScan holds the fast record scanner to what a JSON tokenizer
// reads from the same valid bytes.
func FuzzRecordsScan(f *testing.F) {
	for _, s := range []string{`[{"a":1,"b":"x"},{"b":"y\"z","c":[1,{"d":"]"}]}]`, `[ { "a" : "\\" } , { } ]`, `[{"a":1},2]`, `[]`, `[{"k":"\\\"}"},{"k":{"n":"{"}}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		if !jsontext.Value(doc).IsValid(jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true)) {
			return
		}
		var got []string
		rows, ok := Records(doc).scan(func(row, _ int, name, value jsontext.Value) {
			got = append(got, fmt.Sprintf("%d %s %s", row, name, value))
		})
		var want []string
		wantRows, wantOK := 0, false
		dec := newDecoder(doc)
		if tok, _ := dec.ReadToken(); tok.Kind() == '[' {
			for ; dec.PeekKind() == '{'; wantRows++ {
				dec.ReadToken()
				for dec.PeekKind() != '}' {
					name, _ := dec.ReadValue()
					n := string(name)
					value, _ := dec.ReadValue()
					want = append(want, fmt.Sprintf("%d %s %s", wantRows, n, value))
				}
				dec.ReadToken()
			}
			wantOK = wantRows > 0 && dec.PeekKind() == ']'
		}
		if ok != wantOK || (ok && (rows != wantRows || !slices.Equal(got, want))) {
			t.Fatalf("%s: scan %v %d %q, tokenizer %v %d %q", doc, ok, rows, got, wantOK, wantRows, want)
		}
	})
}

// Records in any member order line up in one column each, members first
// seen late get a column of their own, and numbers-only columns are marked.
func TestRecordsTableLinesUpMembersInAnyOrder(t *testing.T) {
	t.Parallel()
	if got := Records(`[{"a":1,"b":"x"},{"b":"yy","a":22},{"c":true}]`).Table(); !slices.Equal(got.Columns, []string{"a", "b", "c"}) ||
		!slices.Equal(got.Rows[1], []string{"22", "yy", ""}) || !slices.Equal(got.Rows[2], []string{"", "", "true"}) || !got.Numeric[0] || got.Numeric[1] {
		t.Errorf("Table() = %+v", got)
	}
}

// A large record list prints one row a record, whatever its last records
// hold: members in another order, a missing member, a column first seen
// there, text that needs sanitizing.
func TestLargeRecordListPrintsEveryRecord(t *testing.T) {
	t.Parallel()
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
	if !ok {
		t.Fatal("not a record list")
	}
	var out bytes.Buffer
	w := bufio.NewWriter(&out)
	r.write(w, "  ", sh)
	w.Flush()
	table := out.String()
	if lines := strings.Count(table, "\n"); lines != n+1 {
		t.Errorf("%d lines, want a header and %d rows", lines, n)
	}
	for _, want := range []string{"  A            B        C\n", "  swapped        39995  \n", "  late           39997  new column\n", "  red<U+202E>    39998  \n"} {
		if !strings.Contains(table, want) {
			t.Errorf("no line %q in the table", want)
		}
	}
	if strings.ContainsAny(table, "\x1b\u202e") {
		t.Error("a control sequence reached the table")
	}
}

// One wide cell does not pad every row of the table to its width: it
// overflows its column, and the table stays about the size of the list.
func TestWideCellOverflowsItsColumn(t *testing.T) {
	t.Parallel()
	var doc strings.Builder
	doc.WriteString("[")
	for i := range 45_000 {
		if i > 0 {
			doc.WriteString(",")
		}
		fmt.Fprintf(&doc, `{"a":"label %d","b":%d}`, i, i)
	}
	wide := strings.Repeat("w", 20_000)
	fmt.Fprintf(&doc, `,{"a":"%s","b":0}]`, wide)
	r := Records(doc.String())
	sh, ok := r.measure()
	if !ok {
		t.Fatal("not a record list")
	}
	var out bytes.Buffer
	w := bufio.NewWriter(&out)
	r.write(w, "", sh)
	w.Flush()
	if out.Len() > 2*doc.Len() {
		t.Errorf("the table is %d bytes for a %d-byte list: the wide cell padded the rows", out.Len(), doc.Len())
	}
	for _, want := range []string{"\nlabel 44999  44999\n", "\n" + wide + "      0\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no line ending %.40q in the table", want)
		}
	}
}
