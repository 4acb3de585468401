package ui

import "strings"

// The selection is a check, not a place: when rows change it stays on the same identity, or
// the nearest after. A row the filter hid is remembered until the person moves.

// selectedBase is the row the filter hid, else the selected row, else -1.
func (s *answerPage) selectedBase() int {
	if len(s.data.sections) == 0 {
		return -1
	}
	if s.hidden >= 0 {
		return s.hidden
	}
	return s.selRow()
}

// reselect puts the selection on or near base after the view changed.
func (s *answerPage) reselect(base int) {
	if base < 0 || len(s.data.sections) == 0 {
		return
	}
	t := s.selTable()
	s.hidden = -1
	if !s.selectNear(t, t, base, func(r int) int { return r }) {
		s.hidden = base
	}
}

// selectNear selects old's row base in t, else the nearest after; exact reports base itself.
func (s *answerPage) selectNear(t, old *table, base int, same func(r int) int) (exact bool) {
	found := -1
	old.Around(base, func(r int) bool {
		if n := same(r); n >= 0 && t.Shows(n) {
			found, exact = n, r == base
			return false
		}
		return true
	})
	if found < 0 {
		s.pos = min(s.pos, max(t.Len()-1, 0))
		return false
	}
	s.pos = t.Position(found)
	return exact
}

// rowIdentity tells rows apart by the values tp takes from them, else all cells.
func rowIdentity(tp *rowTemplate, rows [][]string) func(r int) string {
	if tp == nil || len(tp.fromRow) == 0 {
		return func(r int) string { return strings.Join(rows[r], "\x00") }
	}
	return func(r int) string {
		var b strings.Builder
		for _, a := range tp.fromRow {
			b.WriteString(rows[r][a.col])
			b.WriteByte(0)
		}
		return b.String()
	}
}

// reselectFrom selects old's row, or the nearest, on the answer that refreshes old.
func (s *answerPage) reselectFrom(old *answerPage) {
	base := old.selectedBase()
	if base < 0 || old.sec >= len(old.data.sections) || old.sec >= len(s.data.sections) {
		return
	}
	ot, t := old.selTable(), s.selTable()
	if !t.SameColumns(ot.Table) {
		return
	}
	tp := ot.rowAction()
	identity := rowIdentity(tp, t.Data.Rows)
	rows := make(map[string]int, len(t.Data.Rows))
	for r := range t.Data.Rows {
		if _, dup := rows[identity(r)]; !dup {
			rows[identity(r)] = r
		}
	}
	oldIdentity := rowIdentity(tp, ot.Data.Rows)
	same := func(r int) int {
		if n, ok := rows[oldIdentity(r)]; ok {
			return n
		}
		return -1
	}
	s.hidden = -1
	if !s.selectNear(t, ot, base, same) {
		s.hidden = same(base)
	}
}
