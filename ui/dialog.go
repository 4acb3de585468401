package ui

import (
	"context"
	"slices"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/visualq/vq/api"
)

// dialog is the consent asked before a write: the server's
// confirm_required on the current screen (resend), or a write the person
// chose (a, or A over marked rows), asked before anything is sent.
type dialog struct {
	resend bool
	tool   string
	calls  []api.Call
	names  []string
	// table is set for a batch over its marked rows.
	table *table
}

func (m *Model) dialogKey(msg tea.KeyPressMsg) tea.Cmd {
	d := m.dialog
	switch {
	case key.Matches(msg, m.confirmKeys.Quit):
		return m.quit()
	case key.Matches(msg, m.confirmKeys.Yes):
		m.dialog = nil
		s := m.top()
		switch {
		case d.resend:
			return m.start(s.call.WithConfirm(), s.crumb, replaceAnswer, s.origin)
		case d.table != nil:
			return m.startBatch(d)
		}
		m.reviewed[callKey(d.calls[0])] = reviewPending
		return m.start(d.calls[0].WithConfirm(), d.names[0], writeAnswer, nil)
	case key.Matches(msg, m.confirmKeys.No):
		m.dialog = nil
		m.status = "not sent"
	}
	return nil
}

// writeTarget is the tool a would send: the selected row's write
// template, else the screen's first write action.
func (m *Model) writeTarget() (string, bool) {
	s := m.top()
	if s.rowMode() && s.selRow() >= 0 {
		if tp := s.selTable().writeAction(); tp != nil {
			return tp.action.Tool, true
		}
	}
	a, ok := s.writeAction(m.writeTools)
	return a.Tool, ok
}

// askWrite opens the dialog for what a sends.
func (m *Model) askWrite() tea.Cmd {
	s := m.top()
	if s.rowMode() && s.selRow() >= 0 {
		if tp := s.selTable().writeAction(); tp != nil {
			return m.askWriteRows(s.selTable(), tp, []int{s.selRow()})
		}
	}
	a, _ := s.writeAction(m.writeTools)
	call := a.Call()
	name := a.Label
	if name == "" {
		name = a.Tool
	}
	m.dialog = &dialog{tool: a.Tool, calls: []api.Call{call}, names: []string{name}}
	return nil
}

// askWriteRows asks before one write call for one row.
func (m *Model) askWriteRows(t *table, tp *rowTemplate, rows []int) tea.Cmd {
	d := &dialog{tool: tp.action.Tool}
	for _, r := range rows {
		d.calls = append(d.calls, tp.call(t, r))
		d.names = append(d.names, rowName(tp, t, r))
	}
	m.dialog = d
	return nil
}

// startBatchFlow is A: the write over the marked rows. A table that knows
// no write template yet learns it from the answer of the first marked
// row's action (a read), fetched without opening a screen.
func (m *Model) startBatchFlow(s *screen) tea.Cmd {
	t := s.selTable()
	if t.writeAction() != nil {
		return m.askBatch(t)
	}
	tp := t.rowAction()
	r := m.markedRows(t)[0]
	cmd := m.start(tp.call(t, r), tp.label(t, r), probeAnswer, &origin{parent: s, sec: s.sec, row: r, tpl: tp})
	m.status = "finding the write action of these rows…"
	return cmd
}

// markedRows are t's marked rows in the order shown, then those the
// filter hides.
func (m *Model) markedRows(t *table) []int {
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

// askBatch opens the dialog for the table's write template over its
// marked rows, leaving out rows written already.
func (m *Model) askBatch(t *table) tea.Cmd {
	tp := t.writeAction()
	d := &dialog{tool: tp.action.Tool, table: t}
	for _, r := range m.markedRows(t) {
		if st := m.rowState(t, r); st == reviewDone || st == reviewPending {
			continue
		}
		d.calls = append(d.calls, tp.call(t, r))
		d.names = append(d.names, rowName(tp, t, r))
	}
	if len(d.calls) == 0 {
		m.status = "every marked row is done already"
		return nil
	}
	m.dialog = d
	return nil
}

// batchRun is a batch being sent.
type batchRun struct {
	tool  string
	table *table
	names map[string]string // by callKey
	total int
	// finished, done and refused count the answers so far.
	finished, done, refused int
	cancel                  context.CancelFunc
	events                  chan tea.Msg
	stopped                 bool
}

// stop ends the batch: calls not yet sent never are. It is a no-op on no
// batch.
func (b *batchRun) stop() {
	if b != nil && !b.stopped {
		b.stopped = true
		b.cancel()
	}
}

// batchEventMsg is one call of the batch ending; batchDoneMsg the batch.
type batchEventMsg struct {
	i int
	o BatchOutcome
}

type batchDoneMsg struct{ outcomes []BatchOutcome }

func (m *Model) startBatch(d *dialog) tea.Cmd {
	ctx, cancel := context.WithCancel(m.ctx)
	b := &batchRun{tool: d.tool, table: d.table, names: map[string]string{}, total: len(d.calls),
		cancel: cancel, events: make(chan tea.Msg, len(d.calls)+1)}
	calls := make([]api.Call, len(d.calls))
	for i, c := range d.calls {
		calls[i] = c.WithConfirm()
		k := callKey(c)
		b.names[k] = d.names[i]
		m.reviewed[k] = reviewPending
	}
	m.batch = b
	m.status = ""
	invoke, events := m.invoke, b.events
	go func() {
		outcomes := RunBatch(ctx, calls, invoke, BatchOptions{OnDone: func(i int, o BatchOutcome) {
			events <- batchEventMsg{i: i, o: o}
		}})
		events <- batchDoneMsg{outcomes: outcomes}
	}()
	return tea.Batch(m.spinner.Tick, waitBatch(events))
}

func waitBatch(events chan tea.Msg) tea.Cmd {
	return func() tea.Msg { return <-events }
}

func (m *Model) batchEvent(msg batchEventMsg) tea.Cmd {
	b := m.batch
	if b == nil {
		return nil
	}
	b.finished++
	k := callKey(msg.o.Call)
	switch msg.o.State {
	case BatchDone:
		b.done++
		m.reviewed[k] = reviewDone
	case BatchRefused:
		b.refused++
		m.reviewed[k] = reviewRefused
	default:
		delete(m.reviewed, k)
	}
	return waitBatch(b.events)
}

func (m *Model) batchDone(msg batchDoneMsg) tea.Cmd {
	b := m.batch
	if b == nil {
		return nil
	}
	m.batch, m.ignored = nil, ""
	b.cancel()
	for _, o := range msg.outcomes {
		if o.State == BatchNotSent || o.State == BatchInterrupted {
			delete(m.reviewed, callKey(o.Call))
		}
	}
	for r := range b.table.marked {
		if m.rowState(b.table, r) == reviewDone {
			delete(b.table.marked, r)
		}
	}
	m.report = BatchSummary(b.tool, msg.outcomes, func(c api.Call) string { return b.names[callKey(c)] }, 3)
	if CountBatch(msg.outcomes).Done == 0 {
		return nil
	}
	for _, s := range m.stack {
		s.stale = true
	}
	return m.refresh()
}
