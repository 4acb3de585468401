package ui

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/visualq/vq/internal/layout"
	"github.com/visualq/vq/internal/textsafe"
)

// barColumn is the column that gets an inline bar and can be sorted: the
// number a person triaging a run compares at a glance.
const barColumn = "mismatchPercent"

const (
	// maxCellWidth keeps one long value from pushing every other column
	// off the screen; longer cells end in an ellipsis.
	maxCellWidth = 40
	barWidth     = 10
	columnGap    = "  "
)

// sortOrder is how rows of a table with a bar column are ordered.
type sortOrder int

const (
	serverOrder sortOrder = iota
	descending
	ascending
)

func (o sortOrder) next() sortOrder { return (o + 1) % 3 }

// table is a layout.Table prepared for windowed rendering: widths and bar
// values are measured once, so drawing a frame costs only the visible rows,
// whatever the number of records.
type table struct {
	title  string
	t      *layout.Table
	widths []int
	// bar is the index of the bar column, -1 without one.
	bar      int
	values   []float64
	maxValue float64
	// byValue is the row order by descending bar value, computed on the
	// first sort.
	byValue []int
}

func newTable(title string, records *layout.Table) *table {
	t := &table{title: title, t: records, bar: -1}
	t.widths = make([]int, len(t.t.Columns))
	for i, c := range t.t.Columns {
		t.widths[i] = min(textsafe.DisplayWidth(c), maxCellWidth)
		if c == barColumn && t.t.Numeric[i] {
			t.bar = i
		}
	}
	for _, row := range t.t.Rows {
		for i, cell := range row {
			t.widths[i] = max(t.widths[i], min(textsafe.DisplayWidth(cell), maxCellWidth))
		}
	}
	if t.bar >= 0 {
		t.values = make([]float64, len(t.t.Rows))
		for r, row := range t.t.Rows {
			v, _ := strconv.ParseFloat(row[t.bar], 64)
			t.values[r] = v
			t.maxValue = max(t.maxValue, v)
		}
		// Room for the sort arrow in the header.
		t.widths[t.bar] = max(t.widths[t.bar], textsafe.DisplayWidth(barColumn)+2)
	}
	return t
}

func (t *table) len() int { return len(t.t.Rows) }

// row is the index in t.t.Rows of the i-th row shown in the given order.
func (t *table) row(i int, order sortOrder) int {
	if t.bar < 0 || order == serverOrder {
		return i
	}
	if t.byValue == nil {
		t.byValue = make([]int, len(t.values))
		for r := range t.byValue {
			t.byValue[r] = r
		}
		slices.SortStableFunc(t.byValue, func(a, b int) int {
			switch {
			case t.values[a] > t.values[b]:
				return -1
			case t.values[a] < t.values[b]:
				return 1
			}
			return 0
		})
	}
	if order == descending {
		return t.byValue[i]
	}
	return t.byValue[len(t.byValue)-1-i]
}

func (t *table) header(st *styles, order sortOrder) string {
	cells := make([]string, len(t.t.Columns))
	for i, c := range t.t.Columns {
		if i == t.bar {
			switch order {
			case descending:
				c += " ▼"
			case ascending:
				c += " ▲"
			}
		}
		cell := fit(c, t.widths[i], false)
		if i == t.bar {
			cell += " " + strings.Repeat(" ", barWidth)
		}
		cells[i] = cell
	}
	return st.tableHeader.Render(strings.TrimRight(strings.Join(cells, columnGap), " "))
}

func (t *table) line(i int, st *styles, order sortOrder) string {
	r := t.row(i, order)
	var b strings.Builder
	for c, cell := range t.t.Rows[r] {
		if c > 0 {
			b.WriteString(columnGap)
		}
		b.WriteString(fit(cell, t.widths[c], t.t.Numeric[c]))
		if c == t.bar {
			b.WriteByte(' ')
			b.WriteString(st.bar.Render(bar(t.values[r], t.maxValue)))
		}
	}
	return strings.TrimRight(b.String(), " ")
}

// fit pads or cuts a sanitized cell to exactly width columns.
func fit(s string, width int, right bool) string {
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

// barEighths draws with eighth blocks so that small differences, the usual
// case for mismatch percentages, still show.
var barEighths = []string{"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"}

// bar is value/full as a barWidth-wide bar, padded with spaces.
func bar(value, full float64) string {
	if full <= 0 || value <= 0 {
		return strings.Repeat(" ", barWidth)
	}
	eighths := int(min(value/full, 1)*barWidth*8 + 0.5)
	if eighths == 0 {
		eighths = 1 // a non-zero value never looks like zero
	}
	s := strings.Repeat("█", eighths/8) + barEighths[eighths%8]
	return s + strings.Repeat(" ", barWidth-utf8.RuneCountInString(s))
}
