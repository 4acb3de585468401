package ui

import (
	"strconv"

	tea "charm.land/bubbletea/v2"
)

// Marks are state the person can see: the foot counts them whenever
// there are any (marksNote), the batch key says what it does to them
// and how many, and nothing drops them without asking (Esc, going
// back).

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

// marks is how many rows are marked on the screen, and how many of them
// the filter hides.
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

// marksNote is the foot's count of the marks, "" without any: "● 12
// marked", "● 12 marked (3 hidden by the filter)".
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

// askDropMarks asks before the screen's marks are dropped: by going back
// (leave), or by Esc on the first screen, which only drops them.
func (s *answerPage) askDropMarks(leave bool) tea.Cmd {
	count, _ := s.marks()
	n := strconv.Itoa(count) + " mark"
	if count != 1 {
		n += "s"
	}
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

// batchVerb is what A does to the marked rows: the verb of the table's
// write, "write" while none is known yet (the first marked row's answer
// will tell).
func (s *answerPage) batchVerb() string {
	if tp := s.selTable().writeAction(); tp != nil {
		return verbOf(tp.action.Tool)
	}
	return "write"
}
