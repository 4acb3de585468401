package layout

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/visualq/vq/internal/textsafe"
)

// Records is a record list (a JSON array of objects) as sent, drawn by scanning
// its bytes: a 100k-row answer costs a few passes, not a million objects.
type Records []byte

// newDecoder reads doc in place: the values it returns are views into doc.
func newDecoder(doc []byte) *jsontext.Decoder {
	return jsontext.NewDecoder(bytes.NewBuffer(doc), jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))
}

// scan calls cell for each member of each record (views into r) and reports the count; false unless r
// is a non-empty array of objects. r was validated, so scan only finds bounds: fast, run twice a table.
func (r Records) scan(cell func(row, member int, name, value jsontext.Value)) (int, bool) {
	i := skipSpace(r, 0)
	if i >= len(r) || r[i] != '[' {
		return 0, false
	}
	row := 0
	for i = skipSpace(r, i+1); i < len(r) && r[i] != ']'; row++ {
		if r[i] != '{' {
			return row, false
		}
		member := 0
		for i = skipSpace(r, i+1); i < len(r) && r[i] != '}'; member++ {
			nameEnd := skipValue(r, i)
			valueStart := skipSpace(r, skipSpace(r, nameEnd)+1) // past the colon
			valueEnd := skipValue(r, valueStart)
			cell(row, member, jsontext.Value(r[i:nameEnd]), jsontext.Value(r[valueStart:valueEnd]))
			i = skipSeparator(r, valueEnd)
		}
		i = skipSeparator(r, i+1)
	}
	return row, row > 0 && i < len(r)
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

func skipSeparator(b []byte, i int) int {
	i = skipSpace(b, i)
	if i < len(b) && b[i] == ',' {
		i = skipSpace(b, i+1)
	}
	return i
}

// skipValue is the index just past the valid JSON value starting at i.
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i
		}
		i++
	}
	return i
}

// skipString is the index past the string quoted at i: the next quote not escaped by odd backslashes.
func skipString(b []byte, i int) int {
	for i++; ; {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return len(b)
		}
		i += q
		backslashes := 0
		for j := i - 1; j >= 0 && b[j] == '\\'; j-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return i + 1
		}
		i++
	}
}

// columns are a record list's member names in first-seen order, and which hold numbers only.
type columns struct {
	names                 []string
	index                 map[string]int
	numeric               []bool
	quoted                []jsontext.Value // names as sent
	atPosition            []int            // column last seen at each member position
	seenNumber, notNumber []bool
	present               []int // records holding each column
	show                  []int // position in the table, -1 when left out
	shown                 []int
}

// column is the column of member name at position member. Records nearly always
// share one member order, so the column last seen there is tried before the map.
func (c *columns) column(member int, name jsontext.Value) int {
	if member < len(c.atPosition) {
		if col := c.atPosition[member]; bytes.Equal(c.quoted[col], name) {
			return col
		}
	}
	col, ok := c.index[string(name)]
	if !ok {
		col = len(c.names)
		c.index[string(name)] = col
		c.names = append(c.names, textsafe.SanitizeLine(unquote(name)))
		c.quoted = append(c.quoted, name)
		c.seenNumber = append(c.seenNumber, false)
		c.notNumber = append(c.notNumber, false)
		c.present = append(c.present, 0)
	}
	for len(c.atPosition) <= member {
		c.atPosition = append(c.atPosition, col)
	}
	c.atPosition[member] = col
	return col
}

func (c *columns) see(col int, kind jsontext.Kind) {
	c.present[col]++
	switch kind {
	case '0':
		c.seenNumber[col] = true
	case 'n':
	default:
		c.notNumber[col] = true
	}
}

// maxColumns bounds the columns of a table: past a screen's width a table
// reads no better than fields do, and each column costs every row.
const maxColumns = 32

// choose picks the most frequent columns (first-seen order, at most maxColumns) keeping the table half
// full; false when they hold under half the members (fields then): empty cells cost bytes per member sent.
func (c *columns) choose(rows int) (table bool) {
	byCount := make([]int, len(c.names))
	members := 0
	for col := range c.names {
		byCount[col] = col
		members += c.present[col]
	}
	slices.SortStableFunc(byCount, func(a, b int) int { return cmp.Compare(c.present[b], c.present[a]) })
	held, k := 0, 0
	for ; k < len(byCount) && k < maxColumns && 2*(held+c.present[byCount[k]]) >= rows*(k+1); k++ {
		held += c.present[byCount[k]]
	}
	c.shown = slices.Sorted(slices.Values(byCount[:k]))
	// A link column (diffUrl) is for a check's detail: it leaves a table that keeps another.
	if kept := slices.DeleteFunc(slices.Clone(c.shown), func(col int) bool { return isLink(c.names[col]) }); len(kept) > 0 {
		c.shown = kept
	}
	c.numeric = make([]bool, len(c.names))
	c.show = make([]int, len(c.names))
	for col := range c.names {
		c.numeric[col] = c.seenNumber[col] && !c.notNumber[col]
		c.show[col] = -1
	}
	for pos, col := range c.shown {
		c.show[col] = pos
	}
	return 2*held >= members
}

func (c *columns) more() int { return len(c.names) - len(c.shown) }

// MoreColumnsNote is the line under a table that leaves n columns out ("" for none).
func MoreColumnsNote(n int) string {
	if n == 0 {
		return ""
	}
	return "+" + strconv.Itoa(n) + " more " + Plural(n, "column", "columns") + " (--json shows every member)"
}

// Plural is one when n is 1, else many.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Table decodes the shown columns into a Table of sanitized cells, for the TUI.
func (r Records) Table() *Table {
	sh, ok := r.measure()
	if !ok {
		return &Table{}
	}
	return sh.decode(r)
}

// Table is the records' Table, as measured when the data was laid out.
func (t TitledTable) Table() *Table { return t.shape.decode(t.Records) }

// decode reads the shown cells into a Table; cells share one string, so a
// 100k-row answer costs a few allocations rather than one a cell.
func (sh *shape) decode(r Records) *Table {
	cols := *sh.cols
	cols.atPosition = slices.Clone(cols.atPosition)
	n := len(cols.shown)
	// answers are bounded far below the 2 GiB an int32 counts
	type span struct{ start, end int32 }
	spans := make([]span, sh.rows*n)
	var text strings.Builder
	text.Grow(len(r) / 3) // about the cells' share of a record list
	_, _ = r.scan(func(row, member int, name, value jsontext.Value) {
		if pos := cols.show[cols.column(member, name)]; pos >= 0 {
			cell, _ := shownCell(cellText(value))
			start := text.Len()
			text.Write(cell)
			spans[row*n+pos] = span{int32(start), int32(text.Len())}
		}
	})
	all := text.String() // no copy: the cells share the builder's bytes
	cells := make([]string, sh.rows*n)
	for i, sp := range spans {
		cells[i] = all[sp.start:sp.end]
	}
	rows := make([][]string, sh.rows)
	for i := range rows {
		rows[i] = cells[i*n : (i+1)*n : (i+1)*n]
	}
	t := &Table{Rows: rows, More: cols.more()}
	for _, col := range cols.shown {
		t.Columns = append(t.Columns, cols.names[col])
		t.Numeric = append(t.Numeric, cols.numeric[col])
	}
	return t
}

// shape is what printing a record list needs before its first row.
type shape struct {
	cols    *columns
	table   bool  // false for a list laid out as fields
	widths  []int // of the shown columns
	numeric []bool
	rows    int
	bar     int // shown column with mismatch bars, -1 for none
}

// measure is plain output's first pass; ok is false when r is empty or holds a non-object.
func (r Records) measure() (*shape, bool) {
	sh := &shape{cols: &columns{index: map[string]int{}}, bar: -1}
	var spans []span
	rows, ok := r.scan(func(_, member int, name, value jsontext.Value) {
		col := sh.cols.column(member, name)
		sh.cols.see(col, value.Kind())
		for len(spans) < len(sh.cols.names) {
			spans = append(spans, span{})
		}
		_, width := shownCell(cellText(value))
		spans[col].add(width)
	})
	sh.rows = rows
	sh.table = sh.cols.choose(rows)
	for _, col := range sh.cols.shown {
		w := max(textsafe.DisplayWidth(Heading(sh.cols.names[col])), spans[col].width(rows))
		sh.widths = append(sh.widths, w)
		sh.numeric = append(sh.numeric, sh.cols.numeric[col])
	}
	return sh, ok
}

// writeText prints the records as a table after indent, then the left-out note; with bars (for a
// person) MismatchColumn gets mismatch bars and the legend follows.
func (t TitledTable) writeText(w *bufio.Writer, indent string, bars bool) {
	sh := *t.shape
	sh.bar = -1
	for i, col := range sh.cols.shown {
		if bars && sh.bar < 0 && sh.numeric[i] && sh.cols.names[col] == MismatchColumn {
			sh.bar = i
		}
	}
	t.Records.write(w, indent, &sh)
	if note := MoreColumnsNote(t.shape.cols.more()); note != "" {
		w.WriteString(indent + note + "\n")
	}
	if sh.bar >= 0 {
		w.WriteString(indent + MismatchLegend + "\n")
	}
}

func (r Records) write(w *bufio.Writer, indent string, sh *shape) {
	header := make([][]byte, len(sh.cols.shown))
	for i, col := range sh.cols.shown {
		header[i] = []byte(Heading(sh.cols.names[col]))
	}
	widths := sh.widths
	if sh.bar >= 0 {
		// The bar column's name spans its numbers and their bars.
		widths = slices.Clone(widths)
		widths[sh.bar] += 1 + MismatchBarWidth
	}
	writeRow(w, indent, widths, header, make([]bool, len(header)), -1)
	cols := *sh.cols
	cols.atPosition = slices.Clone(cols.atPosition)
	cells := make([][]byte, len(cols.shown))
	current := -1
	_, _ = r.scan(func(row, member int, name, value jsontext.Value) {
		if row != current {
			if current >= 0 {
				writeRow(w, indent, sh.widths, cells, sh.numeric, sh.bar)
			}
			clear(cells)
			current = row
		}
		if pos := cols.show[cols.column(member, name)]; pos >= 0 {
			cells[pos] = cellText(value)
		}
	})
	if current >= 0 {
		writeRow(w, indent, sh.widths, cells, sh.numeric, sh.bar)
	}
}

// writeRow prints a row padded to widths, numbers right, the one at bar followed by its (cut) mismatch bar.
func writeRow(w *bufio.Writer, indent string, widths []int, cells [][]byte, numeric []bool, bar int) {
	w.WriteString(indent)
	last := len(cells) - 1
	for i, cell := range cells {
		text, width := shownCell(cell)
		gap := widths[i] - width
		if numeric[i] {
			pad(w, gap)
			w.Write(text)
		} else {
			w.Write(text)
			if i < last {
				pad(w, gap)
			}
		}
		if i == bar {
			percent, _ := strconv.ParseFloat(string(text), 64)
			b := MismatchBar(percent)
			if i == last {
				b = strings.TrimRight(b, " ")
			}
			w.WriteByte(' ')
			w.WriteString(b)
		}
		if i < last {
			w.WriteString("  ")
		}
	}
	w.WriteByte('\n')
}

// cellText is a value as a cell shows it, unsanitized: string text, scalar literal, compact JSON, null empty.
func cellText(v jsontext.Value) []byte {
	switch v.Kind() {
	case '"':
		if bytes.IndexByte(v, '\\') < 0 {
			return v[1 : len(v)-1]
		}
		return []byte(unquote(v))
	case 'n':
		return nil
	case '{', '[':
		var b bytes.Buffer
		if json.Compact(&b, v) == nil {
			return b.Bytes()
		}
	}
	return v
}

// unquote is a JSON string's text (invalid escapes left as sent).
func unquote(v jsontext.Value) string {
	s, err := jsontext.AppendUnquote(nil, v)
	if err != nil {
		return string(v)
	}
	return string(s)
}

// shownCell is a cell as a terminal may get it (ASCII as is, else SanitizeLine) and its width there.
func shownCell(text []byte) ([]byte, int) {
	for _, c := range text {
		if c < ' ' || c >= 0x7f {
			safe := textsafe.SanitizeLine(string(text))
			return []byte(safe), textsafe.DisplayWidth(safe)
		}
	}
	return text, len(text)
}

const spaces = "                                                                "

func pad(w *bufio.Writer, n int) {
	for n > 0 {
		k := min(n, len(spaces))
		w.WriteString(spaces[:k])
		n -= k
	}
}
