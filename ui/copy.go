package ui

import (
	"context"
	"io"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/visualq/vq/internal/clipboard"
	"github.com/visualq/vq/internal/textsafe"
)

// copiedMsg reports a copy (y): its status line, and any OSC 52 request to write.
type copiedMsg struct {
	report, osc52 string
}

// copyText copies via internal/clipboard; an OSC 52 request is written by the program
// between frames (tea.Raw), so it cannot land inside one.
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
