package ui

import (
	"context"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/textsafe"
)

// Model is the root of the TUI: a stack of answer screens, the call in
// flight, the consent dialog and a batch being sent. All I/O happens in
// commands that come back as typed messages; Update only changes state.
type Model struct {
	ctx        context.Context
	invoke     func(context.Context, api.Call) (*api.ToolResponse, error)
	writeTools func(string) bool
	fetch      func(ctx context.Context, link string, max int64) ([]byte, error)
	open       func(string) error
	images     imageProtocol

	styles      styles
	keys        screenKeys
	confirmKeys confirmKeys
	filterKeys  filterKeys
	loadingKeys loadingKeys
	help        help.Model
	spinner     spinner.Model
	input       textinput.Model

	stack         []*screen
	width, height int
	pending       *pending
	seq           int
	dialog        *dialog
	batch         *batchRun
	filtering     bool
	// questions are the server's questions (MCP elicitation) waiting for
	// the person, in the order they came: the first is on screen.
	questions []*question
	// reviewed is what each write call sent from this session did, by
	// callKey: rows show it, whatever screen or refresh they are on.
	reviewed map[string]reviewState
	// status is a one-line note on what just happened (a cancelled call,
	// a browser that would not start); report is a batch's summary.
	status string
	report []string
	// ignored is the last key pressed while a call was out, which does
	// nothing then: the spinner line names it, so that it is not lost
	// without a word.
	ignored string
	// first is the first call, sent from Init when the session opened
	// before its answer (the stack is empty until it comes); firstErr is
	// why it ended without one, and printAfter is set when the answer
	// offers nothing to act on, to be printed once after the program.
	first      tea.Cmd
	firstErr   error
	printAfter bool
	// done is set when the session ends: the frame drawn then stays in the
	// scrollback, without key help or selection.
	done bool
}

// reviewState is what a write call did to the row it was made for.
type reviewState int

const (
	reviewNone reviewState = iota
	reviewPending
	reviewDone
	reviewRefused
)

// answerKind is what an answer does to the stack.
type answerKind int

const (
	// pushAnswer opens a new screen.
	pushAnswer answerKind = iota
	// refreshAnswer replaces the top screen with a fresh answer to its
	// call, keeping what the person set up on it.
	refreshAnswer
	// replaceAnswer replaces the top screen: a confirmed resend, or n/p
	// stepping to the neighbouring row.
	replaceAnswer
	// writeAnswer is a write sent from a for the current screen: its
	// answer is a status line, then the screen is refreshed.
	writeAnswer
	// probeAnswer is a row's answer fetched only to learn its templates,
	// before a batch over marked rows.
	probeAnswer
)

// pending is the call in flight.
type pending struct {
	seq    int
	call   api.Call
	crumb  string
	kind   answerKind
	origin *origin
	cancel context.CancelFunc
	// note is what vq tells the person of the call meanwhile (a sign-in
	// again), shown under it; server text in it is sanitized when drawn.
	note []string
}

// answerMsg is the answer to the call with that sequence number; answers to
// calls the person cancelled are dropped.
type answerMsg struct {
	seq  int
	resp *api.ToolResponse
	err  error
}

// defaultWidth and defaultHeight are the frame's size until the terminal
// tells its own.
const defaultWidth, defaultHeight = 80, 24

// newModel builds the model on the first answer, or, with first nil, on
// the first call, which Init sends.
func newModel(ctx context.Context, opts Options, call api.Call, first *api.ToolResponse) *Model {
	m := &Model{
		ctx:         ctx,
		invoke:      opts.Invoke,
		writeTools:  opts.WriteTools,
		fetch:       opts.Fetch,
		open:        opts.opener(),
		images:      detectImageProtocol(opts.getenv()),
		styles:      newStyles(true),
		keys:        newScreenKeys(),
		confirmKeys: newConfirmKeys(),
		filterKeys:  newFilterKeys(),
		loadingKeys: newLoadingKeys(),
		help:        help.New(),
		spinner:     spinner.New(spinner.WithSpinner(spinner.Dot)),
		input:       textinput.New(),
		reviewed:    map[string]reviewState{},
		width:       defaultWidth,
		height:      defaultHeight,
	}
	if m.writeTools == nil {
		m.writeTools = api.KnownWriteTool
	}
	m.input.Prompt = "/"
	m.input.Placeholder = "filter rows"
	m.applyStyles()
	m.help.SetWidth(m.width)
	if first == nil {
		m.first = m.start(call, call.Tool, pushAnswer, nil)
		return m
	}
	m.stack = []*screen{newScreen(call, call.Tool, first, m.writeTools)}
	if m.top().needsConfirm() {
		m.dialog = &dialog{resend: true}
	}
	return m
}

func (m *Model) applyStyles() {
	m.help.Styles = m.styles.help
	m.spinner.Style = m.styles.spinner
	m.input.SetStyles(m.styles.input)
	if len(m.questions) > 0 {
		m.questions[0].form.restyle(&m.styles)
	}
}

func (m *Model) top() *screen { return m.stack[len(m.stack)-1] }

// idle reports that nothing is being sent.
func (m *Model) idle() bool { return m.pending == nil && m.batch == nil }

// Init asks the terminal for its background, to pick light or dark colours,
// and sends the first call or fetches the first screen's diff image.
func (m *Model) Init() tea.Cmd {
	if m.loading() {
		return tea.Batch(tea.RequestBackgroundColor, m.first)
	}
	return tea.Batch(tea.RequestBackgroundColor, m.askImage())
}

// loading reports that the first answer has not come yet: there is no
// screen.
func (m *Model) loading() bool { return len(m.stack) == 0 }

// Update implements tea.Model: the server's questions first, then the
// screens.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if msg, ok := msg.(noticeMsg); ok {
		if m.pending != nil {
			m.pending.note = strings.Split(string(msg), "\n")
		} else {
			m.status = textsafe.SanitizeLine(string(msg))
		}
		return m, nil
	}
	asked, taken := m.updateQuestion(msg)
	if taken {
		return m, asked
	}
	return m, tea.Batch(asked, m.update(msg))
}

// update is Update for the screens, or for the spinner before the first.
func (m *Model) update(msg tea.Msg) tea.Cmd {
	if m.loading() {
		return m.updateLoading(msg)
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.help.SetWidth(msg.Width)
		m.keepInView()
		m.drawPreview(m.top())
	case tea.BackgroundColorMsg:
		m.styles = newStyles(msg.IsDark())
		m.applyStyles()
	case spinner.TickMsg:
		if !m.idle() {
			var cmd tea.Cmd
			m.spinner, cmd = m.spinner.Update(msg)
			return cmd
		}
	case answerMsg:
		return m.answer(msg)
	case imageMsg:
		return m.showImage(msg)
	case batchEventMsg:
		return m.batchEvent(msg)
	case batchDoneMsg:
		return m.batchDone(msg)
	case openedMsg:
		m.status = "opened the diff image in the browser"
		if msg.err != nil {
			m.status = "could not open the browser: " + textsafe.SanitizeLine(msg.err.Error()) + " (" + textsafe.SanitizeLine(msg.url) + ")"
		}
	case tea.KeyPressMsg:
		switch {
		case m.dialog != nil:
			return m.dialogKey(msg)
		case m.filtering:
			return m.filterKey(msg)
		}
		m.report = nil
		return m.screenKey(msg)
	}
	return nil
}

// updateLoading is update before the first answer: the spinner turns, q
// and esc give up the call, and the answer opens the first screen, or
// ends the session when it offers nothing to act on (it is printed then).
func (m *Model) updateLoading(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.help.SetWidth(msg.Width)
	case tea.BackgroundColorMsg:
		m.styles = newStyles(msg.IsDark())
		m.applyStyles()
	case spinner.TickMsg:
		var cmd tea.Cmd
		m.spinner, cmd = m.spinner.Update(msg)
		return cmd
	case answerMsg:
		if m.pending == nil || msg.seq != m.pending.seq {
			return nil
		}
		if msg.err != nil {
			m.pending.cancel()
			m.pending, m.firstErr = nil, msg.err
			return m.quit()
		}
		cmd := m.answer(msg)
		if !m.top().actionable() {
			m.printAfter = true
			return m.quit()
		}
		return cmd
	case tea.KeyPressMsg:
		if key.Matches(msg, m.loadingKeys.Cancel, m.loadingKeys.Quit) {
			m.firstErr = context.Canceled
			return m.quit()
		}
		m.ignored = msg.String()
	}
	return nil
}

// activeKeys is the keymap of the current screen, with what does not apply
// there disabled.
func (m *Model) activeKeys() screenKeys {
	k := m.keys
	s := m.top()
	idle := m.idle()
	rows := s.rowMode()
	hasActions := len(s.resp.NextActions) > 0
	k.Run.SetEnabled(idle && (hasActions && s.focus == focusActions || rows && s.selRow() >= 0 && s.selTable().rowAction() != nil))
	if rows && s.focus == focusData {
		k.Run.SetHelp("enter", "inspect")
	}
	k.RunNumber.SetEnabled(idle && hasActions)
	k.Focus.SetEnabled(idle && hasActions && s.lineCount() > 0)
	k.Back.SetEnabled(idle && len(m.stack) > 1 && s.filter == "")
	k.Rerun.SetEnabled(idle)
	k.Confirm.SetEnabled(idle && s.needsConfirm())
	k.Open.SetEnabled(idle && s.images.diff != "")
	k.Copy.SetEnabled(s.images.diff != "")
	tables := s.view == viewData && s.data.rows() > 1
	k.Filter.SetEnabled(idle && tables)
	k.ClearFilter.SetEnabled(idle && s.filter != "")
	k.Sort.SetEnabled(idle && tables)
	k.Reverse.SetEnabled(idle && tables && s.selTable().order.col >= 0)
	k.Mark.SetEnabled(idle && rows)
	k.MarkAll.SetEnabled(idle && rows)
	k.Batch.SetEnabled(idle && rows && len(s.selTable().marked) > 0)
	if tool, ok := m.writeTarget(); ok && idle {
		k.Write.SetHelp("a", textsafe.SanitizeLine(tool))
	} else {
		k.Write.SetEnabled(false)
	}
	k.Next.SetEnabled(idle && s.origin != nil)
	k.Prev.SetEnabled(idle && s.origin != nil)
	k.Raw.SetEnabled(idle)
	k.Warnings.SetEnabled(idle && len(s.resp.Warnings) > maxWarnings)
	k.CancelCall.SetEnabled(m.pending != nil)
	k.StopBatch.SetEnabled(m.batch != nil)
	for _, b := range []*key.Binding{&k.Up, &k.Down, &k.PageUp, &k.PageDown, &k.Top, &k.Bottom} {
		b.SetEnabled(idle)
	}
	return k
}

func (m *Model) screenKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.activeKeys()
	s := m.top()
	page := m.pageSize()
	switch {
	case key.Matches(msg, k.StopBatch):
		m.batch.stop()
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.CancelCall):
		m.pending.cancel()
		m.pending = nil
		m.status = "call cancelled"
	case key.Matches(msg, k.Help):
		m.help.ShowAll = !m.help.ShowAll
	case key.Matches(msg, k.Run):
		if s.focus == focusData {
			return m.runRow(s)
		}
		return m.runAction(s.cursor)
	case key.Matches(msg, k.RunNumber):
		if i := int(msg.String()[0] - '1'); i < len(s.resp.NextActions) {
			return m.runAction(i)
		}
	case key.Matches(msg, k.ClearFilter):
		s.setFilter("")
		m.keepInView()
	case key.Matches(msg, k.Back):
		m.stack = m.stack[:len(m.stack)-1]
		m.status = ""
		if m.top().stale {
			return m.refresh()
		}
		return m.askImage()
	case key.Matches(msg, k.Rerun):
		return m.refresh()
	case key.Matches(msg, k.Confirm):
		m.dialog = &dialog{resend: true}
	case key.Matches(msg, k.Open):
		return openInBrowser(m.open, s.images.diff)
	case key.Matches(msg, k.Copy):
		m.status = "copied the diff image link (OSC 52)"
		return tea.SetClipboard(s.images.diff)
	case key.Matches(msg, k.Filter):
		m.filtering = true
		m.input.SetValue(s.filter)
		m.input.CursorEnd()
		m.input.Focus()
		s.focus = focusData
	case key.Matches(msg, k.Sort):
		m.sortTable().nextSort()
		m.keepInView()
	case key.Matches(msg, k.Reverse):
		m.sortTable().reverseSort()
	case key.Matches(msg, k.Raw):
		s.toggle(viewRaw)
	case key.Matches(msg, k.Warnings):
		s.toggle(viewWarnings)
	case key.Matches(msg, k.Focus):
		s.focus = 1 - s.focus
	case key.Matches(msg, k.Mark):
		t := s.selTable()
		if r := s.selRow(); r >= 0 {
			if t.marked[r] {
				delete(t.marked, r)
			} else {
				t.marked[r] = true
			}
			m.moveSelection(1)
		}
	case key.Matches(msg, k.MarkAll):
		markAll(s.selTable())
	case key.Matches(msg, k.Batch):
		return m.startBatchFlow(s)
	case key.Matches(msg, k.Write):
		return m.askWrite()
	case key.Matches(msg, k.Next):
		return m.step(1)
	case key.Matches(msg, k.Prev):
		return m.step(-1)
	case key.Matches(msg, k.Up):
		m.moveSelection(-1)
	case key.Matches(msg, k.Down):
		m.moveSelection(1)
	case key.Matches(msg, k.PageUp):
		m.moveSelection(-page)
	case key.Matches(msg, k.PageDown):
		m.moveSelection(page)
	case key.Matches(msg, k.Top):
		m.moveSelection(-s.lineCount())
	case key.Matches(msg, k.Bottom):
		m.moveSelection(s.lineCount())
	case !m.idle():
		m.ignored = msg.String()
	}
	return nil
}

// markAll marks every row the filter shows, or unmarks them when all
// are marked already.
func markAll(t *table) {
	all := true
	for _, r := range t.view {
		if !t.marked[r] {
			all = false
			break
		}
	}
	for _, r := range t.view {
		if all {
			delete(t.marked, r)
		} else {
			t.marked[r] = true
		}
	}
}

// moveSelection moves by delta: the action cursor, the selected row, or
// the scroll position of a pane without rows to select.
func (m *Model) moveSelection(delta int) {
	s := m.top()
	switch {
	case s.focus == focusActions && (delta == 1 || delta == -1):
		s.cursor = max(0, min(s.cursor+delta, len(s.resp.NextActions)-1))
	case s.rowMode():
		s.moveRow(delta)
		m.keepInView()
	default:
		s.scrollTo(s.offset+delta, m.pageSize())
	}
}

// keepInView scrolls the current screen so that its selected row shows.
func (m *Model) keepInView() {
	s := m.top()
	if s.rowMode() && s.selTable().len() > 0 {
		// The page size depends on the offset (a sticky header takes a
		// line): settle it in two rounds.
		for range 2 {
			s.follow(m.pageSize())
		}
	}
	s.scrollTo(s.offset, m.pageSize())
}

// sortTable is the table s and S sort: the selected row's.
func (m *Model) sortTable() *table { return m.top().selTable() }

func (m *Model) filterKey(msg tea.KeyPressMsg) tea.Cmd {
	s := m.top()
	switch {
	case key.Matches(msg, m.filterKeys.Clear):
		m.filtering = false
		m.input.Blur()
		s.setFilter("")
	case key.Matches(msg, m.filterKeys.Apply):
		m.filtering = false
		m.input.Blur()
	default:
		// The input's own commands only blink its cursor.
		m.input, _ = m.input.Update(msg)
		s.setFilter(m.input.Value())
	}
	m.keepInView()
	return nil
}

// runAction sends the i-th next action. A confirm the server put in it is
// dropped: the server cannot consent for the person, whose dialog opens
// on the refusal.
func (m *Model) runAction(i int) tea.Cmd {
	s := m.top()
	a := s.resp.NextActions[i]
	crumb := a.Label
	if crumb == "" {
		crumb = a.Tool
	}
	call := a.Call()
	return m.start(call, crumb, pushAnswer, s.originOf(a))
}

// originOf is the row a next action names in the screen's first
// actionable table, so that n and p work on a screen it opened too.
func (s *screen) originOf(a api.NextAction) *origin {
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

// runRow runs the selected row's action.
func (m *Model) runRow(s *screen) tea.Cmd {
	t, r := s.selTable(), s.selRow()
	tp := t.rowAction()
	if tp.write {
		return m.askWriteRows(t, tp, []int{r})
	}
	return m.start(tp.call(t, r), tp.label(t, r), pushAnswer, &origin{parent: s, sec: s.sec, row: r, tpl: tp})
}

// step runs the template that opened this screen on the next (delta 1)
// or previous row of the table it came from, in that table's order and
// filter, skipping rows already written; the screen is replaced, so Esc
// still goes back to the table.
func (m *Model) step(delta int) tea.Cmd {
	o := m.top().origin
	t := o.parent.data.sections[o.sec].t
	pos := t.position(o.row)
	if pos < 0 {
		pos = o.parent.pos
	}
	for pos += delta; pos >= 0 && pos < t.len(); pos += delta {
		r := t.row(pos)
		if m.rowState(t, r) != reviewDone {
			o.parent.sec, o.parent.pos = o.sec, pos
			next := &origin{parent: o.parent, sec: o.sec, row: r, tpl: o.tpl}
			return m.start(o.tpl.call(t, r), o.tpl.label(t, r), replaceAnswer, next)
		}
	}
	if delta > 0 {
		m.status = "no next row"
	} else {
		m.status = "no previous row"
	}
	return nil
}

// refresh sends the current screen's call again; its answer replaces the
// screen and keeps its filter, sort and selection.
func (m *Model) refresh() tea.Cmd {
	s := m.top()
	return m.start(s.call, s.crumb, refreshAnswer, s.origin)
}

// start sends a call.
func (m *Model) start(call api.Call, crumb string, kind answerKind, from *origin) tea.Cmd {
	if m.pending != nil {
		m.pending.cancel()
	}
	ctx, cancel := context.WithCancel(m.ctx)
	m.seq++
	m.pending = &pending{seq: m.seq, call: call, crumb: crumb, kind: kind, origin: from, cancel: cancel}
	m.status, m.ignored = "", ""
	invoke, seq := m.invoke, m.seq
	return tea.Batch(m.spinner.Tick, func() tea.Msg {
		resp, err := invoke(ctx, call)
		return answerMsg{seq: seq, resp: resp, err: err}
	})
}

func (m *Model) answer(msg answerMsg) tea.Cmd {
	p := m.pending
	if p == nil || msg.seq != p.seq {
		return nil
	}
	m.pending, m.ignored = nil, ""
	p.cancel()
	if msg.err != nil {
		m.status = "call stopped: " + textsafe.SanitizeLine(msg.err.Error())
		if p.kind == writeAnswer {
			m.reviewed[callKey(p.call)] = reviewNone
		}
		return nil
	}
	resp := msg.resp
	if p.origin != nil {
		// The answer to a row's call names that row the same way in its
		// own next actions: they are templates for the whole table.
		t := p.origin.parent.data.sections[p.origin.sec].t
		t.addTemplates(resp.NextActions, p.origin.row, m.writeTools)
	}
	if m.writeTools(p.call.Tool) {
		m.wrote(p.call, resp)
	}
	switch p.kind {
	case probeAnswer:
		t := p.origin.parent.data.sections[p.origin.sec].t
		if t.writeAction() == nil {
			m.status = "the rows' answers offer no action that writes"
			return nil
		}
		return m.askBatch(t)
	case writeAnswer:
		if !resp.OK {
			m.status = "✗ " + textsafe.SanitizeLine(resp.ErrorCode()+": "+resp.ErrorMessage())
			return nil
		}
		cmd := m.refresh()
		m.status = "✓ " + textsafe.SanitizeLine(resp.Summary)
		return cmd
	}
	s := newScreen(p.call, p.crumb, resp, m.writeTools)
	s.origin = p.origin
	switch p.kind {
	case refreshAnswer:
		s.inherit(m.top())
		m.stack[len(m.stack)-1] = s
		m.keepInView()
	case replaceAnswer:
		m.stack[len(m.stack)-1] = s
	default:
		m.stack = append(m.stack, s)
	}
	if s.needsConfirm() {
		m.dialog = &dialog{resend: true}
	}
	return m.askImage()
}

// wrote records a write's answer: the row state it names, and, when it
// succeeded, every screen beneath is stale, fetched again on return.
func (m *Model) wrote(call api.Call, resp *api.ToolResponse) {
	k := callKey(call)
	switch {
	case resp.OK:
		m.reviewed[k] = reviewDone
		for _, s := range m.stack {
			s.stale = true
		}
	case resp.ErrorCode() == api.CodeConfirmRequired:
		// Not sent for real: the dialog asks next.
	default:
		m.reviewed[k] = reviewRefused
	}
}

// rowState is what this session's writes did to row r of t.
func (m *Model) rowState(t *table, r int) reviewState {
	tp := t.writeAction()
	if tp == nil || len(m.reviewed) == 0 {
		return reviewNone
	}
	return m.reviewed[callKey(tp.call(t, r))]
}

func (m *Model) quit() tea.Cmd {
	if m.pending != nil {
		m.pending.cancel()
		m.pending = nil
	}
	m.batch.stop()
	for _, q := range m.questions {
		q.reply <- api.ElicitAnswer{Action: api.ElicitCancel}
	}
	m.questions = nil
	m.dialog = nil
	m.filtering = false
	m.done = true
	return tea.Quit
}

// View implements tea.Model. It is inline, not the alternate screen, so the
// last frame stays in the scrollback after q.
func (m *Model) View() tea.View {
	if m.done && (m.loading() || m.printAfter) {
		// Nothing stays of the spinner: an answer to print is printed
		// after the program, whole.
		return tea.NewView("")
	}
	return tea.NewView(m.frame(m.height))
}

// rowName names a row for dialogs and summaries by the values their
// template takes from them ("Cart 3 tablet").
func rowName(tp *rowTemplate, t *table, r int) string {
	parts := make([]string, 0, len(tp.fromRow))
	for _, a := range tp.fromRow {
		parts = append(parts, t.t.Rows[r][a.col])
	}
	return strings.Join(parts, " ")
}
