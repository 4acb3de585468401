package ui

import (
	"context"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/api"
)

// Asker carries a server's questions into a running TUI session, which
// owns the terminal (Ask), each a screen of its own. Each is asked there
// in turn, and its answer comes back to the caller. Its zero value is
// ready; Run connects it to the session while it runs (Options.Asker).
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

// noticeMsg is a line vq tells the person while the session runs (a
// sign-in again's progress), which stderr would tear the frame with.
type noticeMsg string

// Tell shows msg in the running session, under the call in flight (else
// as the status line); told is false when no session runs, and the caller
// tells some other way.
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

// Ask asks e in the running session and waits for the answer; asked is
// false when no session runs, and the caller asks some other way. The
// question ends, answered ElicitCancel, when ctx ends or the session does.
// One too large for a form (CheckQuestion) is declined at once, the
// status line saying why.
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

// askSession brings the question ask makes into the running session and
// waits for the one reply it gets; unanswered is the answer when ctx or
// the session ends first. The session never waits on the caller: reply
// holds one answer.
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
