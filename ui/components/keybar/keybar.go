// Package keybar is the TUI's help line, in full after ?. It imports nothing of vq.
package keybar

import (
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"
)

// Model is the help line.
type Model struct{ help help.Model }

// New is the help line, short until ? asks for it all.
func New() Model { return Model{help.New()} }

func (m *Model) SetWidth(width int) { m.help.SetWidth(width) }

func (m *Model) SetStyles(s help.Styles) { m.help.Styles = s }

// Toggle switches between the short line and the full help (?).
func (m *Model) Toggle() { m.help.ShowAll = !m.help.ShowAll }

// View is the help of keys, line by line: the full help is several. The short line ends with ? and q
// at every width: what does not fit before them is cut.
func (m Model) View(keys help.KeyMap) []string {
	if m.help.ShowAll {
		return strings.Split(m.help.View(keys), "\n")
	}
	var rest, always []key.Binding
	for _, b := range keys.ShortHelp() {
		if k := b.Keys(); b.Enabled() && len(k) > 0 && (k[0] == "?" || k[0] == "q") {
			always = append(always, b)
		} else {
			rest = append(rest, b)
		}
	}
	tail := m.help.ShortHelpView(always)
	head := m.help
	head.SetWidth(max(m.help.Width()-lipgloss.Width(tail)-lipgloss.Width(m.help.ShortSeparator), 1))
	if line := head.ShortHelpView(rest); line != "" && tail != "" {
		return []string{line + m.help.Styles.ShortSeparator.Render(m.help.ShortSeparator) + tail}
	} else if line != "" {
		return []string{line}
	}
	return []string{tail}
}

// Keys are the keys every page offers: the full help, and quitting.
type Keys struct{ Help, Quit key.Binding }

// NewKeys are ? and q (or ctrl+c).
func NewKeys() Keys {
	return Keys{
		Help: key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "more keys")),
		Quit: key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}

func (k Keys) ShortHelp() []key.Binding  { return []key.Binding{k.Help, k.Quit} }
func (k Keys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }
