package ui

import (
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
)

// filterPage is the filter being typed (/); enter keeps it, esc clears it.
type filterPage struct {
	m      *Model
	under  *answerPage
	input  textinput.Model
	keymap filterKeys
	// line holds part's line: a frame draws the foot several times.
	line [1]string
}

// filterKeys are the keys while the filter is typed; others are text.
type filterKeys struct {
	Apply, Clear key.Binding
}

// newFilterPage opens the filter on a's query, the rows focused.
func newFilterPage(a *answerPage) *filterPage {
	p := &filterPage{m: a.m, under: a, input: textinput.New(), keymap: filterKeys{
		Apply: key.NewBinding(key.WithKeys("enter", "down", "tab"), key.WithHelp("enter", "keep filter")),
		// A quick double Esc arrives as alt+esc.
		Clear: key.NewBinding(key.WithKeys("esc", "alt+esc"), key.WithHelp("esc", "clear")),
	}}
	p.input.Prompt = "/"
	p.input.Placeholder = "filter rows"
	p.input.SetStyles(a.m.styles.input)
	p.input.SetValue(a.filter)
	p.input.CursorEnd()
	p.input.Focus()
	a.focus = focusData
	return p
}

func (p *filterPage) ShortHelp() []key.Binding { return []key.Binding{p.keymap.Apply, p.keymap.Clear} }

func (p *filterPage) FullHelp() [][]key.Binding { return [][]key.Binding{p.ShortHelp()} }

// Init does nothing: the input's cursor does not blink.
func (p *filterPage) Init() tea.Cmd { return nil }

// Update filters the answer as the query is typed.
func (p *filterPage) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.BackgroundColorMsg:
		p.input.SetStyles(p.m.styles.input)
	case tea.KeyPressMsg:
		a := p.under
		switch {
		case key.Matches(msg, p.keymap.Clear):
			p.m.close(p)
			a.setFilter("")
		case key.Matches(msg, p.keymap.Apply):
			p.m.close(p)
		default:
			// The input's own commands only blink its cursor.
			p.input, _ = p.input.Update(msg)
			a.setFilter(p.input.Value())
		}
		a.keepInView()
	}
	return nil
}

func (p *filterPage) View() []string { return p.under.View() }

func (p *filterPage) part() (footPart, []string) {
	p.line[0] = p.input.View() + p.m.styles.dim.Render("  "+p.under.filterCount())
	return filterPart, p.line[:]
}
