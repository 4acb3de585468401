package ui

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/testkit"
	"github.com/visualq/vq/internal/textsafe"
)

// fuzzKeys are the keys a fuzzed session presses, picked by the bytes of
// its input: every binding of the screen, the dialog and the filter.
var fuzzKeys = []string{"up", "down", "pgup", "pgdown", "home", "end", "g", "G", "tab", "enter", "esc", "backspace",
	"1", "2", "r", "/", "s", "S", "v", "w", "space", "*", "A", "a", "y", "n", "p", "o", "c", "?", "x", "i"}

// FuzzView opens the TUI on an arbitrary ToolResponse, resizes it, presses
// a few keys (each call answered with the same response) and draws every
// frame: nothing may panic, and every frame fits the terminal. Every
// screenshot link is answered with one of fuzzImages, picked by the
// link's length: the image bombs among them.
func FuzzView(f *testing.F) {
	seeds := []string{
		`{"ok":true,"tool":"t","summary":"s","data":{"a":1},"warnings":["w"],"nextActions":[{"label":"L","tool":"t","args":{}}]}`,
		`{"ok":false,"tool":"t","summary":"","data":null,"warnings":[],"nextActions":[],"error":{"code":"confirm_required","message":"m"},"recoverable":true}`,
		`{"ok":true,"tool":"t","summary":"s","data":{"mismatchPercent":1e999,"rows":[{"mismatchPercent":1e999},{"mismatchPercent":"NaN"}]},"nextActions":[{"label":"x","tool":"t","args":{"mismatchPercent":1e999}}]}`,
		`{"ok":true,"tool":"t","summary":"\u001b]52;c;eA==\u0007\u202e","data":[{"a":"\u0000"},{"b":2}],"nextActions":[{"label":"","tool":"","args":null}]}`,
		`{"ok":true,"tool":"get_diff_stats","summary":"s","data":{"diffImageUrl":"http://127.0.0.1:1/d.png","baselineImageUrl":"http://127.0.0.1:1/ba.png","testImageUrl":"http://127.0.0.1:1/tes.png"},"nextActions":[{"label":"L","tool":"t","args":{}}]}`,
		`{"ok":true,"tool":"get_diff_stats","summary":"s","data":{"diffImageUrl":"javascript:alert(1)","testImageUrl":"http://127.0.0.1:1/\u001b]52;c;eA==\u0007"},"nextActions":[{"label":"L","tool":"t","args":{}}]}`,
	}
	for _, doc := range []any{failuresAnswer("run_abc", 12), diffAnswer(map[string]any{"runId": "run_abc", "scenarioLabel": "Home"})} {
		raw, err := json.Marshal(doc)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, string(raw))
	}
	for _, s := range seeds {
		f.Add([]byte(s), uint8(80), uint8(24), []byte{1, 9, 16, 23, 9, 24})
		f.Add([]byte(s), uint8(40), uint8(12), []byte{31, 31, 24, 27, 31, 1}) // i, i, y, o, i, down
	}
	images := fuzzImages(f)
	f.Fuzz(func(t *testing.T, raw []byte, width, height uint8, keys []byte) {
		resp, err := api.DecodeToolResponse(raw)
		if err != nil {
			return
		}
		opts := Options{
			Invoke: func(context.Context, api.Call) (*api.ToolResponse, error) { return resp, nil },
			Getenv: func(string) string { return "" },
			Open:   func(string) error { return nil },
			Fetch: func(_ context.Context, link string, _ int64) ([]byte, error) {
				return images[len(link)%len(images)], nil
			},
		}
		m := newModel(context.Background(), opts, api.Call{Tool: "t"}, resp)
		w, h := max(int(width), 1), max(int(height), 1)
		update(m, tea.WindowSizeMsg{Width: w, Height: h})
		fits(t, m, w, h)
		for _, k := range keys[:min(len(keys), 8)] {
			if press(m, fuzzKeys[int(k)%len(fuzzKeys)]) {
				return
			}
			fits(t, m, w, h)
		}
	})
}

// fits fails unless the frame is within width×height, one line kept free.
func fits(t *testing.T, m *Model, width, height int) {
	t.Helper()
	lines := strings.Split(plainText(m), "\n")
	if height > 1 && len(lines) > height-1 {
		t.Fatalf("%d lines in a %d-line terminal", len(lines), height)
	}
	for _, l := range lines {
		if w := textsafe.DisplayWidth(l); w > width {
			t.Fatalf("a %d-column line in a %d-column terminal: %q", w, width, l)
		}
	}
}

// fuzzImages are what FuzzView's screenshot links answer: the bombs of
// issue 29, a picture, and bytes that are no image.
func fuzzImages(f *testing.F) [][]byte {
	return [][]byte{
		testkit.DeclaredPNG(f, 100000, 100000, testkit.PNGRGBA, 8, false),
		testkit.BlankPNG(f, 10000, 10000),
		testkit.DeclaredPNG(f, 6000, 6000, testkit.PNGRGBA, 16, true),
		testPNG(f, 64, 40),
		[]byte("<html>not a png"),
	}
}
