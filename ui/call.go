package ui

import (
	"context"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/textsafe"
	"github.com/visualq/vq/ui/components/image"
	"github.com/visualq/vq/ui/components/keybar"
	"github.com/visualq/vq/ui/components/progress"
)

// The call in flight is the root's, one at a time; while it is out the root takes the keys.

type answerKind int

const (
	pushAnswer    answerKind = iota // a new screen
	refreshAnswer                   // the top screen's call again, keeping its setup
	replaceAnswer                   // a confirmed resend, or n/p to the neighbouring row
	writeAnswer                     // a write: a status line, then a refresh
	probeAnswer                     // a row's answer to learn its templates, before a batch
)

type pending struct {
	seq    int
	call   api.Call
	crumb  string
	kind   answerKind
	origin *origin
	cancel context.CancelFunc
	// consented: a confirm_required answer is shown without asking again.
	consented bool
	// note is shown under the call; server text in it is sanitized when drawn.
	note     []string
	progress *api.JobUpdate // the server's latest report; updates brings the next.
	updates  chan api.JobUpdate
	done     <-chan struct{}
}

type progressMsg struct {
	seq int
	u   api.JobUpdate
}

// answerMsg is the answer to call seq; those to cancelled calls are dropped.
type answerMsg struct {
	seq  int
	resp *api.ToolResponse
	err  error
}

// start sends a call, giving up the one in flight.
func (m *Model) start(call api.Call, crumb string, kind answerKind, from *origin) tea.Cmd {
	if m.pending != nil {
		m.pending.cancel()
	}
	ctx, cancel := context.WithCancel(m.ctx)
	m.seq++
	p := &pending{seq: m.seq, call: call, crumb: crumb, kind: kind, origin: from, cancel: cancel,
		updates: make(chan api.JobUpdate, 1), done: ctx.Done()}
	m.pending = p
	m.status, m.ignored = "", ""
	invoke, seq := m.invoke, m.seq
	// The latest progress report waits in updates; an unread older one is dropped.
	ctx = api.WithProgress(ctx, func(u api.JobUpdate) {
		for {
			select {
			case p.updates <- u:
				return
			case <-p.updates:
			}
		}
	})
	return tea.Batch(m.spinner.Tick, func() tea.Msg {
		resp, err := invoke(ctx, call)
		return answerMsg{seq: seq, resp: resp, err: err}
	}, p.nextProgress())
}

func (p *pending) nextProgress() tea.Cmd {
	return func() tea.Msg {
		select {
		case u := <-p.updates:
			return progressMsg{seq: p.seq, u: u}
		case <-p.done:
			return nil
		}
	}
}

func (m *Model) progressed(msg progressMsg) tea.Cmd {
	if m.pending == nil || m.pending.seq != msg.seq {
		return nil
	}
	m.pending.progress = &msg.u
	return m.pending.nextProgress()
}

func (m *Model) cancelCall() {
	m.pending.cancel()
	m.pending = nil
	m.status = "call cancelled"
}

func (m *Model) busy() bool {
	if m.pending != nil {
		return true
	}
	for _, p := range m.stack {
		if _, ok := p.(*batchPage); ok {
			return true
		}
	}
	return false
}

func (m *Model) answered(msg answerMsg) tea.Cmd {
	p := m.pending
	if p == nil || msg.seq != p.seq {
		return nil
	}
	if m.loading() {
		return m.firstAnswer(msg)
	}
	return m.land(p, msg)
}

// firstAnswer opens the first screen, or ends the session on failure or nothing to act on.
func (m *Model) firstAnswer(msg answerMsg) tea.Cmd {
	if msg.err != nil {
		m.pending.cancel()
		m.pending, m.firstErr = nil, msg.err
		return m.quit()
	}
	cmd := m.land(m.pending, msg)
	if !m.top().actionable() {
		m.printAfter = true
		return m.quit()
	}
	return cmd
}

// land does what the answer to p is for: a screen, a status line, or a batch dialog.
func (m *Model) land(p *pending, msg answerMsg) tea.Cmd {
	m.pending, m.ignored = nil, ""
	p.cancel()
	if msg.err != nil {
		m.status = "call stopped: " + textsafe.SanitizeLine(msg.err.Error())
		if p.kind == writeAnswer {
			m.review(p.call.Key(), reviewNone, nil)
		}
		return nil
	}
	resp := msg.resp
	if p.origin != nil {
		// A row's answer names that row in its next actions: templates for the table.
		t := p.origin.parent.data.sections[p.origin.sec].t
		t.addTemplates(resp.NextActions, p.origin.row, m.writeTools)
	}
	if m.writeTools(p.call.Tool) {
		m.wrote(p.call, resp)
	}
	switch p.kind {
	case probeAnswer:
		m.status = ""
		t := p.origin.parent.data.sections[p.origin.sec].t
		if t.writeAction() == nil {
			m.status = "the rows' answers offer no action that writes"
			return nil
		}
		return m.askBatch(t)
	case writeAnswer:
		return m.written(resp)
	}
	return m.show(p, resp)
}

// written shows a write's answer as a status line, refreshing on success.
func (m *Model) written(resp *api.ToolResponse) tea.Cmd {
	if !resp.OK {
		m.status = "✗ " + textsafe.SanitizeLine(resp.ErrorCode()+": "+resp.ErrorMessage())
		return nil
	}
	cmd := m.top().refresh()
	m.status = "✓ " + textsafe.SanitizeLine(resp.Summary)
	return cmd
}

// show opens the answer to p, asking for consent when that lifts its refusal.
func (m *Model) show(p *pending, resp *api.ToolResponse) tea.Cmd {
	a := newAnswerPage(m, p.call, p.crumb, resp)
	a.origin = p.origin
	var cmd tea.Cmd
	switch p.kind {
	case refreshAnswer:
		old := m.top()
		a.inherit(old)
		m.replace(old, a)
		a.keepInView()
		cmd = a.Init()
	case replaceAnswer:
		m.replace(m.top(), a)
		cmd = a.Init()
	default:
		cmd = m.push(a)
	}
	if a.needsConfirm() && !p.consented {
		cmd = tea.Batch(cmd, m.consent(a.resendIntent()))
	}
	return cmd
}

// wrote records a write's answer, every screen stale on success.
func (m *Model) wrote(call api.Call, resp *api.ToolResponse) {
	k := call.Key()
	switch {
	case resp.OK:
		m.review(k, reviewDone, resp)
		m.staleAnswers()
	case resp.ErrorCode() == api.CodeConfirmRequired:
		// Not sent for real: the dialog asks next.
	default:
		m.review(k, reviewRefused, resp)
	}
}

// busyKeys are the keys while a call or batch is out; the others wait, saying so.
type busyKeys struct {
	Copy, Cancel key.Binding
	keybar.Keys
}

func newBusyKeys(cancel key.Binding, copyLink bool) busyKeys {
	k := busyKeys{Copy: image.NewKeys().Copy, Cancel: cancel, Keys: keybar.NewKeys()}
	k.Copy.SetEnabled(copyLink)
	return k
}

func (k busyKeys) ShortHelp() []key.Binding { return []key.Binding{k.Cancel, k.Help, k.Quit} }
func (k busyKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Copy, k.Cancel, k.Help, k.Quit}}
}

func (m *Model) callKeys() busyKeys {
	cancel := key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel call"))
	return newBusyKeys(cancel, m.top().shots.HasDiff())
}

func (m *Model) busyKey(msg tea.KeyPressMsg, k busyKeys, cancel func()) tea.Cmd {
	m.report = nil
	switch {
	case key.Matches(msg, k.Cancel):
		cancel()
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.Help):
		m.keybar.Toggle()
	case key.Matches(msg, k.Copy):
		return m.top().copyLink()
	default:
		m.ignored = msg.String()
	}
	return nil
}

func loadingKeys() busyKeys {
	k := newBusyKeys(key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")), false)
	k.Help.SetEnabled(false)
	return k
}

// loadingKey is a key before the first answer: q and esc give up.
func (m *Model) loadingKey(msg tea.KeyPressMsg) tea.Cmd {
	k := loadingKeys()
	if key.Matches(msg, k.Cancel, k.Quit) {
		m.firstErr = context.Canceled
		return m.quit()
	}
	m.ignored = msg.String()
	return nil
}

func (m *Model) loadingLines() []string {
	if m.pending == nil {
		return nil // given up: the session is ending
	}
	lines := []string{m.headerLine(m.styles.crumbCurrent.Render(textsafe.SanitizeLine(textsafe.Clip(m.pending.crumb, textsafe.MaxLineBytes)))), "", m.callingLine()}
	lines = append(lines, m.pendingNote()...)
	return append(append(lines, ""), m.keybar.View(loadingKeys())...)
}

func (m *Model) pendingNote() []string {
	lines := make([]string, 0, len(m.pending.note))
	for _, l := range m.pending.note {
		lines = append(lines, m.styles.dim.Render("  "+textsafe.SanitizeLine(textsafe.Clip(l, textsafe.MaxLineBytes))))
	}
	return lines
}

func (m *Model) callingLine() string {
	line := m.spinner.View() + " calling " + textsafe.SanitizeLine(textsafe.Clip(m.pending.call.Tool, textsafe.MaxLineBytes)) + "…"
	if u := m.pending.progress; u != nil {
		if u.Total > 0 {
			line += " " + m.callBar.View(*u)
		}
		u := *u
		u.Status = "" // running, as the spinner says
		for _, part := range progress.Parts(u) {
			line += " " + textsafe.Clip(part, textsafe.MaxLineBytes)
		}
	}
	return line + m.ignoredNote("the answer", "esc cancels")
}

// ignoredNote names the last key ignored while busy, until when, and what works.
func (m *Model) ignoredNote(until, instead string) string {
	if m.ignored == "" {
		return ""
	}
	return m.styles.dim.Render("  (" + textsafe.SanitizeLine(textsafe.Clip(m.ignored, textsafe.MaxLineBytes)) + " ignored until " + until + "; " + instead + ")")
}
