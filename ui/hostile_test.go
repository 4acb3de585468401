package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/textsafe"
)

// hostileCall is the call every hostile answer is the answer to.
var hostileCall = api.Call{Tool: "get_run_failures", Args: map[string]any{"runId": "run_x"}}

// answerJSON is a ToolResponse document: the members given over an ok
// answer with an empty data and one next action, so that the TUI stays.
func answerJSON(t testing.TB, members map[string]any) []byte {
	t.Helper()
	doc := map[string]any{"ok": true, "tool": "get_run_failures", "summary": "hostile", "data": nil, "warnings": []string{},
		"nextActions": []map[string]any{{"label": "Again", "tool": "get_run_failures", "args": map[string]any{"runId": "run_x"}}}}
	for k, v := range members {
		doc[k] = v
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// hostileModel decodes raw as the client does and opens the TUI on it at
// width×height; every call it makes is answered with the same answer.
func hostileModel(t testing.TB, raw []byte, width, height int) *Model {
	t.Helper()
	resp, err := api.DecodeToolResponse(raw)
	if err != nil {
		t.Fatalf("not a ToolResponse: %v", err)
	}
	opts := Options{
		Invoke: func(context.Context, api.Call) (*api.ToolResponse, error) { return resp, nil },
		Getenv: func(string) string { return "" },
		Open:   func(string) error { return nil },
	}
	m := newModel(context.Background(), opts, hostileCall, resp)
	update(m, tea.WindowSizeMsg{Width: width, Height: height})
	return m
}

// checkBounded fails unless the frame fits the terminal: fewer lines than
// its height (the inline frame keeps one free) and none wider.
func checkBounded(t *testing.T, m *Model) string {
	t.Helper()
	text := plainText(m)
	lines := strings.Split(text, "\n")
	if m.height > 1 && len(lines) > m.height-1 {
		t.Errorf("%d lines in a %d-line terminal", len(lines), m.height)
	}
	for i, l := range lines {
		if w := textsafe.DisplayWidth(l); w > m.width {
			t.Errorf("line %d is %d columns wide in a %d-column terminal: %.80q", i, w, m.width, l)
		}
	}
	return text
}

// TestHostileAnswersStayBounded opens the TUI on answers a hostile or
// broken server could send, moves through each with the keys a person
// would press, and checks that nothing panics and every frame fits.
func TestHostileAnswersStayBounded(t *testing.T) {
	t.Parallel()
	wide := make(map[string]any, 100_000)
	for i := range 100_000 {
		wide["column"+strconv.Itoa(i)] = i
	}
	for _, tc := range []struct {
		name  string
		raw   []byte
		shows []string
	}{
		{"numbers outside float64", []byte(`{"ok":true,"tool":"t","summary":"s","warnings":[],
			"data":{"mismatchPercent":1e999,"changed":-1e999,"failures":[
				{"scenarioLabel":"a","mismatchPercent":1e999},{"scenarioLabel":"b","mismatchPercent":1e999},
				{"scenarioLabel":"c","mismatchPercent":-1e999},{"scenarioLabel":"d","mismatchPercent":0}]},
			"nextActions":[{"label":"Inspect a","tool":"get_diff_stats","args":{"scenarioLabel":"a","n":1e999}}]}`),
			[]string{"1e999", "failures (4)"}},
		{"NaN-like strings", answerJSON(t, map[string]any{"data": map[string]any{"mismatchPercent": "NaN", "failures": []map[string]any{
			{"scenarioLabel": "NaN", "mismatchPercent": "NaN"}, {"scenarioLabel": "Inf", "mismatchPercent": "+Inf"},
			{"scenarioLabel": "e", "mismatchPercent": "1e999"}, {"scenarioLabel": "-", "mismatchPercent": "-Infinity"}}}}),
			[]string{"NaN", "+Inf", "-Infinity", "failures (4)"}},
		{"1,000,000 warnings", answerJSON(t, map[string]any{"warnings": numbered("warning ", 1_000_000)}),
			[]string{"⚠ warning: warning 0", "⚠ warning: warning 1", "⚠ +999998 more warnings (w shows them all)"}},
		{"20 MB summary", answerJSON(t, map[string]any{"summary": strings.Repeat("twenty megabytes ", 20<<20/17)}),
			[]string{"twenty megabytes", "…"}},
		{"20 MB word", answerJSON(t, map[string]any{"summary": strings.Repeat("x", 20<<20), "tool": strings.Repeat("t", 20<<20)}),
			[]string{"xxxxxxxx…"}},
		{"100,000 columns", answerJSON(t, map[string]any{"data": map[string]any{"rows": []any{wide, wide, wide}}}),
			[]string{"rows[0].column0"}}, // too wide for a table: fields
		{"100,000 keys in one record", answerJSON(t, map[string]any{"data": wide}),
			[]string{"column0"}},
		{"20 MB cell and field", answerJSON(t, map[string]any{"data": map[string]any{"note": strings.Repeat("n", 20<<20),
			"rows": []map[string]any{{"a": strings.Repeat("c", 20<<20)}, {"a": "short"}}}}),
			[]string{"nnnn", "short"}},
		{"100,000 next actions with 1 MB labels", answerJSON(t, map[string]any{"nextActions": manyActions(100_000, strings.Repeat("l", 1<<20), 3)}),
			[]string{"Next actions", "llll"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := hostileModel(t, tc.raw, 120, 40)
			mustContain(t, checkBounded(t, m), tc.shows...)
			for _, k := range []string{"down", "pgdown", "G", "tab", "down", "s", "s", "/", "1", "enter", "esc", "v", "G", "v", "w", "G", "w", "?"} {
				press(m, k)
				checkBounded(t, m)
			}
		})
	}
}

func numbered(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + strconv.Itoa(i)
	}
	return out
}

// manyActions is n next actions, whose first few have the given long label.
func manyActions(n int, long string, longOnes int) []map[string]any {
	out := make([]map[string]any, n)
	for i := range out {
		label := fmt.Sprint("Action ", i)
		if i < longOnes {
			label = long
		}
		out[i] = map[string]any{"label": label, "tool": "get_diff_stats", "args": map[string]any{"i": i}}
	}
	return out
}

// TestAMillionWarningsFoldAndExpand shows the first warnings with a count
// of the rest, w lists every one in the data pane (scrolled as any other
// content, drawing only the lines in view), and w again goes back.
func TestAMillionWarningsFoldAndExpand(t *testing.T) {
	t.Parallel()
	m := hostileModel(t, answerJSON(t, map[string]any{"warnings": numbered("slow check ", 1_000_000)}), 100, 30)
	text := checkBounded(t, m)
	mustContain(t, text, "⚠ warning: slow check 1", "⚠ +999998 more warnings (w shows them all)")
	if strings.Contains(text, "slow check 2") {
		t.Errorf("a third warning shows before w:\n%s", text)
	}
	press(m, "?")
	mustContain(t, checkBounded(t, m), "w all warnings")
	press(m, "?")

	press(m, "w")
	text = checkBounded(t, m)
	mustContain(t, text, "⚠ slow check 2", "lines 1–", "of 1000000")
	press(m, "G")
	mustContain(t, checkBounded(t, m), "⚠ slow check 999999", "of 1000000")

	press(m, "w")
	text = checkBounded(t, m)
	if strings.Contains(text, "of 1000000") {
		t.Errorf("w did not go back to the data:\n%s", text)
	}
}

// TestFewWarningsHaveNoExpandKey: w is offered only when warnings are
// folded away.
func TestFewWarningsHaveNoExpandKey(t *testing.T) {
	t.Parallel()
	m := hostileModel(t, answerJSON(t, map[string]any{"warnings": numbered("w", maxWarnings)}), 100, 30)
	text := checkBounded(t, m)
	mustContain(t, text, "⚠ warning: w0", "⚠ warning: w2")
	press(m, "?")
	if text := plainText(m); strings.Contains(text, "all warnings") {
		t.Errorf("w is offered with every warning in view:\n%s", text)
	}
}

// TestTableDrawsOnlyTheColumnsInView: a table row is drawn up to the
// terminal's width, whatever its columns hold.
func TestTableDrawsOnlyTheColumnsInView(t *testing.T) {
	t.Parallel()
	wide := make(map[string]any, 32)
	for i := range 32 {
		wide["c"+strconv.Itoa(i)] = strings.Repeat("v", 10_000)
	}
	m := hostileModel(t, answerJSON(t, map[string]any{"data": map[string]any{"rows": []any{wide, wide}}}), 120, 40)
	tb := m.top().data.tables[0]
	if n := len(tb.Line(0, m.styles.table, 120, "")); n > 4*120 {
		t.Errorf("a row of a 120-column frame is %d bytes", n)
	}
	if n := len(tb.Header(m.styles.table, 120, false)); n > 16*120 {
		t.Errorf("a header of a 120-column frame is %d bytes", n)
	}
}
