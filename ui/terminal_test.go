package ui

import (
	"strings"
	"testing"

	"github.com/visualq/vq/api"
)

// TestBidiAndZeroWidthAreShownNotObeyed: a label that would reverse the
// text after it ("exe.gnp" shown as "png.exe") or hide a character is
// shown with the characters spelled out, on every part of the screen.
func TestBidiAndZeroWidthAreShownNotObeyed(t *testing.T) {
	t.Parallel()
	const evil = "report\u202egnp.exe\u200b"
	const shown = "report<U+202E>gnp.exe<U+200B>"
	s := newServer(t, map[string]func(map[string]any) answer{
		"evil": func(map[string]any) answer {
			r := success("evil", "summary "+evil, []map[string]any{{"scenario": evil, "mismatch": 1}},
				api.NextAction{Label: "label " + evil, Tool: "evil"})
			r["warnings"] = []string{"warning " + evil}
			return answer{200, r}
		},
	})
	m := start(t, s, api.Call{Tool: "evil", Args: map[string]any{}})
	text := screenText(t, m)
	if strings.ContainsAny(text, "\u202e\u200b") {
		t.Errorf("the screen obeys bidi or zero-width characters: %q", text)
	}
	mustContain(t, plainText(m), "summary "+shown, "warning "+shown, "label "+shown, shown)
}
