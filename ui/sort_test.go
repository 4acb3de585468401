package ui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/visualq/vq/api"
)

// checkoutsServer answers a failures table whose first column is text:
// Checkout 1 to 12 on desktop, in the server's own order.
func checkoutsServer(t *testing.T) *server {
	order := []int{10, 2, 12, 1, 11, 3, 4, 5, 6, 7, 8, 9}
	var rows []string
	for _, n := range order {
		rows = append(rows, `{"scenarioLabel":"Checkout `+itoa(n)+`","viewport":"desktop","mismatchPercent":`+itoa(n)+`.5}`)
	}
	data := json.RawMessage(`{"runId":"run_abc","failures":[` + strings.Join(rows, ",") + `]}`)
	return newServer(t, map[string]func(map[string]any) answer{
		"get_run_failures": func(map[string]any) answer {
			return answer{200, success("get_run_failures", "12 failed.", data, api.NextAction{Label: "Inspect Checkout 10 desktop", Tool: "get_diff_stats",
				Args: map[string]any{"runId": "run_abc", "scenarioLabel": "Checkout 10", "viewport": "desktop"}})}
		},
	})
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// The first s sorts the first column, text in natural order; S reverses,
// and with no sort sorts the other way; the arrow never touches the next
// column's name, and the full help says what s does next.
func TestSortingAsPeopleExpect(t *testing.T) {
	t.Parallel()
	m := start(t, checkoutsServer(t), failuresCall)
	press(m, "?")
	mustContain(t, plainText(m), "sort: Scenario", "reverse sort")
	press(m, "?", "s")
	text := plainText(m)
	mustContain(t, text, "Scenario ▲   Viewport")
	if got := labels(text); got != "1 2 3 4 5 6 7 8 9 10 11 12" {
		t.Errorf("s sorted the labels %s, want 1 to 12 in natural order", got)
	}
	press(m, "S")
	if got := labels(plainText(m)); !strings.HasPrefix(got, "12 11 10 9") {
		t.Errorf("S after s sorted %s, want 12 11 10 …", got)
	}
	press(m, "s", "s", "s")
	mustContain(t, plainText(m), "Scenario     Viewport") // the server's order again, no arrow
	if got := labels(plainText(m)); !strings.HasPrefix(got, "10 2 12 1") {
		t.Errorf("three more s gave %s, want the server's order back", got)
	}
	press(m, "S")
	if got := labels(plainText(m)); !strings.HasPrefix(got, "12 11 10") {
		t.Errorf("S with no sort gave %s, want the first column reversed", got)
	}
}

// labels are the Checkout numbers of the rows on screen, in order.
func labels(text string) string {
	var n []string
	for _, l := range strings.Split(text, "\n") {
		if _, rest, ok := strings.Cut(l, "Checkout "); ok && !strings.Contains(l, "Inspect") {
			n = append(n, strings.Fields(rest)[0])
		}
	}
	return strings.Join(n, " ")
}
