// Package fields draws an answer's scalar members, folded on one line when a table needs the room.
// It imports the internal leaves only.
package fields

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/visualq/vq/internal/layout"
	"github.com/visualq/vq/internal/textsafe"
)

type field struct {
	key, value string
	percent    float64
	isBar      bool
}

// Model is the fields, folded or not.
type Model struct {
	fields   []field
	keyWidth int
	folded   bool
}

// Styles are the fields' looks: keys, mismatch bar, notes.
type Styles struct{ Key, Bar, Dim lipgloss.Style }

// New takes the fields of an answer's layout, each clipped to a line.
func New(fs []layout.Field) Model {
	var m Model
	for _, f := range fs {
		row := field{key: textsafe.Clip(f.Key, textsafe.MaxLineBytes), value: textsafe.Clip(f.Value, textsafe.MaxLineBytes)}
		if f.Name == layout.MismatchColumn && f.Node.Kind == '0' {
			row.percent, _ = strconv.ParseFloat(f.Node.Text, 64)
			row.isBar = true
		}
		m.fields = append(m.fields, row)
		m.keyWidth = max(m.keyWidth, textsafe.DisplayWidth(row.key))
	}
	return m
}

func (m *Model) Len() int { return len(m.fields) }

// Lines is how many lines the fields take.
func (m *Model) Lines() int {
	if m.folded {
		return 1
	}
	return len(m.fields)
}

func (m *Model) Folded() bool { return m.folded }

// Fold folds the fields into one line, or not; it reports a change.
func (m *Model) Fold(folded bool) bool {
	folded = folded && len(m.fields) > 1
	if folded == m.folded {
		return false
	}
	m.folded = folded
	return true
}

// Line draws line i of the fields, up to width columns.
func (m *Model) Line(i int, st Styles, width int) string {
	if m.folded {
		return m.foldedLine(st, width)
	}
	f := m.fields[i]
	s := st.Key.Render(textsafe.Fit(f.key, m.keyWidth, false)) + "  " + f.value
	if f.isBar {
		bar := strings.TrimRight(layout.MismatchBar(f.percent), " ")
		s += " " + st.Bar.Render(bar) + "  " + st.Dim.Render("("+layout.MismatchScale+")")
	}
	return s
}

// foldedLine is as many fields as fit in width, and the key to see all.
func (m *Model) foldedLine(st Styles, width int) string {
	hint := st.Dim.Render("  (e shows " + strconv.Itoa(len(m.fields)) + " fields)")
	room := width - textsafe.DisplayWidth(ansi.Strip(hint))
	var b strings.Builder
	drawn := 0
	for i, f := range m.fields {
		if drawn >= room {
			break // the frame cuts the line there: the fields past it cost nothing
		}
		if i > 0 {
			b.WriteString(st.Dim.Render(" · "))
			drawn += 3
		}
		b.WriteString(st.Key.Render(f.key) + " " + f.value)
		drawn += textsafe.DisplayWidth(f.key) + 1 + textsafe.DisplayWidth(f.value)
	}
	return ansi.Truncate(b.String(), room, "…") + hint
}

// Keys are the fields' key: e shows them all, or folds them again.
type Keys struct{ Fields key.Binding }

// NewKeys is e.
func NewKeys() Keys {
	return Keys{Fields: key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "show fields"))}
}

func (k Keys) ShortHelp() []key.Binding  { return []key.Binding{k.Fields} }
func (k Keys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// Keys are k with e enabled on folded or opened fields.
func (m *Model) Keys(k Keys, open bool) Keys {
	k.Fields.SetEnabled(m.folded || open)
	if open {
		k.Fields.SetHelp("e", "fold fields")
	}
	return k
}
