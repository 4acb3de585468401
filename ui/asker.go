package ui

import (
	"context"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/api"
)

// Asker carries a server's questions into the running TUI session, which owns the terminal.
// Its zero value is ready; Run connects it while the session runs.
type Asker struct {
	mu      sync.Mutex
	session sender
	ended   chan struct{}
}

// sender is what the asker brings messages into: the running program.
type sender interface{ Send(tea.Msg) }

// attach connects the asker to the session s runs until detach.
func (a *Asker) attach(s sender) (detach func()) {
	if a == nil {
		return func() {}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	ended := make(chan struct{})
	a.session, a.ended = s, ended
	return func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		a.session = nil
		close(ended)
	}
}

func (a *Asker) Running() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.session != nil
}

// noticeMsg is a line for the person, which stderr would tear the frame with.
type noticeMsg string

// Tell shows msg in the running session; told is false when none runs.
func (a *Asker) Tell(msg string) (told bool) { return a.send(noticeMsg(msg)) }

// send brings msg into the running session; sent is false when none runs.
func (a *Asker) send(msg tea.Msg) (sent bool) {
	a.mu.Lock()
	s := a.session
	a.mu.Unlock()
	if s == nil {
		return false
	}
	s.Send(msg)
	return true
}

// Ask asks e in the running session and waits; asked is false when none runs. It is
// cancelled when ctx or the session ends; one too large for a form is declined at once.
func (a *Asker) Ask(ctx context.Context, e api.Elicitation) (answer mcp.ElicitResult, asked bool) {
	if err := CheckQuestion(e); err != nil {
		asked = a.send(questionRefusedMsg("the server's question: declined: " + err.Error()))
		return mcp.ElicitResult{Action: api.ElicitDecline}, asked
	}
	// The question page waits on ctx itself (Model.ask).
	return askSession(a, ctx, func(ctx context.Context, reply chan mcp.ElicitResult) tea.Msg {
		return questionMsg{&question{ctx: ctx, e: e, reply: reply}}
	}, mcp.ElicitResult{Action: api.ElicitCancel})
}

// askSession waits for ask's reply (buffered: the session never waits), unanswered if ctx or the session ends.
func askSession[T any](a *Asker, ctx context.Context, ask func(context.Context, chan T) tea.Msg, unanswered T) (answer T, asked bool) {
	a.mu.Lock()
	s, sessionEnded := a.session, a.ended
	a.mu.Unlock()
	if s == nil {
		return answer, false
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the session's wait on ctx too
	reply := make(chan T, 1)
	s.Send(ask(ctx, reply)) // returns at once once the session has ended
	select {
	case answer = <-reply:
		return answer, true
	case <-ctx.Done():
	case <-sessionEnded:
	}
	return unanswered, true
}
