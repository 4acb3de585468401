package ui

import (
	"strconv"

	"charm.land/bubbles/v2/key"
	"github.com/visualq/vq/ui/components/actions"
	"github.com/visualq/vq/ui/components/fields"
	"github.com/visualq/vq/ui/components/image"
	"github.com/visualq/vq/ui/components/keybar"
	tbl "github.com/visualq/vq/ui/components/table"
)

// answerKeys are an answer page's keys, useless ones disabled (hidden from help); alt+esc is a quick double Esc.
type answerKeys struct {
	Up, Down, Focus  key.Binding
	PageUp, PageDown key.Binding
	Top, Bottom      key.Binding
	Back, Rerun      key.Binding
	Raw              key.Binding
	Warnings         key.Binding
	DropMarks        key.Binding
	Write, Batch     key.Binding
	Next, Prev       key.Binding
	Confirm          key.Binding
	acts             actions.Keys
	img              image.Keys
	fields           fields.Keys
	rows             tbl.Keys
	keybar.Keys
}

func newAnswerKeys() answerKeys {
	return answerKeys{
		Up:        key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:      key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		Focus:     key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "data/actions")),
		PageUp:    key.NewBinding(key.WithKeys("pgup", "b"), key.WithHelp("pgup/b", "page up")),
		PageDown:  key.NewBinding(key.WithKeys("pgdown", "f"), key.WithHelp("pgdn/f", "page down")),
		Top:       key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g", "top")),
		Bottom:    key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G", "bottom")),
		Back:      key.NewBinding(key.WithKeys("esc", "alt+esc", "backspace"), key.WithHelp("esc", "back")),
		Rerun:     key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "refresh")),
		Raw:       key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "raw JSON")),
		Warnings:  key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "all warnings")),
		DropMarks: key.NewBinding(key.WithKeys("esc", "alt+esc"), key.WithHelp("esc", "drop marks")),
		Write:     key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "write")),
		Batch:     key.NewBinding(key.WithKeys("A"), key.WithHelp("A", "write the marked rows")),
		Next:      key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "next row")),
		Prev:      key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "previous row")),
		acts:      actions.NewKeys(),
		img:       image.NewKeys(),
		fields:    fields.NewKeys(),
		rows:      tbl.NewKeys(),
		Confirm:   key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "confirm")),
		Keys:      keybar.NewKeys(),
	}
}

// ShortHelp is the help line; the full help says which column s sorts by next.
func (k answerKeys) ShortHelp() []key.Binding {
	sort := k.rows.Sort
	sort.SetHelp("s", "sort")
	return []key.Binding{k.acts.Run, k.Write, k.Next, k.Prev, k.Batch, k.rows.Mark, k.rows.Filter, k.rows.ClearFilter, k.Back,
		k.DropMarks, k.Confirm, k.img.Open, k.img.Image, sort, k.Help, k.Quit}
}

func (k answerKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.Focus, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.acts.Run, k.acts.Number, k.Back, k.Rerun, k.Confirm, k.Write, k.Next, k.Prev},
		{k.rows.Filter, k.rows.ClearFilter, k.rows.Sort, k.rows.Reverse, k.rows.Mark, k.rows.MarkAll, k.DropMarks, k.Batch},
		{k.Raw, k.Warnings, k.fields.Fields, k.img.Open, k.img.Copy, k.img.Image, k.img.Full, k.Help, k.Quit},
	}
}

// keys is the answer's keymap with what does nothing on it disabled.
func (s *answerPage) keys() answerKeys {
	k := s.keymap
	hasActions := len(s.listed) > 0
	k.acts.Number.SetEnabled(hasActions)
	k.Focus.SetEnabled(hasActions && s.lineCount() > 0)
	k.Back.SetEnabled(s.m.chained(s) && s.filter == "")
	k.Confirm.SetEnabled(s.needsConfirm())
	k.img = s.shots.Keys(k.img)
	k.Next.SetEnabled(s.origin != nil)
	k.Prev.SetEnabled(s.origin != nil)
	k.Warnings.SetEnabled(len(s.resp.Warnings) > maxWarnings)
	k.fields = s.data.fields.Keys(k.fields, s.fieldsOpen)
	s.enableRun(&k)
	s.enableTable(&k)
	if tool, ok := s.writeTarget(); ok {
		k.Write.SetHelp("a", verbOf(tool))
	} else {
		k.Write.SetEnabled(false)
	}
	return k
}

// enableRun enables enter where it runs the selected action or row action.
func (s *answerPage) enableRun(k *answerKeys) {
	rows := s.rowMode()
	action := len(s.listed) > 0 && s.focus == focusActions
	row := rows && s.selRow() >= 0 && s.selTable().rowAction() != nil
	k.acts.Run.SetEnabled(action || row)
	if rows && s.focus == focusData {
		k.acts.Run.SetHelp("enter", "inspect")
	}
}

func (s *answerPage) enableTable(k *answerKeys) {
	tables := s.view == viewData && s.data.rows() > 1
	rows := s.rowMode()
	k.rows.Filter.SetEnabled(tables)
	k.rows.ClearFilter.SetEnabled(s.filter != "")
	k.rows.Sort.SetEnabled(tables)
	k.rows.Reverse.SetEnabled(tables)
	if tables {
		k.rows.Sort.SetHelp("s", s.selTable().SortHelp())
	}
	k.rows.Mark.SetEnabled(rows)
	k.rows.MarkAll.SetEnabled(rows)
	marked := 0
	if rows {
		marked = len(s.selTable().Marked)
	}
	k.Batch.SetEnabled(marked > 0)
	if marked > 0 {
		k.Batch.SetHelp("A", s.batchVerb()+" "+strconv.Itoa(marked)+" marked")
	}
	all, _ := s.marks()
	k.DropMarks.SetEnabled(all > 0 && s.filter == "" && !s.m.chained(s))
}

func (s *answerPage) ShortHelp() []key.Binding { return s.keys().ShortHelp() }

func (s *answerPage) FullHelp() [][]key.Binding { return s.keys().FullHelp() }
