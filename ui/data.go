package ui

import (
	"bytes"
	"slices"
	"strings"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/layout"
	"github.com/visualq/vq/internal/textsafe"
	"github.com/visualq/vq/ui/components/fields"
	"github.com/visualq/vq/ui/components/image"
	tbl "github.com/visualq/vq/ui/components/table"
)

// dataView is the data as virtual lines (fields, plain lines, tables); only those in view are drawn.
type dataView struct {
	fields   fields.Model // fields fold into a line for a table's room (settleFields).
	plain    []string
	tables   []*table
	sections []section // sections index where each table's lines begin.
	total    int
}

type section struct {
	t *table
	// start is the table's first line (a blank, then any title).
	start, header int
}

// parseData lays out a response's data (l, nil when it is no JSON) and picks the screenshots from it.
func parseData(resp *api.ToolResponse) (d *dataView, shots image.Model, l *layout.Layout) {
	d = &dataView{}
	l, err := layout.Response(resp.Data, resp.Members)
	if err != nil {
		d.plain = []string{textsafe.SanitizeLine(err.Error())}
		d.index()
		return d, image.Model{}, nil
	}
	d.fields = fields.New(l.Fields)
	d.plain = make([]string, len(l.Lines))
	for i, line := range l.Lines {
		d.plain[i] = textsafe.Clip(line, textsafe.MaxLineBytes)
	}
	for _, t := range l.Tables {
		d.tables = append(d.tables, &table{Table: tbl.New(t.Title, t.Table())})
	}
	d.index()
	return d, image.New(l.Fields), l
}

func (d *dataView) index() {
	d.sections = d.sections[:0]
	line := d.fields.Lines() + len(d.plain)
	for _, t := range d.tables {
		s := section{t: t, start: line}
		if line > 0 {
			line++ // blank separator
		}
		if t.Name != "" {
			line++
		}
		s.header = line
		line += 1 + t.Len()
		d.sections = append(d.sections, s)
	}
	d.total = line
}

// line draws virtual line i up to width columns.
func (d *dataView) line(i int, st *styles, width int, gutter func(t *table, pos int) string) string {
	if i < d.fields.Lines() {
		return d.fields.Line(i, st.fields, width)
	}
	if i -= d.fields.Lines(); i < len(d.plain) {
		return d.plain[i]
	}
	i += d.fields.Lines()
	for k := len(d.sections) - 1; k >= 0; k-- {
		s := d.sections[k]
		switch {
		case i < s.start:
			continue
		case i > s.header:
			return s.t.Line(i-s.header-1, st.table, width, gutter(s.t, i-s.header-1))
		case i == s.header:
			return s.t.Header(st.table, width, s.t.actionable())
		case s.t.Name != "" && i == s.header-1:
			title := st.sectionTitle.Render(s.t.Title())
			if s.t.HasBar() {
				title += "  " + st.dim.Render(layout.MismatchLegend)
			}
			return title
		}
		return ""
	}
	return ""
}

// fold folds the fields (fields.Model.Fold), laying the lines out again.
func (d *dataView) fold(folded bool) bool {
	if !d.fields.Fold(folded) {
		return false
	}
	d.index()
	return true
}

// stickyHeader is the header atop a view starting at first, and whether it scrolled past.
func (d *dataView) stickyHeader(first int, st *styles, width int) (string, bool) {
	for k := len(d.sections) - 1; k >= 0; k-- {
		s := d.sections[k]
		if first < s.start {
			continue
		}
		return s.t.Header(st.table, width, s.t.actionable()), first > s.header
	}
	return "", false
}

// rowAt is the table row at virtual line i: section, position in view.
func (d *dataView) rowAt(i int) (sec, pos int, ok bool) {
	for k := len(d.sections) - 1; k >= 0; k-- {
		s := d.sections[k]
		if i < s.start {
			continue
		}
		if i > s.header && i-s.header-1 < s.t.Len() {
			return k, i - s.header - 1, true
		}
		return 0, 0, false
	}
	return 0, 0, false
}

func (d *dataView) rowLine(sec, pos int) int { return d.sections[sec].header + 1 + pos }

// setFilter filters every table; the virtual lines are laid out again.
func (d *dataView) setFilter(q string) {
	for _, t := range d.tables {
		t.SetFilter(q)
	}
	d.index()
}

func (d *dataView) rows() int {
	n := 0
	for _, t := range d.tables {
		n += len(t.Data.Rows)
	}
	return n
}

func (d *dataView) actionable() bool {
	return slices.ContainsFunc(d.tables, (*table).actionable)
}

// rawLines is the response as indented JSON lines, sanitized when drawn.
func rawLines(resp *api.ToolResponse) []string {
	var buf bytes.Buffer
	doc, err := resp.Document()
	if err == nil {
		err = textsafe.WriteJSON(&buf, doc, true)
	}
	if err != nil {
		return []string{err.Error()}
	}
	return strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
}
