package ui

import (
	"context"
	"reflect"
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/layout"
)

var failuresCall = api.Call{Tool: "get_run_failures", Args: map[string]any{"runId": "run_abc"}}

func TestEnterRunsSelectedActionAndEscGoesBackWithoutCalling(t *testing.T) {
	t.Parallel()
	s := triageServer(t, 3)
	m := start(t, s, failuresCall)

	press(m, "down", "enter")

	calls := s.received()
	if len(calls) != 2 {
		t.Fatalf("server got %d calls, want 2: %+v", len(calls), calls)
	}
	want := received{Tool: "get_diff_stats", Args: map[string]any{"runId": "run_abc", "scenarioLabel": "Page 2", "viewport": "desktop"}}
	if !reflect.DeepEqual(calls[1], want) {
		t.Errorf("chained call = %+v, want %+v", calls[1], want)
	}
	text := plainText(m)
	mustContain(t, text, "run_abc › Inspect Page 2 desktop",
		"✓ Page 2 on desktop: 4200 pixels changed", "changedPixels", "regions (1)", "Approve Page 2 desktop", "[write]")

	press(m, "esc")
	if n := len(s.received()); n != 2 {
		t.Errorf("Esc sent a call: server got %d calls", n)
	}
	text = plainText(m)
	mustContain(t, text, "✗ 3 of 13 checks failed")
	if strings.Contains(text, "›  Inspect") || strings.Contains(text, "run_abc › ") {
		t.Errorf("breadcrumb still shows the popped screen:\n%s", text)
	}
	if m.top().pos != 1 {
		t.Errorf("going back lost the selection: row %d, want 1", m.top().pos)
	}
}

func TestNumberKeyRunsThatAction(t *testing.T) {
	t.Parallel()
	s := triageServer(t, 3)
	m := start(t, s, failuresCall)

	press(m, "j", "j", "enter") // Page 3's diff: 1 approves it, 2 goes back to the failures

	press(m, "2")
	calls := s.received()
	if len(calls) != 3 || calls[2].Tool != "get_run_failures" {
		t.Fatalf("calls = %+v, want get_diff_stats for Page 3, then get_run_failures", calls)
	}
	press(m, "9") // no ninth action: nothing is sent
	if n := len(s.received()); n != 3 {
		t.Errorf("server got %d calls, want 3", n)
	}
}

func TestRerunSendsTheCurrentCallAgainAndReplacesTheScreen(t *testing.T) {
	t.Parallel()
	s := triageServer(t, 2)
	m := start(t, s, failuresCall)
	press(m, "enter", "r")

	calls := s.received()
	if len(calls) != 3 || calls[2].Tool != "get_diff_stats" {
		t.Fatalf("calls = %+v, want the diff sent twice", calls)
	}
	if len(m.stack) != 2 {
		t.Errorf("stack depth %d after r, want 2", len(m.stack))
	}
}

func TestConfirmYesResendsWithConfirm(t *testing.T) {
	t.Parallel()
	s := triageServer(t, 2)
	m := start(t, s, failuresCall)
	press(m, "enter", "1") // into the diff, then its approve action

	if dialogOf(m) == nil {
		t.Fatalf("confirm_required did not open the dialog:\n%s", plainText(m))
	}
	mustContain(t, plainText(m), "Approve 1 check (Page 1, desktop) in run_abc? [y/N]", "The server asks for your consent",
		"approve_vrt_results with confirm: true", `{"runId":"run_abc","scenarioLabel":"Page 1","viewport":"desktop"}`,
		"✗ confirm must be true", "confirm_required · recoverable · vq exits 12")

	press(m, "y")

	calls := s.received()
	if len(calls) != 4 {
		t.Fatalf("server got %d calls, want 4: %+v", len(calls), calls)
	}
	if calls[3].Args["confirm"] != true || calls[3].Tool != "approve_vrt_results" {
		t.Errorf("resend = %+v, want approve_vrt_results with confirm: true", calls[3])
	}
	mustContain(t, plainText(m), "✓ Approved 1 check.")
	press(m, "esc")
	if m.top().resp.Tool != "get_diff_stats" {
		t.Errorf("Esc after the confirmed call went to %s, want the diff (the refusal was replaced)", m.top().resp.Tool)
	}
}

func TestConfirmNoSendsNothing(t *testing.T) {
	t.Parallel()
	s := triageServer(t, 2)
	m := start(t, s, failuresCall)
	press(m, "enter", "1")
	before := len(s.received())

	press(m, "n")

	if n := len(s.received()); n != before {
		t.Errorf("no sent %d calls", n-before)
	}
	text := plainText(m)
	mustContain(t, text, "not sent", "confirm_required · ", " · approve_vrt_results")
	if strings.Contains(text, "[y/N]") {
		t.Errorf("dialog still open:\n%s", text)
	}
	press(m, "c") // reopens
	if dialogOf(m) == nil {
		t.Error("c did not reopen the dialog")
	}
}

func TestFirstAnswerConfirmRequiredOpensTheDialog(t *testing.T) {
	t.Parallel()
	s := triageServer(t, 1)
	m := start(t, s, api.Call{Tool: "approve_vrt_results", Args: map[string]any{"runId": "run_abc"}})
	if !m.top().actionable() || dialogOf(m) == nil {
		t.Fatal("a confirm_required first answer must wait in the dialog")
	}
	press(m, "y")
	calls := s.received()
	if len(calls) != 2 || calls[1].Args["confirm"] != true || calls[1].Args["runId"] != "run_abc" {
		t.Errorf("calls = %+v", calls)
	}
}

func TestRateLimitShowsTheWait(t *testing.T) {
	t.Parallel()
	s := triageServer(t, 1)
	m := start(t, s, api.Call{Tool: "slow_tool", Args: map[string]any{}})
	mustContain(t, plainText(m), "✗ too many calls", "rate_limit · recoverable", "wait 1.5s before calling again", "vq exits 15")
}

func TestResizeRedrawsWithinTheWindow(t *testing.T) {
	t.Parallel()
	s := triageServer(t, 500)
	m := start(t, s, failuresCall)
	for _, size := range []tea.WindowSizeMsg{{Width: 120, Height: 40}, {Width: 80, Height: 24}, {Width: 50, Height: 15}} {
		update(m, size)
		lines := strings.Split(m.View().Content, "\n")
		if len(lines) >= size.Height {
			t.Errorf("%dx%d: frame has %d lines", size.Width, size.Height, len(lines))
		}
		for _, l := range lines {
			if w := ansi.StringWidth(l); w > size.Width {
				t.Errorf("%dx%d: line %d wide: %q", size.Width, size.Height, w, l)
			}
		}
	}
	update(m, tea.WindowSizeMsg{Width: 120, Height: 40})
	if !strings.Contains(plainText(m), "rows 1–") {
		t.Errorf("no scroll position on a long table:\n%s", plainText(m))
	}
}

func TestScrollAndSortOnlyDrawVisibleRows(t *testing.T) {
	t.Parallel()
	s := triageServer(t, 1000)
	m := start(t, s, failuresCall)
	press(m, "G")
	text := plainText(m)
	mustContain(t, text, "Page 1000 ", "of 1000", "Scenario") // sticky header
	if strings.Contains(text, "Page 1      ") {
		t.Errorf("bottom of the table still shows the first row:\n%s", text)
	}

	press(m, "s") // from the bottom: a sort shows its top, the cursor on its first row
	text = plainText(m)
	mustContain(t, text, "Mismatch % ▼", "rows 1–")
	if !strings.Contains(rowOf(text, "›"), "Page 28 ") {
		t.Errorf("the sort left the cursor off its first row:\n%s", text)
	}
	// (i*37)%1000 peaks at 999 for i=27: Page 28 has 9.99%.
	first := rowOf(text, "Page ")
	if !strings.Contains(first, "Page 28 ") || !strings.Contains(first, "9.99 "+strings.TrimRight(layout.MismatchBar(9.99), " ")) {
		t.Errorf("descending sort starts with %q, want Page 28 at 9.99 with its bar", first)
	}
	press(m, "S")
	mustContain(t, plainText(m), "Mismatch % ▲")
	press(m, "s", "g")
	mustContain(t, plainText(m), "Scenario ▲")
	if first := rowOf(plainText(m), "Page "); !strings.Contains(first, "Page 1 ") {
		t.Errorf("sort by label starts with %q, want Page 1", first)
	}
}

func rowOf(text, prefix string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, prefix) {
			return l
		}
	}
	return ""
}

func TestQuitLeavesTheScreenWithoutKeyHelp(t *testing.T) {
	t.Parallel()
	s := triageServer(t, 2)
	m := start(t, s, failuresCall)
	press(m, "enter")
	if !press(m, "q") {
		t.Fatal("q did not quit")
	}
	text := plainText(m)
	mustContain(t, text, "✓ Page 1 on desktop", "Approve Page 1 desktop")
	if strings.Contains(text, "quit") || strings.Contains(text, "›  Approve") {
		t.Errorf("final frame keeps key help or selection:\n%s", text)
	}

	m = start(t, s, failuresCall)
	if !press(m, "ctrl+c") {
		t.Error("ctrl+c did not quit")
	}
}

func TestEscCancelsACallInFlight(t *testing.T) {
	t.Parallel()
	s := triageServer(t, 2)
	m := start(t, s, failuresCall)
	_, cmd := m.Update(keyMsg("enter")) // the call starts but its answer is not fed yet
	if !strings.Contains(plainText(m), "calling get_diff_stats…") {
		t.Errorf("no spinner line while calling:\n%s", plainText(m))
	}
	press(m, "esc")
	drain(m, cmd) // the late answer arrives
	if m.top().resp.Tool != "get_run_failures" || len(m.stack) != 1 {
		t.Errorf("a cancelled call's answer was pushed")
	}
	mustContain(t, plainText(m), "call cancelled")
}

func TestRawJSONToggle(t *testing.T) {
	t.Parallel()
	s := triageServer(t, 2)
	m := start(t, s, failuresCall)
	press(m, "v")
	mustContain(t, plainText(m), `"data": {`, `"failed": 2,`)
	press(m, "G")
	mustContain(t, plainText(m), `"tool": "get_run_failures"`, `"warnings": []`)
	press(m, "v")
	mustContain(t, plainText(m), "Scenario")
}

func TestServerTextIsSanitized(t *testing.T) {
	t.Parallel()
	s := newServer(t, map[string]func(map[string]any) answer{
		"evil": func(map[string]any) answer {
			r := success("evil", "pwn\x1b]0;owned\x07ed\x1b[2J", map[string]any{"note\x1b[31m": "x\x1b]8;;http://e\x07y"},
				api.NextAction{Label: "go\x1b[1A", Tool: "evil"})
			r["warnings"] = []string{"careful\x1b[5m"}
			return answer{200, r}
		},
	})
	m := start(t, s, api.Call{Tool: "evil", Args: map[string]any{}})
	text := screenText(t, m)
	for _, bad := range []string{"\x1b]", "\x1b[2J", "\x1b[1A", "\x1b[5m", "\x07"} {
		if strings.Contains(text, bad) {
			t.Errorf("server control sequence %q reached the screen: %q", bad, text)
		}
	}
	mustContain(t, plainText(m), "pwned", "careful", "note", "xy", "go")
}

func TestStaticScreenIsPrintedWithoutWaiting(t *testing.T) {
	t.Parallel()
	s := newServer(t, map[string]func(map[string]any) answer{
		"frt_find_scenarios": func(map[string]any) answer {
			return answer{200, success("frt_find_scenarios", "2 scenarios found.", []map[string]any{{"id": "frt_1", "name": "Checkout"}, {"id": "frt_2", "name": "Cart"}})}
		},
	})
	call := api.Call{Tool: "frt_find_scenarios", Args: map[string]any{"query": "c"}}
	first, err := s.client().Invoke(context.Background(), call)
	if err != nil {
		t.Fatal(err)
	}
	// Colours forced on (as a terminal would have them), then NoColor.
	forced := func(k string) string { return map[string]string{"CLICOLOR_FORCE": "1", "COLORTERM": "truecolor"}[k] }
	for _, noColor := range []bool{false, true} {
		var out strings.Builder
		last, err := Run(context.Background(), Options{In: failingReader{t}, Out: &out, NoColor: noColor, Getenv: forced}, call, first)
		if err != nil || last != first {
			t.Fatalf("Run = %v, %v", last, err)
		}
		mustContain(t, ansi.Strip(out.String()), "✓ 2 scenarios found.", "frt_2  Cart")
		if colours := strings.Contains(out.String(), "38;2;"); colours == noColor {
			t.Errorf("NoColor %v: colours %v in %q", noColor, colours, out.String())
		}
	}
	// Output that is no terminal gets no escapes at all, NoColor or not.
	var out strings.Builder
	if _, err := Run(context.Background(), Options{In: failingReader{t}, Out: &out, NoColor: true, Getenv: func(string) string { return "" }}, call, first); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "\x1b[") {
		t.Errorf("escapes in output that is no terminal: %q", out.String())
	}
}

type failingReader struct{ t *testing.T }

func (r failingReader) Read([]byte) (int, error) {
	r.t.Error("a screen with nothing to act on read the keyboard")
	return 0, context.Canceled
}

// TestPagingShowsEveryRow pages down a long table and checks that no row
// is hidden under the table header drawn at the top of each page.
func TestPagingShowsEveryRow(t *testing.T) {
	t.Parallel()
	s := triageServer(t, 200)
	m := start(t, s, failuresCall)
	update(m, tea.WindowSizeMsg{Width: 80, Height: 18})
	press(m, "tab")
	seen := map[string]bool{}
	for range 100 {
		for _, l := range strings.Split(plainText(m), "\n") {
			if i := strings.Index(l, "Page "); i >= 0 {
				seen[strings.Fields(l[i:])[1]] = true
			}
		}
		press(m, "f")
	}
	for n := 1; n <= 200; n++ {
		if !seen[strconv.Itoa(n)] {
			t.Fatalf("paging never showed Page %d", n)
		}
	}
}

func TestFullHelpFitsTheFrame(t *testing.T) {
	t.Parallel()
	s := triageServer(t, 3)
	m := start(t, s, failuresCall)
	update(m, tea.WindowSizeMsg{Width: 100, Height: 30})
	press(m, "?")
	lines := strings.Split(m.View().Content, "\n")
	if len(lines) >= 30 {
		t.Errorf("frame has %d lines on a 30-line terminal", len(lines))
	}
	text := plainText(m)
	for _, want := range []string{"page down", "raw JSON", "quit"} {
		if !strings.Contains(text, want) {
			t.Errorf("full help lacks %q:\n%s", want, text)
		}
	}
}
