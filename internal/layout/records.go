package layout

import (
	"bufio"
	"bytes"
	"encoding/json"
	"slices"

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
	return r.scanRows(skipSpace(r, i+1), 0, -1, cell)
}

// scanRows is scan from offset i, the start of record number row, up to
// (not including) record number stop, or to the end when stop is -1.
func (r Records) scanRows(i, row, stop int, cell func(row, member int, name, value jsontext.Value)) (int, bool) {
	for ; i < len(r) && r[i] != ']' && row != stop; row++ {
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
	}
	for len(c.atPosition) <= member {
		c.atPosition = append(c.atPosition, col)
	}
	c.atPosition[member] = col
	return col
}

func (c *columns) see(col int, kind jsontext.Kind) {
	switch kind {
	case '0':
		c.seenNumber[col] = true
	case 'n':
	default:
		c.notNumber[col] = true
	}
}

func (c *columns) finish() {
	c.numeric = make([]bool, len(c.names))
	for i := range c.names {
		c.numeric[i] = c.seenNumber[i] && !c.notNumber[i]
	}
}

// Table decodes the records into a Table (every cell a sanitized string),
// for renderers that keep the rows: the TUI scrolls and sorts them.
func (r Records) Table() *Table {
	cols := &columns{index: map[string]int{}}
	var rows [][]string
	_, _ = r.scan(func(row, member int, name, value jsontext.Value) {
		col := cols.column(member, name)
		cols.see(col, value.Kind())
		for len(rows) <= row {
			rows = append(rows, nil)
		}
		for len(rows[row]) < len(cols.names) {
			rows[row] = append(rows[row], "")
		}
		rows[row][col] = textsafe.SanitizeLine(string(cellText(value)))
	})
	cols.finish()
	for i, row := range rows {
		for len(row) < len(cols.names) {
			row = append(row, "")
		}
		rows[i] = row
	}
	return &Table{Columns: cols.names, Numeric: cols.numeric, Rows: rows}
}

// shape is what printing a record list needs to know before its first
// row: the columns, their widths and how many records there are.
type shape struct {
	cols   *columns
	widths []int
	rows   int
	// half is the first record starting in the second half of a large
	// list (its number and offset), where printing splits in two.
	half struct{ row, at int }
}

// A record list of splitFrom bytes or more is printed by two goroutines,
// each half on its own core, when the second half's table fits in
// splitBufferMax bytes: the plain-table row of BENCHMARKS.md meets its goal
// only with both cores printing.
const (
	splitFrom      = 1 << 20
	splitBufferMax = 16 << 20
)

// measure is the first of the two passes plain output makes over a record
// list. ok is false when r is not a record list after all (empty, or an
// element that is not an object).
func (r Records) measure() (*shape, bool) {
	sh := &shape{cols: &columns{index: map[string]int{}}}
	rows, ok := r.scan(func(row, member int, name, value jsontext.Value) {
		col := sh.cols.column(member, name)
		sh.cols.see(col, value.Kind())
		for len(sh.widths) < len(sh.cols.names) {
			sh.widths = append(sh.widths, textsafe.DisplayWidth(sh.cols.names[len(sh.widths)]))
		}
		sh.widths[col] = max(sh.widths[col], cellWidth(cellText(value)))
		if member == 0 && sh.half.at == 0 && len(r) >= splitFrom {
			// The record's brace is the first byte before its first name
			// that is not space (name is a view into r).
			at := cap(r) - cap(name) - 1
			for r[at] != '{' {
				at--
			}
			if at >= len(r)/2 {
				sh.half.row, sh.half.at = row, at
			}
		}
	})
	sh.cols.finish()
	sh.rows = rows
	// The second half is held whole while the first is written: split only
	// when that stays small, since one wide cell pads every row to it.
	rowBytes := 2*len(sh.widths) + 1
	for _, w := range sh.widths {
		rowBytes += w
	}
	if (rows-sh.half.row)*rowBytes > splitBufferMax {
		sh.half.row, sh.half.at = 0, 0
	}
	return sh, ok
}

// WriteText prints the records as an aligned table, each line after
// indent: the header, then one row a record, numbers on the right. It is
// the second pass over the records, measured when the data was laid out.
func (t TitledTable) WriteText(w *bufio.Writer, indent string) {
	t.Records.write(w, indent, t.shape)
}

// write prints the records as an aligned table: one row at a time, the
// second half of a large list rendered alongside the first by another
// goroutine. Cells that need no sanitizing are copied straight from the
// answer.
func (r Records) write(w *bufio.Writer, indent string, sh *shape) {
	header := make([][]byte, len(sh.cols.names))
	for i, name := range sh.cols.names {
		header[i] = []byte(name)
	}
	writeRow(w, indent, sh.widths, header, make([]bool, len(header)))
	start := skipSpace(r, skipSpace(r, 0)+1) // the first record
	if sh.half.at == 0 {
		r.writeRows(w, indent, sh, start, 0, -1)
		return
	}
	var second bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		bw := bufio.NewWriterSize(&second, 64<<10)
		r.writeRows(bw, indent, sh, sh.half.at, sh.half.row, -1)
		bw.Flush()
	}()
	r.writeRows(w, indent, sh, start, 0, sh.half.row)
	<-done
	w.Write(second.Bytes())
}

// writeRows prints the records from offset i, record number row, up to
// record number stop (-1: to the end).
func (r Records) writeRows(w *bufio.Writer, indent string, sh *shape, i, row, stop int) {
	// Each half looks columns up on its own: measure saw every name, so
	// only the position cache changes, and each half keeps its own.
	cols := *sh.cols
	cols.atPosition = slices.Clone(cols.atPosition)
	cells := make([][]byte, len(cols.names))
	current := -1
	_, _ = r.scanRows(i, row, stop, func(row, member int, name, value jsontext.Value) {
		if row != current {
			if current >= 0 {
				writeRow(w, indent, sh.widths, cells, sh.cols.numeric)
			}
			clear(cells)
			current = row
		}
		cells[cols.column(member, name)] = cellText(value)
	})
	if current >= 0 {
		writeRow(w, indent, sh.widths, cells, sh.cols.numeric)
	}
}

// writeRow prints one row of cells padded to widths, numbers on the right.
func writeRow(w *bufio.Writer, indent string, widths []int, cells [][]byte, numeric []bool) {
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
		if i < last {
			w.WriteString("  ")
		}
	}
	w.WriteByte('\n')
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
