package ui

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/textsafe"
)

// Consent is how a write gets consent; a server's confirm_required only makes vq ask.
type Consent int

const (
	// ConsentNever: calls go as they are and the server's gate answers.
	ConsentNever Consent = iota
	ConsentAsk           // a person is asked, in the TUI's dialog or at a prompt
	ConsentGiven         // --yes gave it for every call of the command
)

// For is the policy for in: never when its calls carry the consent already.
func (p Consent) For(in WriteIntent) Consent {
	for _, c := range in.Calls {
		if c.Args[api.ArgConfirm] != true {
			return p
		}
	}
	return ConsentNever
}

// WriteIntent is a write asked for, not sent yet, and how to ask for it.
type WriteIntent struct {
	Calls    []api.Call
	Question func(context.Context) string
	names    []string
	// resend: the screen's own refused call, whose answer replaces it.
	resend bool
	table  *table // set for a batch over its marked rows
}

// Confirmed is in's calls with the consent argument.
func (in WriteIntent) Confirmed() []api.Call {
	calls := make([]api.Call, len(in.Calls))
	for i, c := range in.Calls {
		calls[i] = c.WithConfirm()
	}
	return calls
}

func intent(calls []api.Call, names []string, resend bool) WriteIntent {
	in := WriteIntent{Calls: calls, names: names, resend: resend}
	in.Question = func(context.Context) string { return in.question() }
	return in
}

// SendAgain is call, refused by the server's confirm gate, to be sent once
// more with consent; its Question is in words, the wire's call its detail.
func SendAgain(call api.Call) WriteIntent { return intent([]api.Call{call}, nil, true) }

// consent gets consent for in by the session's policy and sends its calls.
func (m *Model) consent(in WriteIntent) tea.Cmd {
	switch m.writePolicy.For(in) {
	case ConsentGiven:
		return m.write(in, in.Confirmed())
	case ConsentAsk:
		return m.push(newConfirmPage(m, in.Question(m.ctx), func(agreed bool) tea.Cmd {
			if agreed {
				return m.write(in, in.Confirmed())
			}
			m.status = "not sent"
			return nil
		}))
	}
	m.status = "not sent"
	return nil
}

func (m *Model) write(in WriteIntent, calls []api.Call) tea.Cmd {
	a := m.top()
	switch {
	case in.resend:
		cmd := m.start(calls[0], a.crumb, replaceAnswer, a.origin)
		m.pending.consented = true
		return cmd
	case in.table != nil:
		return m.startBatch(in, calls)
	}
	m.reviewed[in.Calls[0].Key()] = reviewPending
	cmd := m.start(calls[0], in.names[0], writeAnswer, nil)
	m.pending.consented = true
	return cmd
}

// resendIntent is the screen's own call again, to lift a confirm_required refusal.
func (s *answerPage) resendIntent() WriteIntent {
	return intent([]api.Call{s.call}, nil, true)
}

func rowsIntent(t *table, tp *rowTemplate, rows []int) WriteIntent {
	var calls []api.Call
	var names []string
	for _, r := range rows {
		calls = append(calls, tp.call(t, r))
		names = append(names, rowName(tp, t, r))
	}
	return intent(calls, names, false)
}

func (s *answerPage) writeTarget() (string, bool) {
	if s.rowMode() && s.selRow() >= 0 {
		if tp := s.selTable().writeAction(); tp != nil {
			return tp.action.Tool, true
		}
	}
	a, ok := s.writeAction(s.m.writeTools)
	return a.Tool, ok
}

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
	return s.m.consent(intent([]api.Call{a.Call()}, []string{name}, false))
}

// startBatchFlow is A; a table without a write template learns it from the first marked row's read.
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

// markedRows are t's marked rows as shown, then those the filter hides.
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

// question asks for in in a person's words; the tool is the detail line.
func (in WriteIntent) question() string {
	do := verbOf(in.Calls[0].Tool)
	lines := []string{strings.ToUpper(do[:1]) + do[1:] + " " + in.what() + "?"}
	if in.resend {
		lines = append(lines, "The server asks for your consent before it writes.")
	}
	n := len(in.Calls)
	if n > 1 {
		for i := range min(n, maxDialogRows) {
			lines = append(lines, "  "+in.nameOf(i))
		}
		if n > maxDialogRows {
			lines = append(lines, "  … and "+strconv.Itoa(n-maxDialogRows)+" more")
		}
	}
	tool := textsafe.SanitizeLine(in.Calls[0].Tool)
	if n > 1 {
		return strings.Join(append(lines, tool+" ×"+strconv.Itoa(n)+", each with confirm: true"), "\n")
	}
	args, err := json.Marshal(in.Calls[0].Args)
	if err != nil {
		args = []byte(err.Error())
	}
	return strings.Join(append(lines, tool+" with confirm: true", "  "+textsafe.SanitizeLine(string(args))), "\n")
}

// what names what in writes: "1 check (Homepage, desktop) in run_abc",
// "12 checks", a label, the value of the tool's first argument, or "again"
// (only a call sent once more has no name).
func (in WriteIntent) what() string {
	n, c := len(in.Calls), in.Calls[0]
	noun := "rows"
	if isCheck(c) {
		noun = "checks"
		if n == 1 {
			label, _ := argText(c.Args["scenarioLabel"])
			viewport, _ := argText(c.Args["viewport"])
			what := "1 check (" + label + ", " + viewport + ")"
			if run, ok := argText(c.Args["runId"]); ok {
				what += " in " + run
			}
			return what
		}
	}
	switch {
	case n > 1:
		return strconv.Itoa(n) + " " + noun
	case len(in.names) > 0:
		return strings.TrimSpace(trimVerb(in.names[0], verbOf(c.Tool)))
	}
	if spec, ok := api.LookupTool(c.Tool); ok && len(spec.Args) > 0 {
		if v, ok := argText(c.Args[spec.Args[0].Name]); ok && v != "" {
			return strconv.Quote(v)
		}
	}
	return "again"
}

func (in WriteIntent) nameOf(i int) string {
	c := in.Calls[i]
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

func isCheck(c api.Call) bool {
	_, scenario := c.Args["scenarioLabel"].(string)
	_, viewport := c.Args["viewport"].(string)
	return scenario && viewport
}

// verbOf is what a person does with tool ("approve"), else "send" and its name.
func verbOf(tool string) string {
	if spec, ok := api.LookupTool(tool); ok && spec.Verb != "" {
		return spec.Verb
	}
	return "send " + textsafe.SanitizeLine(tool)
}

func trimVerb(label, verb string) string {
	if len(label) > len(verb) && strings.EqualFold(label[:len(verb)], verb) && label[len(verb)] == ' ' {
		return label[len(verb)+1:]
	}
	return label
}

const maxDialogRows = 3

// confirmPage asks yes or no in the answer's foot; decide takes the answer once.
type confirmPage struct {
	m      *Model
	under  *answerPage
	text   string
	decide func(agreed bool) tea.Cmd
	keymap confirmKeys
}

func newConfirmPage(m *Model, text string, decide func(bool) tea.Cmd) *confirmPage {
	return &confirmPage{m: m, under: m.top(), text: text, decide: decide, keymap: confirmKeys{
		Yes:  key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y", "yes")),
		No:   key.NewBinding(key.WithKeys("n", "N", "esc", "enter"), key.WithHelp("n/esc", "no")),
		Quit: key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}}
}

type confirmKeys struct {
	Yes, No, Quit key.Binding
}

func (p *confirmPage) ShortHelp() []key.Binding {
	return []key.Binding{p.keymap.Yes, p.keymap.No, p.keymap.Quit}
}

func (p *confirmPage) FullHelp() [][]key.Binding { return [][]key.Binding{p.ShortHelp()} }

func (p *confirmPage) Init() tea.Cmd { return nil }

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

func (p *confirmPage) View() []string { return p.under.View() }

func (p *confirmPage) part() (footPart, []string) { return actionsPart, p.lines() }

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
