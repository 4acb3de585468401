package ui

import (
	"context"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/visualq/vq/internal/exitcode"
)

// guard turns a panic in the model or its commands into a clean shutdown and an *exitcode.PanicError.
type guard struct {
	m *Model
	// probe sees each message before the model does (Options.Probe).
	probe func(tea.Msg)
	kill  context.CancelFunc // kill ends the program from View, which cannot return a command.

	mu     sync.Mutex
	failed *exitcode.PanicError
	last   tea.View // the last frame drawn whole: left on the terminal after a panic.
}

type panicMsg struct{}

func (g *guard) catch(r any) {
	p := exitcode.Recovered(r)
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.failed == nil {
		g.failed = p
	}
}

func (g *guard) panicked() *exitcode.PanicError {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.failed
}

func (g *guard) Init() (cmd tea.Cmd) {
	defer func() {
		if r := recover(); r != nil {
			g.catch(r)
			cmd = tea.Quit
		}
	}()
	return g.wrap(g.m.Init())
}

// Update leaves a panicked model (half changed) alone and quits.
func (g *guard) Update(msg tea.Msg) (model tea.Model, cmd tea.Cmd) {
	defer func() {
		if r := recover(); r != nil {
			g.catch(r)
			model, cmd = g, tea.Quit
		}
	}()
	if _, ok := msg.(panicMsg); ok || g.panicked() != nil {
		return g, tea.Quit
	}
	if g.probe != nil {
		g.probe(msg)
	}
	_, cmd = g.m.Update(msg)
	return g, g.wrap(cmd)
}

func (g *guard) View() (v tea.View) {
	defer func() {
		if r := recover(); r != nil {
			g.catch(r)
			g.kill()
			v = g.last
		}
	}()
	if g.panicked() != nil {
		return g.last
	}
	g.last = g.m.View()
	return g.last
}

// wrap runs cmd under the guard, and a batch's commands in turn (each runs in its own goroutine).
func (g *guard) wrap(cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return func() (msg tea.Msg) {
		defer func() {
			if r := recover(); r != nil {
				g.catch(r)
				msg = panicMsg{}
			}
		}()
		msg = cmd()
		if batch, ok := msg.(tea.BatchMsg); ok {
			for i, c := range batch {
				batch[i] = g.wrap(c)
			}
		}
		return msg
	}
}
