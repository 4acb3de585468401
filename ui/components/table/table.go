// Package table draws a list of records measured once, only the rows in view. It imports the internal leaves only.
package table

import (
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"
	"github.com/visualq/vq/internal/layout"
	"github.com/visualq/vq/internal/textsafe"
)

const (
	// maxCellWidth keeps one long value from pushing the others away.
	maxCellWidth = 40
	barWidth     = layout.MismatchBarWidth
	columnGap    = "  "
	// gutterWidth is the selection, mark and review state before a row.
	gutterWidth = 3
	// arrowWidth is the sort arrow after a column's name (" ▲").
	arrowWidth = 2
)

// Styles are a table's looks: its header, and the mismatch bar.
type Styles struct{ Header, Bar lipgloss.Style }

// sortKey orders rows by col (-1: as the server sent them).
type sortKey struct {
	col  int
	desc bool
}

var serverOrder = sortKey{col: -1}

// Table is a layout.Table measured once, so a frame costs only the rows in view.
type Table struct {
	Name   string // the member that holds the list ("" for the data itself).
	Data   *layout.Table
	widths []int
	// bar is the bar column's index (-1: none), values its numbers.
	bar    int
	values []float64

	order sortKey
	// byColumn caches each column's ascending order.
	byColumn map[int][]int
	// query is lower-cased; match the rows passing it (nil: all); haystack built once.
	query    string
	match    []bool
	matches  int
	haystack []string
	view     []int

	Marked map[int]bool // the rows space or * marked.
}

// New measures records, the list in member name.
func New(name string, records *layout.Table) *Table {
	t := &Table{Name: name, Data: records, bar: -1, order: serverOrder}
	t.widths = make([]int, len(t.Data.Columns))
	for i, c := range t.Data.Columns {
		// A column's name keeps room for the sort arrow after it.
		t.widths[i] = min(textsafe.DisplayWidth(layout.Heading(c))+arrowWidth, maxCellWidth)
		if c == layout.MismatchColumn && t.Data.Numeric[i] {
			t.bar = i
		}
	}
	for _, row := range t.Data.Rows {
		for i, cell := range row {
			t.widths[i] = max(t.widths[i], min(textsafe.DisplayWidth(textsafe.Clip(cell, textsafe.MaxLineBytes)), maxCellWidth))
		}
	}
	if t.bar >= 0 {
		t.values = t.numbers(t.bar)
	}
	t.Marked = map[int]bool{}
	t.rebuild()
	return t
}

// Title is the member's name and the row count ("12 of 350" while filtered).
func (t *Table) Title() string {
	if t.Name == "" {
		return ""
	}
	count := strconv.Itoa(len(t.Data.Rows))
	if t.match != nil {
		count = strconv.Itoa(t.matches) + " of " + count
	}
	return t.Name + " (" + count + ")"
}

func (t *Table) Len() int { return len(t.view) }

// Row is the index in t.Data.Rows of the i-th row shown.
func (t *Table) Row(i int) int { return t.view[i] }

func (t *Table) numbers(col int) []float64 {
	v := make([]float64, len(t.Data.Rows))
	for r, row := range t.Data.Rows {
		v[r], _ = strconv.ParseFloat(row[col], 64)
	}
	return v
}

// nextOrder is s's next column, then the server's order; numbers start descending.
func (t *Table) nextOrder() sortKey {
	c := t.order.col + 1
	if c >= len(t.Data.Columns) {
		return serverOrder
	}
	return sortKey{col: c, desc: t.Data.Numeric[c]}
}

func (t *Table) NextSort() {
	t.order = t.nextOrder()
	t.rebuild()
}

// ReverseSort flips the current sort, or sorts as s would, reversed.
func (t *Table) ReverseSort() {
	if t.order.col < 0 {
		t.order = t.nextOrder()
	}
	t.order.desc = !t.order.desc
	t.rebuild()
}

// SortHelp says what s does next: "sort: viewport", "server order".
func (t *Table) SortHelp() string {
	if o := t.nextOrder(); o.col >= 0 {
		return "sort: " + textsafe.SanitizeLine(layout.Heading(t.Data.Columns[o.col]))
	}
	return "server order"
}

// ascending is the rows in col's order, numbers by value, ties as sent.
func (t *Table) ascending(col int) []int {
	if perm, ok := t.byColumn[col]; ok {
		return perm
	}
	perm := make([]int, len(t.Data.Rows))
	for r := range perm {
		perm[r] = r
	}
	if t.Data.Numeric[col] {
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
		rows := t.Data.Rows
		slices.SortStableFunc(perm, func(a, b int) int { return naturalCompare(rows[a][col], rows[b][col]) })
	}
	if t.byColumn == nil {
		t.byColumn = map[int][]int{}
	}
	t.byColumn[col] = perm
	return perm
}

// SetFilter shows the rows containing q, ignoring case; an extended query searches only the matches.
func (t *Table) SetFilter(q string) {
	q = strings.ToLower(q)
	if q == t.query {
		return
	}
	switch {
	case q == "":
		t.match, t.matches = nil, len(t.Data.Rows)
	default:
		if t.haystack == nil {
			t.haystack = make([]string, len(t.Data.Rows))
			for r, row := range t.Data.Rows {
				t.haystack[r] = strings.ToLower(strings.Join(row, "\x00"))
			}
		}
		narrowing := t.match != nil && strings.HasPrefix(q, t.query)
		if !narrowing {
			t.match = make([]bool, len(t.Data.Rows))
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

func (t *Table) rebuild() {
	var order []int
	if t.order.col >= 0 {
		order = t.ascending(t.order.col)
	}
	n := len(t.Data.Rows)
	if t.match != nil {
		n = t.matches
	}
	view := make([]int, 0, n)
	for i := range len(t.Data.Rows) {
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

// Position is where row r shows in the view, -1 when the filter hides it.
func (t *Table) Position(r int) int { return slices.Index(t.view, r) }

// Header is the column names that start within width, the sorted one with an arrow.
func (t *Table) Header(st Styles, width int, gutter bool) string {
	var b strings.Builder
	drawn := 0
	if gutter {
		b.WriteString(strings.Repeat(" ", gutterWidth))
		drawn = gutterWidth
	}
	var head strings.Builder
	gap := ""
	for i, c := range t.Data.Columns {
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
		c = layout.Heading(c)
		if i == t.order.col {
			c += map[bool]string{true: " ▼", false: " ▲"}[t.order.desc]
		}
		head.WriteString(textsafe.Fit(c, width, false))
	}
	b.WriteString(st.Header.Render(strings.TrimRight(head.String(), " ")))
	return b.String()
}

// Line draws the i-th row shown within width, after gutter.
func (t *Table) Line(i int, st Styles, width int, gutter string) string {
	r := t.Row(i)
	var b strings.Builder
	b.WriteString(gutter)
	drawn := 0
	if gutter != "" {
		drawn = gutterWidth
	}
	for c, cell := range t.Data.Rows[r] {
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
		b.WriteString(textsafe.Fit(cell, t.widths[c], t.Data.Numeric[c]))
		if c == t.bar {
			b.WriteByte(' ')
			b.WriteString(st.Bar.Render(layout.MismatchBar(t.values[r])))
		}
	}
	return strings.TrimRight(b.String(), " ")
}

// Shown are the rows shown, as indexes into the rows, in their order.
func (t *Table) Shown() []int { return t.view }

func (t *Table) Shows(r int) bool { return t.match == nil || t.match[r] }

// HasBar reports a mismatch column, drawn with its bar.
func (t *Table) HasBar() bool { return t.bar >= 0 }

// Around yields the rows in t's order, unfiltered: r, those after, then those before.
func (t *Table) Around(r int, yield func(int) bool) {
	n := len(t.Data.Rows)
	at := func(i int) int { return i }
	if t.order.col >= 0 {
		perm := t.ascending(t.order.col)
		at = func(i int) int { return perm[i] }
		if t.order.desc {
			at = func(i int) int { return perm[n-1-i] }
		}
	}
	place := 0
	for i := range n {
		if at(i) == r {
			place = i
			break
		}
	}
	for i := place; i < n; i++ {
		if !yield(at(i)) {
			return
		}
	}
	for i := place - 1; i >= 0; i-- {
		if !yield(at(i)) {
			return
		}
	}
}

// MarkAll marks the rows shown, or unmarks them when all are marked.
func (t *Table) MarkAll() {
	all := true
	for _, r := range t.view {
		if !t.Marked[r] {
			all = false
			break
		}
	}
	for _, r := range t.view {
		if all {
			delete(t.Marked, r)
		} else {
			t.Marked[r] = true
		}
	}
}

func (t *Table) SameColumns(old *Table) bool {
	return slices.Equal(t.Data.Columns, old.Data.Columns)
}

// Carry takes on the sort and marks (by cells) of old, the table t replaces.
func (t *Table) Carry(old *Table) {
	if old.order.col >= 0 {
		t.order = old.order
		t.rebuild()
	}
	if len(old.Marked) == 0 {
		return
	}
	want := make(map[string]bool, len(old.Marked))
	for r := range old.Marked {
		want[strings.Join(old.Data.Rows[r], "\x00")] = true
	}
	for r, row := range t.Data.Rows {
		if want[strings.Join(row, "\x00")] {
			t.Marked[r] = true
		}
	}
}

// Keys are a table's keys: filter its rows, sort them, mark them.
type Keys struct {
	Filter, ClearFilter key.Binding
	Sort, Reverse       key.Binding
	Mark, MarkAll       key.Binding
}

// NewKeys are /, esc (and alt+esc, a quick double Esc), s, S, space and *.
func NewKeys() Keys {
	return Keys{
		Filter:      key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		ClearFilter: key.NewBinding(key.WithKeys("esc", "alt+esc"), key.WithHelp("esc", "clear filter")),
		Sort:        key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "sort")),
		Reverse:     key.NewBinding(key.WithKeys("S"), key.WithHelp("S", "reverse sort")),
		Mark:        key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "mark")),
		MarkAll:     key.NewBinding(key.WithKeys("*"), key.WithHelp("*", "mark all shown")),
	}
}

func (k Keys) ShortHelp() []key.Binding {
	return []key.Binding{k.Mark, k.Filter, k.ClearFilter, k.Sort}
}
func (k Keys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Filter, k.ClearFilter, k.Sort, k.Reverse, k.Mark, k.MarkAll}}
}
