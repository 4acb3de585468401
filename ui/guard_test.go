package ui

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/exitcode"
)

// runTUI runs the TUI on first with opts' hooks and input that never ends
// (as a terminal's); it returns what was written and Run's error.
func runTUI(t *testing.T, opts Options, first *api.ToolResponse) (string, error) {
	t.Helper()
	in, keep := io.Pipe()
	t.Cleanup(func() { keep.Close() })
	var out bytes.Buffer
	opts.In, opts.Out = in, &out
	opts.Getenv = func(string) string { return "" }
	if opts.Invoke == nil {
		opts.Invoke = func(context.Context, api.Call) (*api.ToolResponse, error) { return first, nil }
	}
	_, err := Run(context.Background(), opts, failuresCall, first)
	return out.String(), err
}

func failuresResponse(t *testing.T) *api.ToolResponse {
	t.Helper()
	return hostileModel(t, answerJSON(t, failuresAnswer("run_abc", 3)), 80, 24).top().resp
}

// TestPanicInTheTUIComesBackAsAnError: a panic in Update, in a command's
// goroutine or in View ends the program, which restores the terminal
// (the cursor shown again, bracketed paste off), and Run returns it as a
// PanicError with its stack.
func TestPanicInTheTUIComesBackAsAnError(t *testing.T) {
	t.Parallel()
	first := failuresResponse(t)
	for name, opts := range map[string]Options{
		"Update": {Probe: func(msg tea.Msg) {
			if _, ok := msg.(tea.WindowSizeMsg); ok {
				panic("injected in Update")
			}
		}},
		"a command": {Invoke: func(context.Context, api.Call) (*api.ToolResponse, error) { panic("injected in a command") }},
	} {
		t.Run(name, func(t *testing.T) {
			var resp *api.ToolResponse
			if name == "Update" {
				resp = first
			}
			out, err := runTUI(t, opts, resp)
			p, ok := errors.AsType[*exitcode.PanicError](err)
			if !ok {
				t.Fatalf("Run returned %v, want a PanicError", err)
			}
			if !strings.Contains(p.Error(), "injected in") || strings.Contains(p.Error(), "\n") || len(p.Stack) == 0 {
				t.Errorf("PanicError %q with a %d-byte stack", p.Error(), len(p.Stack))
			}
			if exitcode.Of(err) != exitcode.Internal {
				t.Errorf("exit code %d, want %d", exitcode.Of(err), exitcode.Internal)
			}
			if !strings.Contains(out, "\x1b[?25h") {
				t.Errorf("the terminal was not restored: %q", out)
			}
		})
	}
}

// TestPanicInViewEndsTheProgram: View cannot return a command, so the
// guard ends the program through its context, and keeps the last whole
// frame on the terminal.
func TestPanicInViewEndsTheProgram(t *testing.T) {
	t.Parallel()
	m := hostileModel(t, answerJSON(t, failuresAnswer("run_abc", 3)), 80, 24)
	killed := false
	g := &guard{m: m, kill: func() { killed = true }}
	good := g.View()
	m.stack = append(m.stack, &answerPage{}) // a screen without an answer: View dereferences nil
	if v := g.View(); v.Content != good.Content {
		t.Errorf("after a panic View drew %q, want the last whole frame", v.Content)
	}
	if !killed || g.panicked() == nil {
		t.Fatalf("View's panic: killed %v, recorded %v", killed, g.panicked())
	}
	if _, cmd := g.Update(tea.KeyPressMsg{Code: 'j', Text: "j"}); cmd == nil || cmd() != tea.Quit() {
		t.Errorf("Update after a panic does not quit")
	}
}
