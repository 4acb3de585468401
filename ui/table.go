package ui

import (
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/visualq/vq/internal/layout"
	"github.com/visualq/vq/internal/textsafe"
)

const (
	// maxCellWidth keeps one long value from pushing every other column
	// off the screen; longer cells end in an ellipsis.
	maxCellWidth = 40
	barWidth     = layout.MismatchBarWidth
	columnGap    = "  "
	// gutterWidth is the mark and review state drawn before the cells of
	// a table whose rows can be acted on.
	gutterWidth = 3
	// arrowWidth is the sort arrow after a column's name (" ▲").
	arrowWidth = 2
)

// sortKey is how rows are ordered: by column col (-1: as the server sent
// them), descending or not.
type sortKey struct {
	col  int
	desc bool
}

var serverOrder = sortKey{col: -1}

// table is a layout.Table prepared for windowed rendering: widths and bar
// values are measured once, so drawing a frame costs only the visible rows,
// whatever the number of records. Sorting and filtering produce view, the
// rows shown, as indexes into t.Rows: a row keeps its index whatever the
// view, which is what marks and row actions refer to.
type table struct {
	// name is the member that holds the list ("" for the data itself);
	// title is what the screen shows above it.
	name   string
	t      *layout.Table
	widths []int
	// bar is the index of the bar column, -1 without one, and values its
	// numbers.
	bar    int
	values []float64

	order sortKey
	// byColumn caches each column's ascending order, built on its first
	// sort: cycling through the columns again costs nothing.
	byColumn map[int][]int
	// query is the lower-cased filter; match holds which rows pass it
	// (nil: every row) and haystack each row's lower-cased cells, built
	// on the first filter keystroke.
	query    string
	match    []bool
	matches  int
	haystack []string
	view     []int

	// templates are the row actions (see rowaction.go); marked the rows
	// space or * marked.
	templates []*rowTemplate
	marked    map[int]bool
}

func newTable(name string, records *layout.Table) *table {
	t := &table{name: name, t: records, bar: -1, order: serverOrder}
	t.widths = make([]int, len(t.t.Columns))
	for i, c := range t.t.Columns {
		// A column's name keeps room for the sort arrow after it.
		t.widths[i] = min(textsafe.DisplayWidth(c)+arrowWidth, maxCellWidth)
		if c == layout.MismatchColumn && t.t.Numeric[i] {
			t.bar = i
		}
	}
	for _, row := range t.t.Rows {
		for i, cell := range row {
			t.widths[i] = max(t.widths[i], min(textsafe.DisplayWidth(textsafe.Clip(cell, textsafe.MaxLineBytes)), maxCellWidth))
		}
	}
	if t.bar >= 0 {
		t.values = t.numbers(t.bar)
	}
	t.marked = map[int]bool{}
	t.rebuild()
	return t
}

// title is the table's heading: the member's name and how many rows
// show, "12 of 350" while a filter hides some.
func (t *table) title() string {
	if t.name == "" {
		return ""
	}
	count := strconv.Itoa(len(t.t.Rows))
	if t.match != nil {
		count = strconv.Itoa(t.matches) + " of " + count
	}
	return t.name + " (" + count + ")"
}

// len is the number of rows shown.
func (t *table) len() int { return len(t.view) }

// row is the index in t.t.Rows of the i-th row shown.
func (t *table) row(i int) int { return t.view[i] }

// actionable reports whether rows have an action: only then can they be
// selected and marked.
func (t *table) actionable() bool { return len(t.templates) > 0 }

func (t *table) numbers(col int) []float64 {
	v := make([]float64, len(t.t.Rows))
	for r, row := range t.t.Rows {
		v[r], _ = strconv.ParseFloat(row[col], 64)
	}
	return v
}

// nextOrder is the order s moves to: the next column, left to right from
// the first, then the server's order. A number column starts descending
// (the largest change first), text ascending.
func (t *table) nextOrder() sortKey {
	c := t.order.col + 1
	if c >= len(t.t.Columns) {
		return serverOrder
	}
	return sortKey{col: c, desc: t.t.Numeric[c]}
}

// nextSort sorts by nextOrder.
func (t *table) nextSort() {
	t.order = t.nextOrder()
	t.rebuild()
}

// reverseSort flips the direction of the current sort; with none, it
// sorts as s would, the other way round.
func (t *table) reverseSort() {
	if t.order.col < 0 {
		t.order = t.nextOrder()
	}
	t.order.desc = !t.order.desc
	t.rebuild()
}

// sortHelp says what s does next: "sort: viewport", "server order".
func (t *table) sortHelp() string {
	if o := t.nextOrder(); o.col >= 0 {
		return "sort: " + textsafe.SanitizeLine(t.t.Columns[o.col])
	}
	return "server order"
}

// ascending is the rows in col's ascending order, numbers by value, ties
// in the server's order.
func (t *table) ascending(col int) []int {
	if perm, ok := t.byColumn[col]; ok {
		return perm
	}
	perm := make([]int, len(t.t.Rows))
	for r := range perm {
		perm[r] = r
	}
	if t.t.Numeric[col] {
		v := t.numbers(col)
		slices.SortStableFunc(perm, func(a, b int) int {
			switch {
			case v[a] < v[b]:
				return -1
			case v[a] > v[b]:
				return 1
			}
			return 0
		})
	} else {
		rows := t.t.Rows
		slices.SortStableFunc(perm, func(a, b int) int { return naturalCompare(rows[a][col], rows[b][col]) })
	}
	if t.byColumn == nil {
		t.byColumn = map[int][]int{}
	}
	t.byColumn[col] = perm
	return perm
}

// setFilter shows only the rows that contain q in any cell, ignoring
// case. A query that extends the last one searches only its matches.
func (t *table) setFilter(q string) {
	q = strings.ToLower(q)
	if q == t.query {
		return
	}
	switch {
	case q == "":
		t.match, t.matches = nil, len(t.t.Rows)
	default:
		if t.haystack == nil {
			t.haystack = make([]string, len(t.t.Rows))
			for r, row := range t.t.Rows {
				t.haystack[r] = strings.ToLower(strings.Join(row, "\x00"))
			}
		}
		narrowing := t.match != nil && strings.HasPrefix(q, t.query)
		if !narrowing {
			t.match = make([]bool, len(t.t.Rows))
		}
		t.matches = 0
		for r, hay := range t.haystack {
			if narrowing && !t.match[r] {
				continue
			}
			t.match[r] = strings.Contains(hay, q)
			if t.match[r] {
				t.matches++
			}
		}
	}
	t.query = q
	t.rebuild()
}

// rebuild makes the view from the order and the filter.
func (t *table) rebuild() {
	var order []int
	if t.order.col >= 0 {
		order = t.ascending(t.order.col)
	}
	n := len(t.t.Rows)
	if t.match != nil {
		n = t.matches
	}
	view := make([]int, 0, n)
	for i := range len(t.t.Rows) {
		r := i
		switch {
		case order == nil:
		case t.order.desc:
			r = order[len(order)-1-i]
		default:
			r = order[i]
		}
		if t.match == nil || t.match[r] {
			view = append(view, r)
		}
	}
	t.view = view
}

// position is where row r shows in the view, -1 when the filter hides it.
func (t *table) position(r int) int { return slices.Index(t.view, r) }

// header is the column names, as many as start within width columns; the
// sorted one has an arrow, in the room its column keeps for it.
func (t *table) header(st *styles, width int) string {
	var b strings.Builder
	drawn := 0
	if t.actionable() {
		b.WriteString(strings.Repeat(" ", gutterWidth))
		drawn = gutterWidth
	}
	var head strings.Builder
	gap := ""
	for i, c := range t.t.Columns {
		if drawn >= width {
			break // the frame cuts the line there: the columns past it cost nothing
		}
		drawn += len(gap) + t.widths[i]
		head.WriteString(gap)
		width := t.widths[i]
		if i == t.bar {
			width += 1 + barWidth
		}
		gap = columnGap
		if i == t.order.col {
			c += map[bool]string{true: " ▼", false: " ▲"}[t.order.desc]
		}
		head.WriteString(fit(c, width, false))
	}
	b.WriteString(st.tableHeader.Render(strings.TrimRight(head.String(), " ")))
	return b.String()
}

// line draws the i-th row shown, the cells that start within width
// columns; gutter is its mark and state, drawn only for a table whose rows
// can be acted on.
func (t *table) line(i int, st *styles, width int, gutter string) string {
	r := t.row(i)
	var b strings.Builder
	b.WriteString(gutter)
	drawn := 0
	if gutter != "" {
		drawn = gutterWidth
	}
	for c, cell := range t.t.Rows[r] {
		if drawn >= width {
			break // the frame cuts the line there: the cells past it cost nothing
		}
		if c > 0 {
			b.WriteString(columnGap)
			drawn += len(columnGap)
		}
		drawn += t.widths[c]
		if c == t.bar {
			drawn += 1 + barWidth
		}
		b.WriteString(fit(cell, t.widths[c], t.t.Numeric[c]))
		if c == t.bar {
			b.WriteByte(' ')
			b.WriteString(st.bar.Render(layout.MismatchBar(t.values[r])))
		}
	}
	return strings.TrimRight(b.String(), " ")
}

// fit pads or cuts a sanitized cell to exactly width columns.
func fit(s string, width int, right bool) string {
	s = textsafe.Clip(s, textsafe.MaxLineBytes)
	w := textsafe.DisplayWidth(s)
	if w > width {
		return ansi.Truncate(s, width, "…")
	}
	padding := strings.Repeat(" ", width-w)
	if right {
		return padding + s
	}
	return s + padding
}
