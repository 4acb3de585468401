package ui

import (
	"strconv"

	tea "charm.land/bubbletea/v2"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/layout"
)

// Marks are state the person sees: the foot counts them and nothing drops them without asking.

// mark marks or unmarks the selected row (space) and moves on.
func (s *answerPage) mark() {
	t := s.selTable()
	if r := s.selRow(); r >= 0 {
		if t.Marked[r] {
			delete(t.Marked, r)
		} else {
			t.Marked[r] = true
		}
		s.moveSelection(1)
	}
}

func (s *answerPage) marks() (marked, hidden int) {
	for _, t := range s.data.tables {
		marked += len(t.Marked)
		for r := range t.Marked {
			if !t.Shows(r) {
				hidden++
			}
		}
	}
	return marked, hidden
}

// marksNote is "● 12 marked (3 hidden by the filter)", "" without marks.
func (s *answerPage) marksNote() string {
	marked, hidden := s.marks()
	if marked == 0 || s.m.done {
		return ""
	}
	note := "● " + strconv.Itoa(marked) + " marked"
	if hidden > 0 {
		note += " (" + strconv.Itoa(hidden) + " hidden by the filter)"
	}
	return note
}

// askDropMarks asks before the marks are dropped (leave: going back too).
func (s *answerPage) askDropMarks(leave bool) tea.Cmd {
	count, _ := s.marks()
	n := strconv.Itoa(count) + " " + layout.Plural(count, "mark", "marks")
	question := "Drop the " + n + "?"
	if leave {
		question = "Go back and drop the " + n + "?"
	}
	return s.m.push(newConfirmPage(s.m, question+"\nA batch (A) would act on them; space unmarks one row.",
		func(agreed bool) tea.Cmd {
			if !agreed {
				s.m.status = "marks kept"
				return nil
			}
			for _, t := range s.data.tables {
				clear(t.Marked)
			}
			s.m.status = n + " dropped"
			if leave {
				return s.leave()
			}
			return nil
		}))
}

// batchVerb is what A does to the marked rows, "write" while not known yet.
func (s *answerPage) batchVerb() string {
	if tp := s.selTable().writeAction(); tp != nil {
		return verbOf(tp.action.Tool)
	}
	// None learned yet: the write whose outcome this screen's tool reads (approve, for the failures).
	for _, spec := range api.KnownTools() {
		if spec.Write && spec.Verb != "" && spec.Check != nil && spec.Check.Tool == s.resp.Tool {
			return spec.Verb
		}
	}
	return "write"
}
