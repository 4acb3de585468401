package ui

import (
	"image"
	"strings"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/textsafe"
)

// focus is the pane the arrow keys move in.
type focus int

const (
	focusActions focus = iota
	focusData
)

// screen is one answer on the stack: the call that produced it, the answer,
// and where the person is looking in it.
type screen struct {
	call api.Call
	// crumb names the screen in the breadcrumb: the tool of the first call,
	// the label of the action that led here after that.
	crumb  string
	resp   *api.ToolResponse
	data   *dataView
	images imageURLs
	// view is what the data pane shows; raw holds the response as JSON
	// lines once the raw view was asked for.
	view   paneView
	raw    []string
	offset int
	cursor int
	focus  focus
	// sec and pos are the selected row (section, position in its table's
	// view) while the data has rows to act on.
	sec, pos int
	// filter is the / query, applied to every table of the screen.
	filter string
	// origin is the row this screen's call was made for, for n and p.
	origin *origin
	// stale is set when a write succeeded after this answer came: it is
	// fetched again when the person returns to it.
	stale bool
	// imageAsked is set once the diff image was requested, so that
	// popping back to the screen does not fetch it again.
	imageAsked bool
	// labels are the next actions' labels, sanitized once, and
	// labelWidth the widest: a frame draws only the few in view.
	labels     []string
	labelWidth int
	// pictures are the decoded screenshots by link, and preview them
	// drawn in half-blocks at the terminal's size.
	pictures map[string]image.Image
	preview  []string
}

// paneView is what a screen's data pane shows.
type paneView int

const (
	viewData paneView = iota
	// viewRaw is the whole response as indented JSON (v).
	viewRaw
	// viewWarnings is every warning, one a line (w), where the head
	// shows only the first few.
	viewWarnings
)

// toggle switches the pane to v, or back to the data when it shows v.
func (s *screen) toggle(v paneView) {
	if s.view == v {
		v = viewData
	}
	s.view = v
	if v == viewRaw && s.raw == nil {
		s.raw = rawLines(s.resp)
	}
	s.offset = 0
}

// origin is the table row a screen was opened for, and the template that
// made its call: n and p run the template on the neighbouring rows.
type origin struct {
	parent   *screen
	sec, row int
	tpl      *rowTemplate
}

func newScreen(call api.Call, crumb string, resp *api.ToolResponse, writes func(string) bool) *screen {
	s := &screen{call: call, crumb: textsafe.SanitizeLine(clip(crumb, maxLineBytes)), resp: resp}
	s.data, s.images = parseData(resp)
	s.labels = make([]string, len(resp.NextActions))
	for i, a := range resp.NextActions {
		s.labels[i] = textsafe.SanitizeLine(clip(a.Label, maxLineBytes))
		s.labelWidth = max(s.labelWidth, textsafe.DisplayWidth(s.labels[i]))
	}
	for _, t := range s.data.tables {
		t.addTemplates(resp.NextActions, -1, writes)
	}
	if len(resp.NextActions) == 0 || s.data.actionable() {
		s.focus = focusData
	}
	s.sec, s.pos = s.firstRows()
	return s
}

// firstRows is the first actionable table's section, at its top.
func (s *screen) firstRows() (sec, pos int) {
	for k, sc := range s.data.sections {
		if sc.t.actionable() {
			return k, 0
		}
	}
	return 0, 0
}

// rowMode reports whether the arrow keys move a row selection: the data
// pane has focus and shows a table whose rows can be acted on.
func (s *screen) rowMode() bool {
	if s.focus != focusData || s.view != viewData || len(s.data.sections) == 0 {
		return false
	}
	return s.selTable().actionable()
}

// selTable is the table of the selection (the first table when there is
// no actionable one); callers check that the data has a table.
func (s *screen) selTable() *table { return s.data.sections[s.sec].t }

// selRow is the selected row's index in its table's rows, -1 when the
// filter left none.
func (s *screen) selRow() int {
	t := s.selTable()
	if s.pos >= t.len() {
		return -1
	}
	return t.row(s.pos)
}

// moveRow moves the selection by delta rows, across tables.
func (s *screen) moveRow(delta int) {
	line := s.data.rowLine(s.sec, min(s.pos, max(s.selTable().len()-1, 0)))
	for step := sign(delta); delta != 0; delta -= step {
		next := line + step
		for next >= 0 && next < s.data.total {
			if sec, _, ok := s.data.rowAt(next); ok && s.data.sections[sec].t.actionable() {
				break
			}
			next += step
		}
		if next < 0 || next >= s.data.total {
			break
		}
		line = next
	}
	if sec, pos, ok := s.data.rowAt(line); ok {
		s.sec, s.pos = sec, pos
	}
}

func sign(n int) int {
	if n < 0 {
		return -1
	}
	return 1
}

// follow scrolls the data pane so the selected row shows in a pane of
// the given content height, with its table's title and header when it is
// the first row.
func (s *screen) follow(content int) {
	sc := s.data.sections[s.sec]
	line := sc.header + 1 + s.pos
	switch {
	case s.pos == 0:
		s.offset = min(s.offset, sc.start)
	case line < s.offset+1:
		s.offset = line - 1 // a line for the sticky header above it
	case line >= s.offset+content:
		s.offset = line - content + 1
	}
	s.offset = max(0, s.offset)
}

// lineCount is the number of lines of the data pane's content.
func (s *screen) lineCount() int {
	switch s.view {
	case viewRaw:
		return len(s.raw)
	case viewWarnings:
		return len(s.resp.Warnings)
	}
	return s.data.total
}

// scrollTo moves the data pane so that it starts at line first, kept within
// the content for a pane of the given height.
func (s *screen) scrollTo(first, height int) {
	s.offset = max(0, min(first, s.lineCount()-height))
}

// setFilter filters the screen's tables and keeps the selection on a row.
func (s *screen) setFilter(q string) {
	s.filter = q
	s.data.setFilter(q)
	if len(s.data.sections) > 0 {
		s.pos = min(s.pos, max(s.selTable().len()-1, 0))
	}
	s.offset = 0
}

// needsConfirm reports a refusal that the confirm dialog can lift.
func (s *screen) needsConfirm() bool {
	return s.resp.ErrorCode() == api.CodeConfirmRequired
}

// actionable reports whether the screen offers the person anything to do
// beyond reading it: otherwise it is printed once and vq exits.
func (s *screen) actionable() bool {
	return len(s.resp.NextActions) > 0 || s.needsConfirm() || s.data.actionable()
}

// writeAction is the screen's first next action that changes the
// project: what a approves from a diff.
func (s *screen) writeAction(writes func(string) bool) (api.NextAction, bool) {
	for _, a := range s.resp.NextActions {
		if writes(a.Tool) {
			return a, true
		}
	}
	return api.NextAction{}, false
}

// inherit carries what the person set up on the screen this one replaces
// (a refresh of the same call): filter, sort, focus, selection, marks and
// the templates learned from answers reached from its rows.
func (s *screen) inherit(old *screen) {
	s.focus, s.cursor = old.focus, min(old.cursor, max(len(s.resp.NextActions)-1, 0))
	if old.view != viewData {
		s.toggle(old.view)
	}
	for _, ot := range old.data.tables {
		for _, t := range s.data.tables {
			if t.name != ot.name || !sameColumns(t, ot) {
				continue
			}
			// Templates derived against the same columns fit as they are;
			// the row one was learned from may be gone (approved).
			for _, tp := range ot.templates {
				if !t.hasTemplate(tp.key()) {
					t.templates = append(t.templates, tp)
				}
			}
			if ot.order.col >= 0 {
				t.order = ot.order
				t.rebuild()
			}
			t.carryMarks(ot)
		}
	}
	s.setFilter(old.filter)
	s.offset = old.offset
	if len(s.data.sections) > 0 && old.sec < len(s.data.sections) {
		s.sec = old.sec
		s.pos = min(old.pos, max(s.selTable().len()-1, 0))
	}
	if !s.data.actionable() && len(s.resp.NextActions) > 0 {
		s.focus = focusActions
	}
}

func sameColumns(a, b *table) bool {
	return strings.Join(a.t.Columns, "\x00") == strings.Join(b.t.Columns, "\x00")
}

func (t *table) hasTemplate(key string) bool {
	for _, tp := range t.templates {
		if tp.key() == key {
			return true
		}
	}
	return false
}

// carryMarks marks the rows of t whose cells are those of a row marked in
// old.
func (t *table) carryMarks(old *table) {
	if len(old.marked) == 0 {
		return
	}
	want := make(map[string]bool, len(old.marked))
	for r := range old.marked {
		want[strings.Join(old.t.Rows[r], "\x00")] = true
	}
	for r, row := range t.t.Rows {
		if want[strings.Join(row, "\x00")] {
			t.marked[r] = true
		}
	}
}
