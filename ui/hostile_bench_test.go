package ui

import (
	"context"
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/visualq/vq/api"
)

// hostileBenchAnswers are the large answers of issue 16, as documents.
func hostileBenchAnswers(b *testing.B) map[string][]byte {
	wide := make(map[string]any, 100_000)
	for i := range 100_000 {
		wide["column"+strconv.Itoa(i)] = i
	}
	return map[string][]byte{
		"1M-warnings":      answerJSON(b, map[string]any{"warnings": numbered("warning ", 1_000_000)}),
		"20MB-summary":     answerJSON(b, map[string]any{"summary": strings.Repeat("twenty megabytes ", 20<<20/17)}),
		"100k-columns":     answerJSON(b, map[string]any{"data": map[string]any{"rows": []any{wide, wide, wide}}}),
		"100k-keys-record": answerJSON(b, map[string]any{"data": wide}),
	}
}

// BenchmarkHostileKeyToFrame is one key press and the frame after it on
// each large answer of issue 16, in the data pane and with every warning
// (w) or the raw JSON (v) shown. Goal: the 5 ms of a key press on 100,000
// rows, whatever the answer's size.
func BenchmarkHostileKeyToFrame(b *testing.B) {
	for name, raw := range hostileBenchAnswers(b) {
		for _, pane := range []string{"data", "w", "v"} {
			b.Run(name+"/"+pane, func(b *testing.B) {
				m := hostileModel(b, raw, 120, 40)
				if pane != "data" {
					press(m, pane)
				}
				keys := []tea.KeyPressMsg{keyMsg("pgdown"), keyMsg("down"), keyMsg("pgup"), keyMsg("up")}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					m.Update(keys[i%len(keys)])
					_ = m.View()
				}
			})
		}
	}
}

// BenchmarkHostileFirstFrame is the first frame of each large answer once
// decoded: the model, the terminal's size and the first View. Goal: the
// 100 ms of a first frame on 100,000 rows.
func BenchmarkHostileFirstFrame(b *testing.B) {
	for name, raw := range hostileBenchAnswers(b) {
		b.Run(name, func(b *testing.B) {
			resp, err := api.DecodeToolResponse(raw)
			if err != nil {
				b.Fatal(err)
			}
			opts := Options{Getenv: func(string) string { return "" }}
			b.ResetTimer()
			for b.Loop() {
				m := newModel(context.Background(), opts, hostileCall, resp)
				update(m, tea.WindowSizeMsg{Width: 120, Height: 40})
				_ = m.View()
			}
		})
	}
}
