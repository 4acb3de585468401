// Package keybar is the TUI's help line, in full after ?. It imports nothing of vq.
package keybar

import (
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
)

// Model is the help line.
type Model struct{ help help.Model }

// New is the help line, short until ? asks for it all.
func New() Model { return Model{help.New()} }

func (m *Model) SetWidth(width int) { m.help.SetWidth(width) }

func (m *Model) SetStyles(s help.Styles) { m.help.Styles = s }

// Toggle switches between the short line and the full help (?).
func (m *Model) Toggle() { m.help.ShowAll = !m.help.ShowAll }

// View is the help of keys, line by line: the full help is several.
func (m Model) View(keys help.KeyMap) []string { return strings.Split(m.help.View(keys), "\n") }

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
