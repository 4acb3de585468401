package ui

import (
	"context"
	"io"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/visualq/vq/internal/clipboard"
	"github.com/visualq/vq/internal/textsafe"
)

// copiedMsg reports a copy (y): what the status line says of it, and the
// OSC 52 request to write when the terminal's clipboard was the way.
type copiedMsg struct {
	report, osc52 string
}

// copyText puts text on a clipboard the way every copy of vq's goes
// (internal/clipboard, as vq prove --copy): inside tmux a tmux buffer,
// else the desktop's clipboard, else OSC 52. The OSC 52 request is not
// written from the command: the program writes it between frames
// (tea.Raw), so that it cannot land inside one.
func copyText(ctx context.Context, getenv func(string) string, text, what string) tea.Cmd {
	return func() tea.Msg {
		var osc52 strings.Builder
		terminal := func() (io.WriteCloser, error) { return nopWriteCloser{&osc52}, nil }
		copied, err := clipboard.Copy(ctx, text, clipboard.Env{Getenv: getenv, Terminal: terminal})
		if err != nil {
			return copiedMsg{report: "could not copy: " + err.Error()}
		}
		return copiedMsg{report: copied.Report(what), osc52: osc52.String()}
	}
}

// copied shows a copy's outcome and writes its OSC 52 request, if any.
func (m *Model) copied(msg copiedMsg) tea.Cmd {
	m.status = textsafe.SanitizeLine(msg.report)
	if msg.osc52 == "" {
		return nil
	}
	return tea.Raw(msg.osc52)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
