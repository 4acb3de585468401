package ui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

// BenchmarkKeyToFrame100k measures one key press on a 100,000-row answer:
// Update plus the View the program draws after it. Goal: under 5 ms.
func BenchmarkKeyToFrame100k(b *testing.B) {
	s := triageServer(b, 100_000)
	m := start(b, s, failuresCall)
	update(m, tea.WindowSizeMsg{Width: 120, Height: 40})
	press(m, "tab", "s") // scroll the data, sorted by mismatch
	keys := []tea.KeyPressMsg{keyMsg("pgdown"), keyMsg("down"), keyMsg("down"), keyMsg("pgup")}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Update(keys[i%len(keys)])
		_ = m.View()
	}
}
