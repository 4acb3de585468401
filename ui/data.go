package ui

import (
	"bytes"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/layout"
	"github.com/visualq/vq/internal/textsafe"
)

// field is one "key  value" line of an object's scalar members.
type field struct {
	key, value string
	// percent is set for a mismatch percentage, drawn with a bar.
	percent float64
	isBar   bool
}

// dataView is a response's data laid out as virtual lines: scalar fields
// first, then plain lines (a list of scalars, or one scalar), then each
// record list as a table. Only the lines in view are ever drawn.
type dataView struct {
	fields   []field
	keyWidth int
	// folded draws the fields on one line, to leave the room to a table
	// (see answerPage.settleFields).
	folded bool
	plain  []string
	tables []*table
	// sections index the virtual lines: where each table's title, header
	// and rows begin.
	sections []section
	total    int
}

type section struct {
	t *table
	// start is the virtual line of the table's first line (a blank
	// separator, then the title when the table has one).
	start, header int
}

// parseData lays out a response's data and picks the screenshot links
// from it.
func parseData(resp *api.ToolResponse) (*dataView, imageURLs) {
	d := &dataView{}
	l, err := layout.Response(resp.Data, resp.Members)
	if err != nil {
		d.plain = []string{textsafe.SanitizeLine(err.Error())}
		d.index()
		return d, imageURLs{}
	}
	for _, f := range l.Fields {
		row := field{key: clip(f.Key, maxLineBytes), value: clip(f.Value, maxLineBytes)}
		if f.Name == layout.MismatchColumn && f.Node.Kind == '0' {
			row.percent, _ = strconv.ParseFloat(f.Node.Text, 64)
			row.isBar = true
		}
		d.fields = append(d.fields, row)
		d.keyWidth = max(d.keyWidth, textsafe.DisplayWidth(row.key))
	}
	d.plain = make([]string, len(l.Lines))
	for i, line := range l.Lines {
		d.plain[i] = clip(line, maxLineBytes)
	}
	for _, t := range l.Tables {
		d.tables = append(d.tables, newTable(t.Title, t.Table()))
	}
	d.index()
	return d, findImageURLs(l.Fields)
}

func (d *dataView) index() {
	d.sections = d.sections[:0]
	line := d.fieldLines() + len(d.plain)
	for _, t := range d.tables {
		s := section{t: t, start: line}
		if line > 0 {
			line++ // blank separator
		}
		if t.name != "" {
			line++
		}
		s.header = line
		line += 1 + t.len()
		d.sections = append(d.sections, s)
	}
	d.total = line
}

// line draws virtual line i, a table's up to width columns; gutter draws
// the mark and review state of a table row (see Model.gutter).
func (d *dataView) line(i int, st *styles, width int, gutter func(t *table, pos int) string) string {
	if d.folded && i == 0 {
		return d.foldedFields(st, width)
	}
	if i < d.fieldLines() {
		f := d.fields[i]
		s := st.fieldKey.Render(fit(f.key, d.keyWidth, false)) + columnGap + f.value
		if f.isBar {
			bar := strings.TrimRight(layout.MismatchBar(f.percent), " ")
			s += " " + st.bar.Render(bar) + "  " + st.dim.Render("("+layout.MismatchScale+")")
		}
		return s
	}
	if i -= d.fieldLines(); i < len(d.plain) {
		return d.plain[i]
	}
	i += d.fieldLines()
	for k := len(d.sections) - 1; k >= 0; k-- {
		s := d.sections[k]
		switch {
		case i < s.start:
			continue
		case i > s.header:
			return s.t.line(i-s.header-1, st, width, gutter(s.t, i-s.header-1))
		case i == s.header:
			return s.t.header(st, width)
		case s.t.name != "" && i == s.header-1:
			title := st.sectionTitle.Render(s.t.title())
			if s.t.bar >= 0 {
				title += "  " + st.dim.Render(layout.MismatchLegend)
			}
			return title
		}
		return ""
	}
	return ""
}

// fieldLines is how many lines the fields take: one when folded.
func (d *dataView) fieldLines() int {
	if d.folded {
		return 1
	}
	return len(d.fields)
}

// fold draws the fields on one line (or on a line each), laying the
// lines out again; it reports whether that changed anything.
func (d *dataView) fold(folded bool) bool {
	folded = folded && len(d.fields) > 1
	if folded == d.folded {
		return false
	}
	d.folded = folded
	d.index()
	return true
}

// foldedFields is the fields on one line, as many as fit in width, and
// the key that shows them all.
func (d *dataView) foldedFields(st *styles, width int) string {
	hint := st.dim.Render("  (e shows " + strconv.Itoa(len(d.fields)) + " fields)")
	room := width - textsafe.DisplayWidth(ansi.Strip(hint))
	var b strings.Builder
	drawn := 0
	for i, f := range d.fields {
		if drawn >= room {
			break // the frame cuts the line there: the fields past it cost nothing
		}
		if i > 0 {
			b.WriteString(st.dim.Render(" · "))
			drawn += 3
		}
		b.WriteString(st.fieldKey.Render(f.key) + " " + f.value)
		drawn += textsafe.DisplayWidth(f.key) + 1 + textsafe.DisplayWidth(f.value)
	}
	return ansi.Truncate(b.String(), room, "…") + hint
}

// stickyHeader is the header to keep on top, up to width columns, when
// the view starting at line first has scrolled past it inside a table's
// rows.
func (d *dataView) stickyHeader(first int, st *styles, width int) (string, bool) {
	for k := len(d.sections) - 1; k >= 0; k-- {
		s := d.sections[k]
		if first < s.start {
			continue
		}
		return s.t.header(st, width), first > s.header
	}
	return "", false
}

// rowAt is the table row at virtual line i: its section and position in
// the table's view.
func (d *dataView) rowAt(i int) (sec, pos int, ok bool) {
	for k := len(d.sections) - 1; k >= 0; k-- {
		s := d.sections[k]
		if i < s.start {
			continue
		}
		if i > s.header && i-s.header-1 < s.t.len() {
			return k, i - s.header - 1, true
		}
		return 0, 0, false
	}
	return 0, 0, false
}

// rowLine is the virtual line of the row at pos in section sec.
func (d *dataView) rowLine(sec, pos int) int { return d.sections[sec].header + 1 + pos }

// setFilter filters every table; the virtual lines are laid out again.
func (d *dataView) setFilter(q string) {
	for _, t := range d.tables {
		t.setFilter(q)
	}
	d.index()
}

// rows counts the rows of every table, filter aside: a filter or a sort
// of fewer than two rows would change nothing.
func (d *dataView) rows() int {
	n := 0
	for _, t := range d.tables {
		n += len(t.t.Rows)
	}
	return n
}

// actionable reports whether any table's rows can be acted on.
func (d *dataView) actionable() bool {
	return slices.ContainsFunc(d.tables, (*table).actionable)
}

// rawLines is the response as indented JSON, one line each, for the raw
// toggle; a line is sanitized when drawn, so that the toggle costs one
// pass over the answer, whatever its size.
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

// imageURLs are the screenshot links an answer carries at the top of its
// data.
type imageURLs struct {
	baseline, test, diff string
}

// all are the links present, baseline first.
func (u imageURLs) all() []string {
	var links []string
	for _, l := range []string{u.baseline, u.test, u.diff} {
		if l != "" {
			links = append(links, l)
		}
	}
	return links
}

func findImageURLs(fields []layout.Field) imageURLs {
	get := func(k string) string {
		for _, f := range fields {
			// Top-level string members only: a nested key is dotted.
			if f.Key == f.Name && f.Name == k && f.Node.Kind == '"' {
				return textsafe.SanitizeLine(f.Node.Text)
			}
		}
		return ""
	}
	return imageURLs{baseline: get("baselineImageUrl"), test: get("testImageUrl"), diff: get("diffImageUrl")}
}
