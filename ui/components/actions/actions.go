// Package actions lists an answer's next actions, numbered, writes marked. It imports the internal leaves only.
package actions

import (
	"strconv"

	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"
	"github.com/visualq/vq/internal/textsafe"
)

// Action is one next action; Write marks a tool that changes a project.
type Action struct {
	Label, Tool string
	Write       bool
}

// Model is the list and its cursor.
type Model struct {
	acts       []Action // labels sanitized once
	labelWidth int
	cursor     int
}

// Styles are the list's looks: title, selected line, write mark, notes.
type Styles struct{ Title, Selected, Write, Dim lipgloss.Style }

// New lists acts, the cursor on the first.
func New(acts []Action) Model {
	m := Model{acts: acts}
	for i, a := range acts {
		acts[i].Label = textsafe.SanitizeLine(textsafe.Clip(a.Label, textsafe.MaxLineBytes))
		m.labelWidth = max(m.labelWidth, textsafe.DisplayWidth(acts[i].Label))
	}
	return m
}

func (m *Model) Len() int { return len(m.acts) }

func (m *Model) Cursor() int { return m.cursor }

// SetCursor puts the cursor on action i, or the nearest there is.
func (m *Model) SetCursor(i int) { m.cursor = max(0, min(i, len(m.acts)-1)) }

// View lists the actions in a width×height frame; the last frame (done) draws no cursor.
func (m *Model) View(st Styles, width, height int, focused, done bool) []string {
	if len(m.acts) == 0 {
		return nil
	}
	labelWidth := min(m.labelWidth, width/2)
	show := min(len(m.acts), max(3, height/4))
	first := max(0, min(m.cursor-show/2, len(m.acts)-show))
	lines := []string{st.Title.Render("Next actions")}
	for i := first; i < first+show; i++ {
		a := m.acts[i]
		number := " "
		if i < 9 {
			number = strconv.Itoa(i + 1)
		}
		line := number + "  " + textsafe.Fit(a.Label, labelWidth, false) + "  " + textsafe.SanitizeLine(textsafe.Clip(a.Tool, textsafe.MaxLineBytes))
		if a.Write {
			line += "  " + st.Write.Render("[write]")
		}
		switch {
		case done:
			line = "  " + line
		case i == m.cursor && focused:
			line = st.Selected.Render("› " + line)
		case i == m.cursor:
			line = "› " + line
		default:
			line = "  " + line
		}
		lines = append(lines, line)
	}
	if show < len(m.acts) {
		lines = append(lines, st.Dim.Render("  "+strconv.Itoa(len(m.acts)-show)+" more (↑/↓)"))
	}
	return lines
}

// Folded is the list folded into one line, when rows need the room.
func (m *Model) Folded(st Styles) string {
	return st.Dim.Render(strconv.Itoa(len(m.acts)) + " next actions (tab shows them)")
}

// Keys run the action under the cursor, or the one of a number.
type Keys struct{ Run, Number key.Binding }

// NewKeys are enter and 1–9.
func NewKeys() Keys {
	return Keys{
		Run:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "run")),
		Number: key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6", "7", "8", "9"), key.WithHelp("1-9", "run #")),
	}
}

func (k Keys) ShortHelp() []key.Binding  { return []key.Binding{k.Run, k.Number} }
func (k Keys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }
