package ui

import (
	"context"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// BenchmarkFirstFrame100k measures the first frame after a 100,000-row
// answer arrived: building the model from the decoded response, the
// terminal's size message and the first View. Goal: under 100 ms.
func BenchmarkFirstFrame100k(b *testing.B) {
	s := triageServer(b, 100_000)
	client := s.client()
	first, err := client.Invoke(context.Background(), failuresCall)
	if err != nil {
		b.Fatal(err)
	}
	opts := Options{Invoke: client.Invoke, Getenv: func(string) string { return "" }}
	b.ReportAllocs()
	for b.Loop() {
		m := newModel(context.Background(), opts, failuresCall, first)
		update(m, tea.WindowSizeMsg{Width: 120, Height: 40})
		if m.View().Content == "" {
			b.Fatal("empty first frame")
		}
	}
}
