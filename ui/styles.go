package ui

import (
	"image/color"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textinput"
	"charm.land/huh/v2"
	"charm.land/lipgloss/v2"
	"github.com/visualq/vq/ui/components/actions"
	"github.com/visualq/vq/ui/components/fields"
	"github.com/visualq/vq/ui/components/image"
	tbl "github.com/visualq/vq/ui/components/table"
)

// styles are the TUI's looks per background; NO_COLOR drops colours but keeps bold and reverse,
// so nothing may depend on colour alone.
type styles struct {
	crumb, crumbCurrent lipgloss.Style
	okBadge, errBadge   lipgloss.Style
	tool                lipgloss.Style
	warning             lipgloss.Style
	errorCode           lipgloss.Style
	dim                 lipgloss.Style
	sectionTitle        lipgloss.Style
	selected            lipgloss.Style
	writeBadge          lipgloss.Style
	dialog              lipgloss.Style
	spinner             lipgloss.Style
	// The components' looks.
	actions         actions.Styles
	image           image.Styles
	fields          fields.Styles
	table           tbl.Styles
	help            help.Styles
	input           textinput.Styles
	accent, failure color.Color // the colours formTheme draws with.
}

func newStyles(isDark bool) styles {
	c := lipgloss.LightDark(isDark)
	muted := c(lipgloss.Color("#6B7280"), lipgloss.Color("#9CA3AF"))
	accent := c(lipgloss.Color("#1D4ED8"), lipgloss.Color("#93C5FD"))
	green := c(lipgloss.Color("#15803D"), lipgloss.Color("#4ADE80"))
	red := c(lipgloss.Color("#B91C1C"), lipgloss.Color("#F87171"))
	amber := c(lipgloss.Color("#B45309"), lipgloss.Color("#FBBF24"))
	magenta := c(lipgloss.Color("#A21CAF"), lipgloss.Color("#F0ABFC"))
	dim := lipgloss.NewStyle().Foreground(muted)
	bar := lipgloss.NewStyle().Foreground(magenta)
	bold, selected := lipgloss.NewStyle().Bold(true), lipgloss.NewStyle().Reverse(true)
	writeBadge := lipgloss.NewStyle().Bold(true).Foreground(amber)
	return styles{
		crumb:        dim,
		crumbCurrent: bold,
		okBadge:      lipgloss.NewStyle().Bold(true).Foreground(green),
		errBadge:     lipgloss.NewStyle().Bold(true).Foreground(red),
		tool:         lipgloss.NewStyle().Bold(true).Foreground(accent),
		warning:      lipgloss.NewStyle().Foreground(amber),
		errorCode:    lipgloss.NewStyle().Bold(true).Foreground(red),
		dim:          dim,
		sectionTitle: bold,
		selected:     selected,
		writeBadge:   writeBadge,
		dialog:       lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(amber).Padding(0, 1),
		spinner:      lipgloss.NewStyle().Foreground(accent),
		actions:      actions.Styles{Title: bold, Selected: selected, Write: writeBadge, Dim: dim},
		image:        image.Styles{Label: dim, Dim: dim},
		fields:       fields.Styles{Key: dim, Bar: bar, Dim: dim},
		table:        tbl.Styles{Header: lipgloss.NewStyle().Bold(true).Underline(true), Bar: bar},
		help:         help.DefaultStyles(isDark),
		input:        inputStyles(isDark),
		accent:       accent,
		failure:      red,
	}
}

// formTheme is a question form's look, the focus marked by a border; built only when needed.
func (s *styles) formTheme() *huh.Styles {
	t := huh.ThemeBase(false) // its looks are the same on either background
	for _, f := range []*huh.FieldStyles{&t.Focused, &t.Blurred} {
		f.Title = s.sectionTitle
		f.Description = s.dim
		f.ErrorIndicator = f.ErrorIndicator.Foreground(s.failure)
		f.ErrorMessage = f.ErrorMessage.Foreground(s.failure)
		f.SelectedOption = s.sectionTitle
		f.TextInput.Placeholder = s.dim
	}
	f := &t.Focused
	f.Base = f.Base.BorderForeground(s.accent)
	f.Title = f.Title.Foreground(s.accent)
	f.SelectSelector = f.SelectSelector.Foreground(s.accent)
	f.TextInput.Cursor = f.TextInput.Cursor.Foreground(s.accent)
	f.TextInput.Prompt = f.TextInput.Prompt.Foreground(s.accent)
	t.Help = s.help
	return t
}

// inputStyles are the filter's: a blinking cursor would redraw twice a second.
func inputStyles(isDark bool) textinput.Styles {
	s := textinput.DefaultStyles(isDark)
	s.Cursor.Blink = false
	return s
}

// progressStyles are JobProgress's: basic ANSI colours read on any background.
type progressStyles struct {
	ok, failed, warn, dim lipgloss.Style
	bar                   color.Color // bar fills the progress bars.
}

func newProgressStyles() progressStyles {
	return progressStyles{
		ok:     lipgloss.NewStyle().Foreground(lipgloss.Green).Bold(true),
		failed: lipgloss.NewStyle().Foreground(lipgloss.Red).Bold(true),
		warn:   lipgloss.NewStyle().Foreground(lipgloss.Yellow).Bold(true),
		dim:    lipgloss.NewStyle().Faint(true),
		bar:    lipgloss.Cyan,
	}
}
