package ui

import (
	"context"
	"image/color"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// BenchmarkKeyToFrame100k measures one key press on a 100,000-row answer
// with a filter active: Update plus the View the program draws after it.
// Goal: under 5 ms.
func BenchmarkKeyToFrame100k(b *testing.B) {
	s := triageServer(b, 100_000)
	m := start(b, s, failuresCall)
	// Screenshots are fetched, so at 120 columns the selected check's diff is drawn beside the list.
	shot := solidPNG(b, color.RGBA{0xff, 0, 0, 0xff})
	m.fetch = func(context.Context, string, int64) ([]byte, error) { return shot, nil }
	update(m, tea.WindowSizeMsg{Width: 120, Height: 40})
	press(m, "s", "/", "1", "enter") // sorted by mismatch, filtered to the pages with a 1
	keys := []tea.KeyPressMsg{keyMsg("pgdown"), keyMsg("down"), keyMsg("space"), keyMsg("down"), keyMsg("pgup")}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Update(keys[i%len(keys)])
		_ = m.View()
	}
}

// BenchmarkFilterKeystroke100k measures typing one character of a filter
// over 100,000 rows and drawing the frame after it, the query alternately
// growing and shrinking. Goal: under 30 ms.
func BenchmarkFilterKeystroke100k(b *testing.B) {
	s := triageServer(b, 100_000)
	m := start(b, s, failuresCall)
	update(m, tea.WindowSizeMsg{Width: 120, Height: 40})
	press(m, "/", "P", "a", "g", "e", " ", "9") // the lower-cased rows are built here, once
	keys := []tea.KeyPressMsg{keyMsg("9"), keyMsg("backspace")}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Update(keys[i%len(keys)])
		_ = m.View()
	}
}
