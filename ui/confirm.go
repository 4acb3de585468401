package ui

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/textsafe"
)

// Every write the TUI sends goes through one door: the consent function
// of the command (Options.Consent). What the person asks for (a, A over
// marked rows, enter on a row that writes, or the resend a
// confirm_required refusal offers) is a writeIntent; consent hands it on
// as a WriteIntent, and the consent function asks for it by the
// command's policy (in the dialog below, a question the Asker brings in,
// or not at all under --yes) and returns its calls with the consent
// argument. write then sends them: one call, or a batch (batchpage.go).
// The TUI adds no consent of its own.

// WriteIntent is a write the person asked for in the TUI, not sent yet:
// the calls, and the question that asks for all of them at once (its
// first line what the person is asked, the lines after it what would be
// sent).
type WriteIntent struct {
	Calls    []api.Call
	Question string
}

// writeIntent is a write the person asked for: the calls, the tool they
// go to, and how a person names each.
type writeIntent struct {
	tool  string
	calls []api.Call
	names []string
	// resend is set for the answer in view's own call, which the server
	// refused for want of consent: its answer replaces the screen.
	resend bool
	// table is set for a batch over its marked rows.
	table *table
}

// consentMsg is what the consent function made of an intent: its calls
// with the consent argument when given is set.
type consentMsg struct {
	in    writeIntent
	calls []api.Call
	given bool
	err   error
}

// consent hands in to the consent function, which asks for it (or not,
// by the command's policy); its answer comes back as a consentMsg. One
// intent is out at a time: the keys wait meanwhile (Model.key).
func (m *Model) consent(in writeIntent) tea.Cmd {
	if m.consenting != nil {
		return nil
	}
	ctx, cancel := context.WithCancel(m.ctx)
	m.consenting = cancel
	give, intent := m.giveConsent, WriteIntent{Calls: in.calls, Question: in.question()}
	return func() tea.Msg {
		calls, given, err := give(ctx, intent)
		return consentMsg{in: in, calls: calls, given: given, err: err}
	}
}

// noConsent is the consent function of a session given none
// (Options.Consent nil): nothing it asks to write is sent.
func noConsent(context.Context, WriteIntent) ([]api.Call, bool, error) { return nil, false, nil }

// consented takes the consent function's answer: the calls go when
// consent was given, else the status line says they did not.
func (m *Model) consented(msg consentMsg) tea.Cmd {
	m.consenting()
	m.consenting = nil
	switch {
	case msg.err != nil:
		m.status = "not sent: " + textsafe.SanitizeLine(msg.err.Error())
	case !msg.given || len(msg.calls) != len(msg.in.calls):
		m.status = "not sent"
	default:
		return m.write(msg.in, msg.calls)
	}
	return nil
}

// write sends in's calls as consent made them: the screen's own call
// again, a batch over marked rows, or one write.
func (m *Model) write(in writeIntent, calls []api.Call) tea.Cmd {
	a := m.top()
	switch {
	case in.resend:
		cmd := m.start(calls[0], a.crumb, replaceAnswer, a.origin)
		m.pending.consented = true
		return cmd
	case in.table != nil:
		return m.startBatch(in, calls)
	}
	m.reviewed[in.calls[0].Key()] = reviewPending
	cmd := m.start(calls[0], in.names[0], writeAnswer, nil)
	m.pending.consented = true
	return cmd
}

// resendIntent is the screen's own call again: what consent lifts a
// confirm_required refusal with.
func (s *answerPage) resendIntent() writeIntent {
	return writeIntent{tool: s.call.Tool, calls: []api.Call{s.call}, resend: true}
}

// rowsIntent is tp's write for rows of t.
func rowsIntent(t *table, tp *rowTemplate, rows []int) writeIntent {
	in := writeIntent{tool: tp.action.Tool}
	for _, r := range rows {
		in.calls = append(in.calls, tp.call(t, r))
		in.names = append(in.names, rowName(tp, t, r))
	}
	return in
}

// writeTarget is the tool a would send: the selected row's write
// template, else the screen's first write action.
func (s *answerPage) writeTarget() (string, bool) {
	if s.rowMode() && s.selRow() >= 0 {
		if tp := s.selTable().writeAction(); tp != nil {
			return tp.action.Tool, true
		}
	}
	a, ok := s.writeAction(s.m.writeTools)
	return a.Tool, ok
}

// askWrite asks consent for what a sends.
func (s *answerPage) askWrite() tea.Cmd {
	if s.rowMode() && s.selRow() >= 0 {
		if tp := s.selTable().writeAction(); tp != nil {
			return s.m.consent(rowsIntent(s.selTable(), tp, []int{s.selRow()}))
		}
	}
	a, _ := s.writeAction(s.m.writeTools)
	name := a.Label
	if name == "" {
		name = a.Tool
	}
	return s.m.consent(writeIntent{tool: a.Tool, calls: []api.Call{a.Call()}, names: []string{name}})
}

// startBatchFlow is A: the write over the marked rows. A table that knows
// no write template yet learns it from the answer of the first marked
// row's action (a read), fetched without opening a screen.
func (s *answerPage) startBatchFlow() tea.Cmd {
	t := s.selTable()
	if t.writeAction() != nil {
		return s.m.askBatch(t)
	}
	tp := t.rowAction()
	r := markedRows(t)[0]
	cmd := s.m.start(tp.call(t, r), tp.label(t, r), probeAnswer, &origin{parent: s, sec: s.sec, row: r, tpl: tp})
	s.m.status = "finding the write action of these rows…"
	return cmd
}

// markedRows are t's marked rows in the order shown, then those the
// filter hides.
func markedRows(t *table) []int {
	rows := make([]int, 0, len(t.Marked))
	for _, r := range t.Shown() {
		if t.Marked[r] {
			rows = append(rows, r)
		}
	}
	var hidden []int
	for r := range t.Marked {
		if t.Position(r) < 0 {
			hidden = append(hidden, r)
		}
	}
	slices.Sort(hidden)
	return append(rows, hidden...)
}

// askBatch asks consent for the table's write template over its marked
// rows, leaving out rows written already.
func (m *Model) askBatch(t *table) tea.Cmd {
	tp := t.writeAction()
	var rows []int
	for _, r := range markedRows(t) {
		if st := m.rowState(t, r); st != reviewDone && st != reviewPending {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		m.status = "every marked row is done already"
		return nil
	}
	in := rowsIntent(t, tp, rows)
	in.table = t
	return m.consent(in)
}

// question is how the dialog asks for in, in a person's words: the
// verb, the count and the checks (or rows) first; the tool and its
// consent argument as the detail line under them.
func (in writeIntent) question() string {
	do := verbOf(in.tool)
	lines := []string{upperFirst(do) + " " + in.what() + "?"}
	if in.resend {
		lines = append(lines, "The server asks for your consent before it writes.")
	}
	if len(in.calls) > 1 {
		for i := range min(len(in.calls), maxDialogRows) {
			lines = append(lines, "  "+in.nameOf(i))
		}
		if len(in.calls) > maxDialogRows {
			lines = append(lines, "  … and "+strconv.Itoa(len(in.calls)-maxDialogRows)+" more")
		}
	}
	tool := textsafe.SanitizeLine(in.tool)
	if len(in.calls) > 1 {
		return strings.Join(append(lines, tool+" ×"+strconv.Itoa(len(in.calls))+", each with confirm: true"), "\n")
	}
	args, err := json.Marshal(in.calls[0].Args)
	if err != nil {
		args = []byte(err.Error())
	}
	return strings.Join(append(lines, tool+" with confirm: true", "  "+textsafe.SanitizeLine(string(args))), "\n")
}

// what names what in writes: "1 check: Homepage desktop", "12 checks",
// the label of the action it runs ("Homepage"), or "it".
func (in writeIntent) what() string {
	n := len(in.calls)
	noun := "rows"
	if isCheck(in.calls[0]) {
		noun = "checks"
		if n == 1 {
			return "1 check: " + in.nameOf(0)
		}
	}
	switch {
	case n > 1:
		return strconv.Itoa(n) + " " + noun
	case len(in.names) == 0:
		return "it"
	}
	return strings.TrimSpace(trimVerb(in.names[0], verbOf(in.tool)))
}

// nameOf names the i-th call of in for a person: its check ("Homepage
// desktop"), else the name the intent gives it.
func (in writeIntent) nameOf(i int) string {
	c := in.calls[i]
	if isCheck(c) {
		label, _ := argText(c.Args["scenarioLabel"])
		viewport, _ := argText(c.Args["viewport"])
		return label + " " + viewport
	}
	if i < len(in.names) {
		return textsafe.SanitizeLine(in.names[i])
	}
	return textsafe.SanitizeLine(c.Tool)
}

// isCheck reports a call that names one check: a scenario and a
// viewport.
func isCheck(c api.Call) bool {
	_, scenario := c.Args["scenarioLabel"].(string)
	_, viewport := c.Args["viewport"].(string)
	return scenario && viewport
}

// verbOf is what a person does with tool: the registry's verb
// ("approve"), else "send" and the tool's name.
func verbOf(tool string) string {
	if spec, ok := api.LookupTool(tool); ok && spec.Verb != "" {
		return spec.Verb
	}
	return "send " + textsafe.SanitizeLine(tool)
}

// trimVerb is a label without the verb it starts with ("Approve
// Homepage" → "Homepage").
func trimVerb(label, verb string) string {
	if len(label) > len(verb) && strings.EqualFold(label[:len(verb)], verb) && label[len(verb)] == ' ' {
		return label[len(verb)+1:]
	}
	return label
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// maxDialogRows is how many rows a batch's dialog names.
const maxDialogRows = 3

// confirmQuestion is a consent asked in the session by an Asker, and
// where its answer goes: reply holds one answer.
type confirmQuestion struct {
	text  string
	reply chan bool
	// answered is set once the reply went.
	answered bool
}

// confirmMsg brings a consent question into the session;
// confirmEndedMsg says that its asker gave up on it.
type (
	confirmMsg      struct{ q *confirmQuestion }
	confirmEndedMsg struct{ q *confirmQuestion }
)

// confirmPage asks the person yes or no, in the foot of the answer in
// view: the consent to a write (a question the consent function asks
// through the Asker, answered through its reply), or the session's own
// questions (dropping marks). decide takes the answer once.
type confirmPage struct {
	m      *Model
	under  *answerPage
	text   string
	q      *confirmQuestion
	decide func(agreed bool) tea.Cmd
	keymap confirmKeys
}

// newConfirmPage asks text (its first line the question) over the answer
// in view; q is the consent question it answers, nil for the session's
// own.
func newConfirmPage(m *Model, text string, q *confirmQuestion, decide func(bool) tea.Cmd) *confirmPage {
	return &confirmPage{m: m, under: m.top(), text: text, q: q, decide: decide, keymap: newConfirmKeys()}
}

// askConfirm opens the dialog on q over the answer in view; before the
// first answer there is none to write from, and q is answered no.
func (m *Model) askConfirm(q *confirmQuestion) tea.Cmd {
	reply := func(agreed bool) tea.Cmd {
		q.answered = true
		q.reply <- agreed
		if !agreed {
			m.status = "not sent"
		}
		return nil
	}
	if m.loading() {
		return reply(false)
	}
	return m.push(newConfirmPage(m, q.text, q, reply))
}

// confirmEnded closes q's dialog when it is still open: its asker gave
// up on it.
func (m *Model) confirmEnded(q *confirmQuestion) {
	for _, p := range m.stack {
		if c, ok := p.(*confirmPage); ok && c.q == q {
			c.answer(false)
			return
		}
	}
}

// confirmKeys are the keys of the dialog.
type confirmKeys struct {
	Yes, No, Quit key.Binding
}

func newConfirmKeys() confirmKeys {
	return confirmKeys{
		Yes:  key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y", "yes")),
		No:   key.NewBinding(key.WithKeys("n", "N", "esc", "enter"), key.WithHelp("n/esc", "no")),
		Quit: key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}

// ShortHelp is the dialog's help line.
func (p *confirmPage) ShortHelp() []key.Binding {
	return []key.Binding{p.keymap.Yes, p.keymap.No, p.keymap.Quit}
}

// FullHelp is the same: the dialog has three keys.
func (p *confirmPage) FullHelp() [][]key.Binding { return [][]key.Binding{p.ShortHelp()} }

// Init does nothing: the dialog waits for a key.
func (p *confirmPage) Init() tea.Cmd { return nil }

// Update takes y, n and q.
func (p *confirmPage) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	switch {
	case !ok:
	case key.Matches(k, p.keymap.Quit):
		return p.m.quit()
	case key.Matches(k, p.keymap.Yes):
		return p.answer(true)
	case key.Matches(k, p.keymap.No):
		return p.answer(false)
	}
	return nil
}

// answer closes the dialog and hands on the answer, once.
func (p *confirmPage) answer(agreed bool) tea.Cmd {
	p.m.close(p)
	decide := p.decide
	p.decide = nil
	if decide == nil {
		return nil
	}
	return decide(agreed)
}

// end answers no: the session ends.
func (p *confirmPage) end() { p.answer(false) }

// View is the answer beneath, the dialog in its foot.
func (p *confirmPage) View() []string { return p.under.View() }

// part is the dialog, where the next actions were.
func (p *confirmPage) part() (footPart, []string) { return actionsPart, p.lines() }

// lines are the question in a box: its first line, with the keys that
// answer it, in bold, the lines after it as they came.
func (p *confirmPage) lines() []string {
	st := &p.m.styles
	body := strings.Split(p.text, "\n")
	inner := max(p.m.width-4, 20)
	for i, l := range body {
		if i == 0 {
			l += " [y/N]"
		}
		l = ansi.Truncate(textsafe.SanitizeLine(textsafe.Clip(l, textsafe.MaxLineBytes)), inner, "…")
		if i == 0 {
			l = st.sectionTitle.Render(l)
		}
		body[i] = l
	}
	return strings.Split(st.dialog.Render(strings.Join(body, "\n")), "\n")
}

// isConfirm reports the consent dialog.
func isConfirm(p page) bool {
	_, ok := p.(*confirmPage)
	return ok
}
