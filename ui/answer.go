package ui

import (
	"cmp"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/layout"
	"github.com/visualq/vq/internal/textsafe"
	"github.com/visualq/vq/ui/components/actions"
	"github.com/visualq/vq/ui/components/image"
)

type focus int

const (
	focusActions focus = iota
	focusData
)

type answerPage struct {
	m          *Model
	keymap     answerKeys
	call       api.Call
	crumb      string // crumb names the screen in the breadcrumb.
	resp       *api.ToolResponse
	listed     []api.NextAction // the next actions no row of a table offers: the list shows these
	headline   string           // the answer in words (layout.Headline), rest the summary it leaves unsaid.
	rest       string
	good       bool
	data       *dataView
	shots      image.Model // the answer's screenshots, as the screen shows them.
	view       paneView    // what the data pane shows; raw the JSON lines, once asked.
	raw        []string
	offset     int
	focus      focus
	sec, pos   int     // the selected row: section, position in its view.
	filter     string  // the / query, applied to every table of the screen.
	hidden     int     // the selected row the filter hides, -1 for none.
	fieldsOpen bool    // set once the person asked to see every field (e).
	full       bool    // the screenshot shown fills the screen (z).
	side       *side   // the selected row's diff beside the list, on a wide screen.
	origin     *origin // the row this screen's call was made for, for n and p.
	stale      bool    // set when a write succeeded since: it is fetched again on return.
	actions    actions.Model
}

type paneView int

const (
	viewData     paneView = iota
	viewRaw               // the whole response as indented JSON (v)
	viewWarnings          // every warning, one a line (w)
)

// toggle switches the pane to v, or back to the data when it shows v.
func (s *answerPage) toggle(v paneView) {
	if s.view == v {
		v = viewData
	}
	s.view = v
	if v == viewRaw && s.raw == nil {
		s.raw = rawLines(s.resp)
	}
	s.offset = 0
}

// origin is the row and template a screen was opened for: n and p run it on neighbours.
type origin struct {
	parent   *answerPage
	sec, row int
	tpl      *rowTemplate
}

func newAnswerPage(m *Model, call api.Call, crumb string, resp *api.ToolResponse) *answerPage {
	s := &answerPage{m: m, keymap: newAnswerKeys(), call: call, crumb: textsafe.SanitizeLine(textsafe.Clip(crumb, textsafe.MaxLineBytes)), resp: resp, hidden: -1}
	var l *layout.Layout
	s.data, s.shots, l = parseData(resp)
	summary := resp.Summary
	if !resp.ShowsSummary() {
		summary = resp.ErrorMessage()
	}
	if s.headline, s.rest, s.good = layout.Headline(resp.OK, summary, resp.Data, resp.Members, l); s.headline == "" {
		s.headline = map[bool]string{true: "✓ ok", false: "✗ error"}[resp.OK]
	}
	for _, t := range s.data.tables {
		t.addTemplates(resp.NextActions, -1, m.writeTools)
	}
	// An action a row offers (Inspect Homepage desktop) is that row's: the table, filtered and sorted, lists it.
	var acts []actions.Action
	for _, a := range resp.NextActions {
		if s.originOf(a) == nil {
			s.listed = append(s.listed, a)
			acts = append(acts, actions.Action{Label: a.Label, Tool: a.Tool, Write: m.writeTools(a.Tool)})
		}
	}
	s.actions = actions.New(acts)
	if len(s.listed) == 0 || s.data.actionable() {
		s.focus = focusData
	}
	s.sec, s.pos = s.firstRows()
	s.settleFields()
	return s
}

// settleFields folds the fields into one line when a table needs the room (80×24 shows ten rows).
func (s *answerPage) settleFields() {
	d := s.data
	before := d.fields.Lines()
	unfolded := d.total - before + d.fields.Len()
	room := s.m.height - 1 - len(s.head()) - minFoot
	if d.fold(!s.fieldsOpen && d.actionable() && s.m.height > 0 && unfolded > room) && s.offset > 0 {
		s.offset = max(0, s.offset+d.fields.Lines()-before)
	}
}

// minFoot is the blank line, the folded next actions and the help line.
const minFoot = 3

func (s *answerPage) Init() tea.Cmd { return tea.Batch(s.askImage(), s.followSide()) }

func (s *answerPage) View() []string {
	if s.full {
		return s.shots.Full(s.m.images, s.m.width, s.m.height, s.m.styles.image)
	}
	return s.lines(s.m.height)
}

// Update handles the keys while the answer is in front and what its commands bring back.
func (s *answerPage) Update(msg tea.Msg) tea.Cmd {
	if cmd, ok := s.sideUpdate(msg); ok {
		return cmd
	}
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return tea.Batch(s.key(msg), s.followSide())
	case tea.WindowSizeMsg:
		s.settleFields()
		s.keepInView()
		s.shots.Draw(s.m.width, s.m.height, s.m.styles.image)
		return s.followSide()
	case image.Msg:
		return s.shots.Update(msg, s.m.images, s.m.width, s.m.height, s.m.styles.image)
	case copiedMsg:
		return s.m.copied(msg)
	case image.OpenedMsg:
		s.m.status = "opened the " + s.shots.Name(msg.URL) + " image in the browser"
		if msg.Err != nil {
			s.m.status = "could not open the browser: " + textsafe.SanitizeLine(msg.Err.Error()) + " (" + textsafe.SanitizeLine(msg.URL) + ")"
		}
	}
	return nil
}

func (s *answerPage) key(msg tea.KeyPressMsg) tea.Cmd {
	s.m.report = nil
	k := s.keys()
	if s.full && (msg.String() == "esc" || key.Matches(msg, k.img.Full)) {
		s.full = false
		return nil
	}
	if cmd, ok := s.chainKey(msg, k); ok {
		return cmd
	}
	if cmd, ok := s.writeKey(msg, k); ok {
		return cmd
	}
	if !s.rowKey(msg, k) {
		s.viewKey(msg, k)
	}
	return nil
}

func (s *answerPage) chainKey(msg tea.KeyPressMsg, k answerKeys) (cmd tea.Cmd, ok bool) {
	switch {
	case key.Matches(msg, k.Quit):
		return s.m.quit(), true
	case key.Matches(msg, k.acts.Run):
		if s.focus == focusData {
			return s.runRow(), true
		}
		return s.runAction(s.actions.Cursor()), true
	case key.Matches(msg, k.acts.Number):
		if i := int(msg.String()[0] - '1'); i < len(s.listed) {
			return s.runAction(i), true
		}
		return nil, true
	case key.Matches(msg, k.Back):
		return s.back(), true
	case key.Matches(msg, k.DropMarks):
		return s.askDropMarks(false), true
	case key.Matches(msg, k.Rerun):
		return s.refresh(), true
	case key.Matches(msg, k.Next):
		return s.step(1), true
	case key.Matches(msg, k.Prev):
		return s.step(-1), true
	}
	return nil, false
}

func (s *answerPage) writeKey(msg tea.KeyPressMsg, k answerKeys) (cmd tea.Cmd, ok bool) {
	switch {
	case key.Matches(msg, k.Confirm):
		return s.m.consent(s.resendIntent()), true
	case key.Matches(msg, k.Write):
		return s.askWrite(), true
	case key.Matches(msg, k.Batch):
		return s.startBatchFlow(), true
	case key.Matches(msg, k.img.Open):
		cur, _ := s.shots.Shown()
		return image.Open(s.m.open, cur.Link), true
	case key.Matches(msg, k.img.Copy):
		return s.copyLink(), true
	case key.Matches(msg, k.img.Image):
		s.shots.Next(s.m.width, s.m.height, s.m.styles.image)
		return s.askImage(), true
	case key.Matches(msg, k.img.Full):
		s.full = true
		return nil, true
	}
	return nil, false
}

func (s *answerPage) rowKey(msg tea.KeyPressMsg, k answerKeys) (ok bool) {
	switch {
	case key.Matches(msg, k.rows.Filter):
		s.m.push(newFilterPage(s))
	case key.Matches(msg, k.rows.ClearFilter):
		s.setFilter("")
		s.keepInView()
	case key.Matches(msg, k.rows.Sort):
		s.selTable().NextSort()
		s.toTop()
	case key.Matches(msg, k.rows.Reverse):
		s.selTable().ReverseSort()
		s.toTop()
	case key.Matches(msg, k.rows.Mark):
		s.mark()
	case key.Matches(msg, k.rows.MarkAll):
		s.selTable().MarkAll()
	default:
		return false
	}
	return true
}

func (s *answerPage) viewKey(msg tea.KeyPressMsg, k answerKeys) {
	page := s.pageSize()
	switch {
	case key.Matches(msg, k.Help):
		s.m.keybar.Toggle()
	case key.Matches(msg, k.Raw):
		s.toggle(viewRaw)
	case key.Matches(msg, k.Warnings):
		s.toggle(viewWarnings)
	case key.Matches(msg, k.fields.Fields):
		s.fieldsOpen = !s.fieldsOpen
		s.settleFields()
		s.keepInView()
	case key.Matches(msg, k.Focus):
		s.focus = 1 - s.focus
	case key.Matches(msg, k.Up):
		s.moveSelection(-1)
	case key.Matches(msg, k.Down):
		s.moveSelection(1)
	case key.Matches(msg, k.PageUp):
		s.moveSelection(-page)
	case key.Matches(msg, k.PageDown):
		s.moveSelection(page)
	case key.Matches(msg, k.Top):
		s.moveSelection(-s.lineCount())
	case key.Matches(msg, k.Bottom):
		s.moveSelection(s.lineCount())
	}
}

// back closes the screen (esc), after asking when rows are marked.
func (s *answerPage) back() tea.Cmd {
	if marked, _ := s.marks(); marked > 0 {
		return s.askDropMarks(true)
	}
	return s.leave()
}

// leave closes the screen; the one beneath is fetched again when stale.
func (s *answerPage) leave() tea.Cmd {
	s.m.close(s)
	s.m.status = ""
	if prev := s.m.top(); prev.stale {
		return prev.refresh()
	}
	return s.m.top().askImage()
}

func (s *answerPage) copyLink() tea.Cmd {
	cur, _ := s.shots.Shown()
	return copyText(s.m.ctx, s.m.getenv, cur.Link, cur.Name+" image link")
}

func (s *answerPage) askImage() tea.Cmd { return s.shots.Ask(s.m.ctx, s.m.fetch, s.m.images) }

func (s *answerPage) moveSelection(delta int) {
	s.hidden = -1 // the person moved on from the row the filter hid
	switch {
	case s.focus == focusActions && (delta == 1 || delta == -1):
		s.actions.SetCursor(s.actions.Cursor() + delta)
	case s.rowMode():
		s.moveRow(delta)
		s.keepInView()
	default:
		s.scrollTo(s.offset+delta, s.pageSize())
	}
}

// toTop puts the cursor and the view on the first row (after a sort: its top is what the person asked for).
func (s *answerPage) toTop() {
	s.pos, s.hidden = 0, -1
	s.keepInView()
}

func (s *answerPage) keepInView() {
	if s.rowMode() && s.selTable().Len() > 0 {
		// A sticky header changes the page size: settle in two rounds.
		for range 2 {
			s.follow(s.pageSize())
		}
	}
	s.scrollTo(s.offset, s.pageSize())
}

// runAction sends the i-th next action listed without the server's confirm: only the person consents.
func (s *answerPage) runAction(i int) tea.Cmd {
	a := s.listed[i]
	crumb := a.Label
	if crumb == "" {
		crumb = a.Tool
	}
	return s.m.start(a.Call(), crumb, pushAnswer, s.originOf(a))
}

// originOf is the row a next action names, so n and p work on its screen.
func (s *answerPage) originOf(a api.NextAction) *origin {
	for k, sc := range s.data.sections {
		t := sc.t
		for _, tp := range t.templates {
			if tp.action.Tool != a.Tool {
				continue
			}
			if r := tp.rowOf(t, a); r >= 0 {
				return &origin{parent: s, sec: k, row: r, tpl: tp}
			}
		}
	}
	return nil
}

// runRow runs the selected row's action; a write asks first.
func (s *answerPage) runRow() tea.Cmd {
	t, r := s.selTable(), s.selRow()
	tp := t.rowAction()
	if tp.write {
		return s.m.consent(rowsIntent(t, tp, []int{r}))
	}
	return s.m.start(tp.call(t, r), tp.label(t, r), pushAnswer, &origin{parent: s, sec: s.sec, row: r, tpl: tp})
}

// step runs this screen's template on the next or previous unwritten row, replacing the screen.
func (s *answerPage) step(delta int) tea.Cmd {
	o := s.origin
	t := o.parent.data.sections[o.sec].t
	pos := t.Position(o.row)
	if pos < 0 {
		pos = o.parent.pos
	}
	for pos += delta; pos >= 0 && pos < t.Len(); pos += delta {
		r := t.Row(pos)
		if s.m.rowState(t, r) != reviewDone {
			o.parent.sec, o.parent.pos, o.parent.hidden = o.sec, pos, -1
			next := &origin{parent: o.parent, sec: o.sec, row: r, tpl: o.tpl}
			return s.m.start(o.tpl.call(t, r), o.tpl.label(t, r), replaceAnswer, next)
		}
	}
	if delta > 0 {
		s.m.status = "no next row"
	} else {
		s.m.status = "no previous row"
	}
	return nil
}

// refresh sends the screen's call again (see inherit).
func (s *answerPage) refresh() tea.Cmd {
	return s.m.start(s.call, s.crumb, refreshAnswer, s.origin)
}

func (s *answerPage) firstRows() (sec, pos int) {
	for k, sc := range s.data.sections {
		if sc.t.actionable() {
			return k, 0
		}
	}
	return 0, 0
}

func (s *answerPage) rowMode() bool {
	if s.focus != focusData || s.view != viewData || len(s.data.sections) == 0 {
		return false
	}
	return s.selTable().actionable()
}

// selTable is the table of the selection; callers check there is one.
func (s *answerPage) selTable() *table { return s.data.sections[s.sec].t }

// selRow is the selected row, -1 when the filter left none.
func (s *answerPage) selRow() int {
	t := s.selTable()
	if s.pos >= t.Len() {
		return -1
	}
	return t.Row(s.pos)
}

func (s *answerPage) moveRow(delta int) {
	line := s.data.rowLine(s.sec, min(s.pos, max(s.selTable().Len()-1, 0)))
	for step := cmp.Compare(delta, 0); delta != 0; delta -= step {
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

// follow scrolls the pane so the selected row shows (with its table's head on the first row).
func (s *answerPage) follow(content int) {
	sc := s.data.sections[s.sec]
	line := sc.header + 1 + s.pos
	switch {
	case s.pos == 0 && s.sec == 0:
		s.offset = 0
	case s.pos == 0:
		s.offset = min(s.offset, sc.start)
	case line < s.offset+1:
		s.offset = line - 1 // a line for the sticky header above it
	case line >= s.offset+content:
		s.offset = line - content + 1
	}
	s.offset = max(0, s.offset)
}

func (s *answerPage) lineCount() int {
	switch s.view {
	case viewRaw:
		return len(s.raw)
	case viewWarnings:
		return len(s.resp.Warnings)
	}
	return s.data.total
}

func (s *answerPage) scrollTo(first, height int) {
	s.offset = max(0, min(first, s.lineCount()-height))
}

// setFilter filters the screen's tables, the selection kept on its row.
func (s *answerPage) setFilter(q string) {
	base := s.selectedBase()
	s.filter = q
	s.data.setFilter(q)
	s.settleFields()
	s.reselect(base)
	s.offset = 0
}

// needsConfirm reports a refusal that the confirm dialog can lift.
func (s *answerPage) needsConfirm() bool {
	return s.resp.ErrorCode() == api.CodeConfirmRequired
}

func (s *answerPage) actionable() bool {
	return len(s.listed) > 0 || s.needsConfirm() || s.data.actionable()
}

func (s *answerPage) writeAction(writes func(string) bool) (api.NextAction, bool) {
	for _, a := range s.resp.NextActions {
		if writes(a.Tool) {
			return a, true
		}
	}
	return api.NextAction{}, false
}

// inherit carries what the person set up on the screen this one refreshes.
func (s *answerPage) inherit(old *answerPage) {
	s.focus = old.focus
	s.actions.SetCursor(old.actions.Cursor())
	if old.view != viewData {
		s.toggle(old.view)
	}
	for _, ot := range old.data.tables {
		for _, t := range s.data.tables {
			if t.Name != ot.Name || !t.SameColumns(ot.Table) {
				continue
			}
			// Templates of the same columns fit though their row may be gone.
			for _, tp := range ot.templates {
				if !t.hasTemplate(tp.key()) {
					t.templates = append(t.templates, tp)
				}
			}
			t.Carry(ot.Table)
		}
	}
	s.filter, s.fieldsOpen = old.filter, old.fieldsOpen
	s.data.setFilter(old.filter)
	s.settleFields()
	s.offset = old.offset
	if len(s.data.sections) > 0 && old.sec < len(s.data.sections) {
		s.sec = old.sec
		s.pos = min(old.pos, max(s.selTable().Len()-1, 0))
		s.reselectFrom(old)
	}
	if !s.data.actionable() && len(s.listed) > 0 {
		s.focus = focusActions
	}
}

func (t *table) hasTemplate(key string) bool {
	for _, tp := range t.templates {
		if tp.key() == key {
			return true
		}
	}
	return false
}
