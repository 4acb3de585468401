package ui

import (
	"slices"
	"testing"
)

// BenchmarkSortText100k measures the first sort of a text column of
// 100,000 rows (scenarioLabel, "Page 1" to "Page 100000", in natural
// order): the key press that builds the column's order; later ones reuse
// it.
func BenchmarkSortText100k(b *testing.B) {
	s := triageServer(b, 100_000)
	m := start(b, s, failuresCall)
	t := m.top().selTable()
	col := slices.Index(t.t.Columns, "scenarioLabel")
	b.ResetTimer()
	for b.Loop() {
		t.byColumn = nil
		if len(t.ascending(col)) != 100_000 {
			b.Fatal("rows lost")
		}
	}
}
