package ui

import (
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

// Every write the TUI sends goes through one door. What the person asks
// for (a, A over marked rows, enter on a row that writes, or the resend a
// confirm_required refusal offers) is a writeIntent; consent asks for it
// (the confirm page), and write, on the person's yes, adds confirm: true
// to its calls and sends them: one call, or a batch (batchpage.go).

// writeIntent is a write the person asked for, not sent yet: the calls,
// the tool they go to, and how a person names each.
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

// consent asks the person for consent to in, over the answer in view.
func (m *Model) consent(in writeIntent) tea.Cmd {
	return m.push(&confirmPage{m: m, under: m.top(), intent: in, keymap: newConfirmKeys()})
}

// write sends in with consent given: confirm: true is added here, and
// nowhere else.
func (m *Model) write(in writeIntent) tea.Cmd {
	calls := make([]api.Call, len(in.calls))
	for i, c := range in.calls {
		calls[i] = c.WithConfirm()
	}
	a := m.top()
	switch {
	case in.resend:
		return m.start(calls[0], a.crumb, replaceAnswer, a.origin)
	case in.table != nil:
		return m.startBatch(in, calls)
	}
	m.reviewed[callKey(in.calls[0])] = reviewPending
	return m.start(calls[0], in.names[0], writeAnswer, nil)
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
	rows := make([]int, 0, len(t.marked))
	for _, r := range t.view {
		if t.marked[r] {
			rows = append(rows, r)
		}
	}
	var hidden []int
	for r := range t.marked {
		if t.position(r) < 0 {
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

// confirmPage asks for consent to a write, in the foot of the answer it
// writes from: what would be sent, and y or n.
type confirmPage struct {
	m      *Model
	under  *answerPage
	intent writeIntent
	keymap confirmKeys
}

// confirmKeys are the keys of the consent dialog.
type confirmKeys struct {
	Yes, No, Quit key.Binding
}

func newConfirmKeys() confirmKeys {
	return confirmKeys{
		Yes:  key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y", "send with confirm: true")),
		No:   key.NewBinding(key.WithKeys("n", "N", "esc", "enter"), key.WithHelp("n/esc", "don't send")),
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

// Update takes y (send), n (not sent) and q.
func (p *confirmPage) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	switch {
	case !ok:
	case key.Matches(k, p.keymap.Quit):
		return p.m.quit()
	case key.Matches(k, p.keymap.Yes):
		p.m.close(p)
		return p.m.write(p.intent)
	case key.Matches(k, p.keymap.No):
		p.m.close(p)
		p.m.status = "not sent"
	}
	return nil
}

// View is the answer beneath, the dialog in its foot.
func (p *confirmPage) View() []string { return p.under.View() }

// part is the dialog, where the next actions were.
func (p *confirmPage) part() (footPart, []string) { return actionsPart, p.lines() }

// lines ask for consent, naming the tool and what would be sent: the
// arguments of one call, or the count and the first rows of a batch.
func (p *confirmPage) lines() []string {
	st := &p.m.styles
	in := p.intent
	question := "Send it with confirm: true? [y/N]"
	if in.resend {
		question = "Send it again with confirm: true? [y/N]"
	}
	body := []string{st.writeBadge.Render(textsafe.SanitizeLine(in.tool)) + " changes your project and needs your consent."}
	if in.table == nil {
		args, err := json.Marshal(in.calls[0].Args)
		if err != nil {
			args = []byte(err.Error())
		}
		body = append(body, "args "+textsafe.SanitizeLine(string(args)))
	} else {
		n := strconv.Itoa(len(in.calls))
		body = append(body, n+" calls, one per marked row:")
		for _, name := range in.names[:min(len(in.names), maxDialogRows)] {
			body = append(body, "  "+textsafe.SanitizeLine(name))
		}
		if len(in.names) > maxDialogRows {
			body = append(body, "  … and "+strconv.Itoa(len(in.names)-maxDialogRows)+" more")
		}
		question = "Send all " + n + " with confirm: true? [y/N]"
	}
	body = append(body, question)
	inner := max(p.m.width-4, 20)
	for i, l := range body {
		body[i] = ansi.Truncate(l, inner, "…")
	}
	return strings.Split(st.dialog.Render(strings.Join(body, "\n")), "\n")
}

// maxDialogRows is how many rows a batch's dialog names.
const maxDialogRows = 3
