package ui

import "charm.land/bubbles/v2/key"

// screenKeys are the keys of a response screen. Bindings that do nothing on
// the current screen are disabled, which hides them from the help line too.
type screenKeys struct {
	Up, Down, Focus     key.Binding
	PageUp, PageDown    key.Binding
	Top, Bottom         key.Binding
	Run, RunNumber      key.Binding
	Back, Rerun         key.Binding
	Filter, ClearFilter key.Binding
	Sort, Reverse, Raw  key.Binding
	Warnings            key.Binding
	Mark, MarkAll       key.Binding
	Write, Batch        key.Binding
	Next, Prev          key.Binding
	Open, Copy          key.Binding
	Confirm, Help, Quit key.Binding
	CancelCall          key.Binding
	StopBatch           key.Binding
}

func newScreenKeys() screenKeys {
	return screenKeys{
		Up:          key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:        key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		Focus:       key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "data/actions")),
		PageUp:      key.NewBinding(key.WithKeys("pgup", "b"), key.WithHelp("pgup/b", "page up")),
		PageDown:    key.NewBinding(key.WithKeys("pgdown", "f"), key.WithHelp("pgdn/f", "page down")),
		Top:         key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g", "top")),
		Bottom:      key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G", "bottom")),
		Run:         key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "run")),
		RunNumber:   key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6", "7", "8", "9"), key.WithHelp("1-9", "run #")),
		Back:        key.NewBinding(key.WithKeys("esc", "backspace"), key.WithHelp("esc", "back")),
		Rerun:       key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "refresh")),
		Filter:      key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		ClearFilter: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filter")),
		Sort:        key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "sort column")),
		Reverse:     key.NewBinding(key.WithKeys("S"), key.WithHelp("S", "reverse sort")),
		Raw:         key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "raw JSON")),
		Warnings:    key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "all warnings")),
		Mark:        key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "mark")),
		MarkAll:     key.NewBinding(key.WithKeys("*"), key.WithHelp("*", "mark all shown")),
		Write:       key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "write")),
		Batch:       key.NewBinding(key.WithKeys("A"), key.WithHelp("A", "write marked")),
		Next:        key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "next row")),
		Prev:        key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "previous row")),
		Open:        key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "open diff")),
		Copy:        key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy link")),
		Confirm:     key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "confirm")),
		Help:        key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "more keys")),
		Quit:        key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		CancelCall:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel call")),
		StopBatch:   key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "stop sending")),
	}
}

// ShortHelp is the help line.
func (k screenKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Run, k.Write, k.Next, k.Prev, k.Mark, k.Batch, k.Filter, k.ClearFilter, k.Back,
		k.Confirm, k.Open, k.Sort, k.CancelCall, k.StopBatch, k.Help, k.Quit}
}

// FullHelp is the help shown with ?.
func (k screenKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.Focus, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.Run, k.RunNumber, k.Back, k.Rerun, k.Confirm, k.Write, k.Next, k.Prev},
		{k.Filter, k.ClearFilter, k.Sort, k.Reverse, k.Mark, k.MarkAll, k.Batch},
		{k.Raw, k.Warnings, k.Open, k.Copy, k.CancelCall, k.StopBatch, k.Help, k.Quit},
	}
}

// confirmKeys are the keys of the consent dialog.
type confirmKeys struct {
	Yes, No, Quit key.Binding
}

func newConfirmKeys() confirmKeys {
	return confirmKeys{
		Yes:  key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y", "send with confirm: true")),
		No:   key.NewBinding(key.WithKeys("n", "N", "esc", "enter"), key.WithHelp("n/esc", "don't send")),
		Quit: key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}

// ShortHelp is the dialog's help line.
func (k confirmKeys) ShortHelp() []key.Binding { return []key.Binding{k.Yes, k.No, k.Quit} }

// FullHelp is the same: the dialog has three keys.
func (k confirmKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// filterKeys are the keys while the filter is typed; every other key is
// text.
type filterKeys struct {
	Apply, Clear key.Binding
}

func newFilterKeys() filterKeys {
	return filterKeys{
		Apply: key.NewBinding(key.WithKeys("enter", "down", "tab"), key.WithHelp("enter", "keep filter")),
		Clear: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear")),
	}
}

// ShortHelp is the filter's help line.
func (k filterKeys) ShortHelp() []key.Binding { return []key.Binding{k.Apply, k.Clear} }

// FullHelp is the same: the filter has two keys.
func (k filterKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// loadingKeys are the keys while the first call is out, before there is
// a screen: giving the call up.
type loadingKeys struct {
	Cancel, Quit key.Binding
}

func newLoadingKeys() loadingKeys {
	return loadingKeys{
		Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
		Quit:   key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}

// ShortHelp is the help line while the first call is out.
func (k loadingKeys) ShortHelp() []key.Binding { return []key.Binding{k.Cancel, k.Quit} }

// FullHelp is the same: there are two keys.
func (k loadingKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// questionKeys are the keys a server's question adds to its form's own:
// the two ways of not answering it.
type questionKeys struct {
	Decline, Cancel key.Binding
}

func newQuestionKeys() questionKeys {
	return questionKeys{
		Decline: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "decline")),
		Cancel:  key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "cancel")),
	}
}
