package ui

import (
	"context"
	"slices"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/api"
)

// question is a server's question in the session; reply holds one answer, so the session never waits.
type question struct {
	ctx   context.Context
	e     api.Elicitation
	reply chan mcp.ElicitResult
	form  *questionForm
}

// questionEndedMsg: its context ended; questionRefusedMsg: why one was declined unasked.
type (
	questionMsg        struct{ q *question }
	questionEndedMsg   struct{ q *question }
	questionRefusedMsg string
)

// questionPage shows the server's questions in order as forms owning frame and keys, in front until answered.
type questionPage struct {
	m     *Model
	queue []*question
}

// ask queues q; it is answered cancel when its context ends.
func (m *Model) ask(q *question) tea.Cmd {
	wait := func() tea.Msg { <-q.ctx.Done(); return questionEndedMsg{q} }
	if p, asking := m.front().(*questionPage); asking {
		p.queue = append(p.queue, q)
		return wait
	}
	return tea.Batch(wait, m.push(&questionPage{m: m, queue: []*question{q}}))
}

// questionEnded answers q cancel: the call it came with is over.
func (m *Model) questionEnded(q *question) tea.Cmd {
	if p, asking := m.front().(*questionPage); asking {
		return p.answer(q, mcp.ElicitResult{Action: api.ElicitCancel})
	}
	return nil
}

func (p *questionPage) Init() tea.Cmd {
	q := p.queue[0]
	q.form = newQuestionForm(q.e, &p.m.styles)
	q.form.resize(p.m.width, p.m.height)
	return q.form.form.Init()
}

func (p *questionPage) ShortHelp() []key.Binding { return p.queue[0].form.ShortHelp() }

func (p *questionPage) FullHelp() [][]key.Binding { return p.queue[0].form.FullHelp() }

// Update hands msg to the form on screen and takes its answer once there is one.
func (p *questionPage) Update(msg tea.Msg) tea.Cmd {
	q := p.queue[0]
	if size, ok := msg.(tea.WindowSizeMsg); ok {
		q.form.resize(size.Width, size.Height)
		return nil
	}
	cmd := q.form.update(msg)
	if _, ok := msg.(tea.BackgroundColorMsg); ok {
		q.form.restyle(&p.m.styles)
	}
	if a := q.form.answer; a != nil {
		p.m.status = "the server's question: " + Outcome(a.Action)
		return p.answer(q, *a)
	}
	return cmd
}

func (p *questionPage) View() []string { return p.queue[0].form.lines() }

// answer sends q its answer and opens the next question, or closes the page.
func (p *questionPage) answer(q *question, answer mcp.ElicitResult) tea.Cmd {
	i := slices.Index(p.queue, q)
	if i < 0 {
		return nil
	}
	q.reply <- answer
	p.queue = slices.Delete(p.queue, i, i+1)
	switch {
	case len(p.queue) == 0:
		p.m.close(p)
	case i == 0:
		return p.Init()
	}
	return nil
}

// end answers every question cancel: the session ends.
func (p *questionPage) end() {
	for _, q := range p.queue {
		q.reply <- mcp.ElicitResult{Action: api.ElicitCancel}
	}
	p.queue = nil
}
