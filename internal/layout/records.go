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

// Records is a record list (a JSON array of objects) as the server sent
// it. It is drawn by scanning these bytes rather than by building a tree:
// a 100k-row answer costs a few passes over 8 MB, not a million objects.
type Records []byte

// newDecoder reads doc in place (a bytes.Buffer source is not copied), so
// the values it returns are views into doc that stay valid.
func newDecoder(doc []byte) *jsontext.Decoder {
	return jsontext.NewDecoder(bytes.NewBuffer(doc), jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))
}

// scan calls cell for every member of every record, in order: the record's
// index, the member's quoted name and its value, both views into r. It
// reports how many records there were, and false when r is not a
// non-empty array of objects only.
//
// r was validated when the data was laid out (jsontext read it whole), so
// this pass only needs to find where each name and value begins and ends:
// it runs over the bytes several times faster than a token reader, and it
// runs twice for every table plain output prints.
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

// skipSpace is the index of the first non-whitespace byte at or after i.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// skipSeparator steps over whitespace and one comma after a value.
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

// skipString is the index just past the string whose quote is at i: the
// next quote not escaped by an odd run of backslashes.
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

// columns is the layout of a record list: the member names in first-seen
// order, and which columns hold numbers only.
type columns struct {
	names   []string
	index   map[string]int
	numeric []bool
	// quoted holds each column's name as sent; atPosition the column last
	// seen at each member position (see column).
	quoted     []jsontext.Value
	atPosition []int
	// seenNumber and notNumber decide numeric: every non-empty cell a number.
	seenNumber, notNumber []bool
	// present counts the records holding each column (see choose).
	present []int
	// show is each column's position in the table, -1 for one left out;
	// shown lists the columns of the table in order.
	show, shown []int
}

// column is the column of the member at position member named name. The
// records of a list nearly always list their members in one order, so the
// column seen at that position before is tried first, and the map only
// when the order differs: a hash per cell is most of a pass otherwise.
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

// choose picks the columns a list of rows records shows as a table and
// reports whether it is one. A table shows the most frequent columns, as
// many as keep it at least half full (every column shown is held by half
// the records on average) and at most maxColumns, in first-seen order;
// the rest are counted, not shown. The list is a table when those columns
// hold at least half of its members; otherwise its records share too few
// keys to line up (or one record has too many) and it is laid out as
// fields, one per member.
//
// These rules bound the printing: the cells of a half-full table are at
// most twice the members it shows, so its separators and empty cells cost
// a few bytes per member of the answer, whatever the number of distinct
// keys.
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

// more is how many columns the table leaves out.
func (c *columns) more() int { return len(c.names) - len(c.shown) }

// MoreColumnsNote is the line a rendering adds, once, under a table that
// leaves n columns out ("" for none).
func MoreColumnsNote(n int) string {
	if n == 0 {
		return ""
	}
	noun := "columns"
	if n == 1 {
		noun = "column"
	}
	return "+" + strconv.Itoa(n) + " more " + noun + " (--json shows every member)"
}

// Table decodes the records into a Table (every cell a sanitized string)
// of the columns a table of them shows (see choose), for renderers that
// keep the rows: the TUI scrolls and sorts them.
func (r Records) Table() *Table {
	sh, ok := r.measure()
	if !ok {
		return &Table{}
	}
	return sh.decode(r)
}

// Table is the records' Table, as measured when the data was laid out.
func (t TitledTable) Table() *Table { return t.shape.decode(t.Records) }

// decode reads the shown cells of the records into a Table. The cells
// are substrings of one string of all their text, so a 100k-row answer
// costs a few allocations rather than one a cell.
func (sh *shape) decode(r Records) *Table {
	cols := *sh.cols
	cols.atPosition = slices.Clone(cols.atPosition)
	n := len(cols.shown)
	// spans are where each cell is in text, which holds them in the order
	// met (answers are bounded far below the 2 GiB an int32 counts).
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

// shape is what printing a record list needs to know before its first
// row: the columns shown, their widths and how many records there are.
type shape struct {
	cols *columns
	// table is false for a list laid out as fields (see choose).
	table bool
	// widths and numeric are those of the columns shown, in order.
	widths  []int
	numeric []bool
	rows    int
	// bar is the position of the column writeText draws mismatch bars
	// for, -1 for none.
	bar int
}

// measure is the first of the two passes plain output makes over a record
// list. ok is false when r is not a record list after all (empty, or an
// element that is not an object).
func (r Records) measure() (*shape, bool) {
	sh := &shape{cols: &columns{index: map[string]int{}}, bar: -1}
	var spans []span
	rows, ok := r.scan(func(_, member int, name, value jsontext.Value) {
		col := sh.cols.column(member, name)
		sh.cols.see(col, value.Kind())
		for len(spans) < len(sh.cols.names) {
			spans = append(spans, span{})
		}
		spans[col].add(cellWidth(cellText(value)))
	})
	sh.rows = rows
	sh.table = sh.cols.choose(rows)
	for _, col := range sh.cols.shown {
		w := max(textsafe.DisplayWidth(sh.cols.names[col]), spans[col].width(rows))
		sh.widths = append(sh.widths, w)
		sh.numeric = append(sh.numeric, sh.cols.numeric[col])
	}
	return sh, ok
}

// writeText prints the records as an aligned table, each line after
// indent: the header, then one row a record, numbers on the right, and
// the note of the columns left out. It is the second pass over the
// records, measured when the data was laid out.
//
// With bars, a number column of mismatch percentages (MismatchColumn)
// gets its bars (MismatchBar) and the legend follows the table: for a
// person at a terminal, not for a program reading the columns.
func (t TitledTable) writeText(w *bufio.Writer, indent string, bars bool) {
	sh := *t.shape
	sh.bar = -1
	if bars {
		sh.bar = sh.mismatchColumn()
	}
	t.Records.write(w, indent, &sh)
	if note := MoreColumnsNote(t.shape.cols.more()); note != "" {
		w.WriteString(indent + note + "\n")
	}
	if sh.bar >= 0 {
		w.WriteString(indent + MismatchLegend + "\n")
	}
}

// mismatchColumn is the position of the shown number column of mismatch
// percentages, -1 when there is none.
func (sh *shape) mismatchColumn() int {
	for i, col := range sh.cols.shown {
		if sh.numeric[i] && sh.cols.names[col] == MismatchColumn {
			return i
		}
	}
	return -1
}

// write prints the records as an aligned table, one row at a time. Cells
// that need no sanitizing are copied straight from the answer.
func (r Records) write(w *bufio.Writer, indent string, sh *shape) {
	header := make([][]byte, len(sh.cols.shown))
	for i, col := range sh.cols.shown {
		header[i] = []byte(sh.cols.names[col])
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

// writeRow prints one row of cells padded to widths, numbers on the right,
// the number at position bar (-1: none) followed by its mismatch bar; a
// cell wider than its column (see span) pushes the rest along.
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
			writeBar(w, text, i == last)
		}
		if i < last {
			w.WriteString("  ")
		}
	}
	w.WriteByte('\n')
}

// writeBar writes the mismatch bar of the number text after a space, its
// padding cut at the end of a line.
func writeBar(w *bufio.Writer, text []byte, last bool) {
	percent, _ := strconv.ParseFloat(string(text), 64)
	bar := MismatchBar(percent)
	if last {
		bar = strings.TrimRight(bar, " ")
	}
	w.WriteByte(' ')
	w.WriteString(bar)
}

// cellText is a value as a cell shows it, not yet sanitized: a string's
// text, a scalar's literal, an object or array as compact JSON, null empty.
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

// shownCell is a cell as it may reach a terminal, and its width there:
// plain ASCII as is, anything else through SanitizeLine.
func shownCell(text []byte) ([]byte, int) {
	for _, c := range text {
		if c < ' ' || c >= 0x7f {
			safe := textsafe.SanitizeLine(string(text))
			return []byte(safe), textsafe.DisplayWidth(safe)
		}
	}
	return text, len(text)
}

// cellWidth is the terminal width of a cell once sanitized.
func cellWidth(text []byte) int {
	_, width := shownCell(text)
	return width
}

const spaces = "                                                                "

func pad(w *bufio.Writer, n int) {
	for n > 0 {
		k := min(n, len(spaces))
		w.WriteString(spaces[:k])
		n -= k
	}
}
