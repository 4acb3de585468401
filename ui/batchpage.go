package ui

import (
	"context"
	"strconv"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/textsafe"
)

// batchPage is a write over marked rows being sent, counted in the answer's foot; ctrl+c stops it.
type batchPage struct {
	m                       *Model
	under                   *answerPage
	tool                    string
	table                   *table
	calls                   []api.Call
	names                   map[string]string // by api.Call.Key
	total                   int
	finished, done, refused int // finished, done and refused count the answers so far.
	cancel                  context.CancelFunc
	events                  chan tea.Msg
	stopped                 bool
}

// batchEventMsg is one call of the batch ending; batchDoneMsg the batch.
type batchEventMsg struct {
	i int
	o BatchOutcome
}

type batchDoneMsg struct{ outcomes []BatchOutcome }

func (m *Model) startBatch(in WriteIntent, calls []api.Call) tea.Cmd {
	p := &batchPage{m: m, under: m.top(), tool: in.Calls[0].Tool, table: in.table, calls: calls, names: map[string]string{},
		total: len(calls), events: make(chan tea.Msg, len(calls)+1)}
	for i, c := range in.Calls {
		k := c.Key()
		p.names[k] = in.names[i]
		m.reviewed[k] = reviewPending
	}
	m.status = ""
	return m.push(p)
}

// Init sends the calls, reporting batchEventMsg each and batchDoneMsg at the end.
func (p *batchPage) Init() tea.Cmd {
	ctx, cancel := context.WithCancel(p.m.ctx)
	p.cancel = cancel
	calls, invoke, events := p.calls, p.m.invoke, p.events
	send := func() tea.Msg {
		go func() {
			outcomes := RunBatch(ctx, calls, invoke, BatchOptions{OnDone: func(i int, o BatchOutcome) {
				events <- batchEventMsg{i: i, o: o}
			}})
			events <- batchDoneMsg{outcomes: outcomes}
		}()
		return <-events
	}
	return tea.Batch(p.m.spinner.Tick, send)
}

func waitBatch(events chan tea.Msg) tea.Cmd {
	return func() tea.Msg { return <-events }
}

// stop ends the batch: calls not yet sent never are.
func (p *batchPage) stop() {
	if !p.stopped {
		p.stopped = true
		p.cancel()
	}
}

func (p *batchPage) end() { p.stop() }

// keys are the busy keys: ctrl+c stops the batch.
func (p *batchPage) keys() busyKeys {
	stop := key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "stop sending"))
	return newBusyKeys(stop, p.under.shots.HasDiff())
}

func (p *batchPage) ShortHelp() []key.Binding { return p.keys().ShortHelp() }

func (p *batchPage) FullHelp() [][]key.Binding { return p.keys().FullHelp() }

// Update counts the answers, and takes the keys while the batch runs.
func (p *batchPage) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case batchEventMsg:
		return p.answered(msg)
	case batchDoneMsg:
		return p.ended(msg)
	case tea.KeyPressMsg:
		return p.m.busyKey(msg, p.keys(), p.stop)
	}
	return nil
}

// answered counts one call's ending and marks its row.
func (p *batchPage) answered(msg batchEventMsg) tea.Cmd {
	p.finished++
	k := msg.o.Call.Key()
	switch msg.o.State {
	case BatchDone:
		p.done++
		p.m.review(k, reviewDone, msg.o.Resp)
	case BatchRefused:
		p.refused++
		p.m.review(k, reviewRefused, msg.o.Resp)
	default:
		delete(p.m.reviewed, k)
	}
	return waitBatch(p.events)
}

// ended shows the report, unmarks the rows written and refreshes when any worked.
func (p *batchPage) ended(msg batchDoneMsg) tea.Cmd {
	m := p.m
	m.close(p)
	m.ignored = ""
	p.cancel()
	for _, o := range msg.outcomes {
		if o.State == BatchNotSent || o.State == BatchMaybeApplied {
			delete(m.reviewed, o.Call.Key())
		}
	}
	for r := range p.table.Marked {
		if m.rowState(p.table, r) == reviewDone {
			delete(p.table.Marked, r)
		}
	}
	m.report = BatchSummary(p.tool, msg.outcomes, func(c api.Call) string { return p.names[c.Key()] }, 3)
	if CountBatch(msg.outcomes).Done == 0 {
		return nil
	}
	m.staleAnswers()
	return m.top().refresh()
}

func (p *batchPage) View() []string { return p.under.View() }

func (p *batchPage) part() (footPart, []string) {
	line := p.m.spinner.View() + " " + textsafe.SanitizeLine(p.tool) + ": " + strconv.Itoa(p.finished) + " of " + strconv.Itoa(p.total) + " answered"
	if p.refused > 0 {
		line += ", " + strconv.Itoa(p.refused) + " refused"
	}
	if p.stopped {
		line += " · stopping (nothing more is sent)"
	}
	return activityPart, []string{line + p.m.ignoredNote("it ends", "ctrl+c stops it")}
}
