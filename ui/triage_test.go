package ui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/layout"
	tbl "github.com/visualq/vq/ui/components/table"
)

// reviewServer is a run whose failures can be approved one by one: the
// failures list leaves approved checks out, as VisualQ's does. Every
// third approval is first refused by the rate limit, and the checks in
// refuse are refused for good.
type reviewServer struct {
	*server
	mu       sync.Mutex
	approved map[string]int // label → approvals carried out
	limited  int
}

func newReviewServer(t *testing.T, n int, refuse map[string]bool) *reviewServer {
	rs := &reviewServer{approved: map[string]int{}}
	rs.server = newServer(t, map[string]func(map[string]any) answer{
		"get_run_failures": func(args map[string]any) answer {
			rs.mu.Lock()
			defer rs.mu.Unlock()
			var failures []map[string]any
			var next []api.NextAction
			for i := range n {
				label := fmt.Sprintf("Page %d", i+1)
				if rs.approved[label] > 0 {
					continue
				}
				failures = append(failures, map[string]any{"scenarioLabel": label, "viewport": "desktop", "mismatchPercent": float64(i%7) + 0.5})
				if len(next) < 5 {
					next = append(next, api.NextAction{Label: "Inspect " + label + " desktop", Tool: "get_diff_stats",
						Args: map[string]any{"runId": "run_abc", "scenarioLabel": label, "viewport": "desktop"}})
				}
			}
			return answer{200, success("get_run_failures", fmt.Sprintf("%d of %d checks failed.", len(failures), n+10),
				map[string]any{"runId": "run_abc", "failed": len(failures), "total": n + 10, "failures": failures}, next...)}
		},
		"get_diff_stats": func(args map[string]any) answer {
			rs.mu.Lock()
			defer rs.mu.Unlock()
			a := diffAnswer(args)
			if rs.approved[fmt.Sprint(args["scenarioLabel"])] > 0 {
				a["nextActions"] = a["nextActions"].([]api.NextAction)[1:]
			}
			return answer{200, a}
		},
		"approve_vrt_results": func(args map[string]any) answer {
			rs.mu.Lock()
			defer rs.mu.Unlock()
			if args["confirm"] != true {
				return answer{400, failure("approve_vrt_results", "confirm_required", "confirm must be true", true)}
			}
			label := fmt.Sprint(args["scenarioLabel"])
			if refuse[label] {
				return answer{422, failure("approve_vrt_results", "validation_error", label+" has no baseline to replace", true)}
			}
			if rs.limited++; rs.limited%3 == 0 {
				r := failure("approve_vrt_results", "rate_limit", "too many calls", true)
				r["retryAfterMs"] = 5
				return answer{429, r}
			}
			rs.approved[label]++
			return answer{200, success("approve_vrt_results", "Approved 1 check in run_abc.", map[string]any{"approved": 1})}
		},
	})
	return rs
}

func (rs *reviewServer) approvals() map[string]int {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	out := map[string]int{}
	for k, v := range rs.approved {
		out[k] = v
	}
	return out
}

func TestRowsGetTheActionTheirTemplateNames(t *testing.T) {
	t.Parallel()
	s := triageServer(t, 40)
	m := start(t, s, failuresCall)
	if !m.top().rowMode() {
		t.Fatalf("a failures table with inspect actions is not selectable:\n%s", plainText(m))
	}
	mustContain(t, plainText(m), "enter inspect")

	// Row 12 has no suggested action of its own: the template gives it one.
	press(m, "G", "k", "k", "enter")
	calls := s.received()
	want := received{Tool: "get_diff_stats", Args: map[string]any{"runId": "run_abc", "scenarioLabel": "Page 38", "viewport": "desktop"}}
	if len(calls) != 2 || fmt.Sprint(calls[1]) != fmt.Sprint(want) {
		t.Fatalf("calls = %+v, want %+v", calls, want)
	}
	mustContain(t, plainText(m), "run_abc › Inspect Page 38 desktop")
}

func TestRowsWithoutATemplateAreNotActionable(t *testing.T) {
	t.Parallel()
	s := newServer(t, map[string]func(map[string]any) answer{
		"frt_find_scenarios": func(map[string]any) answer {
			return answer{200, success("frt_find_scenarios", "2 scenarios found.",
				[]map[string]any{{"id": "frt_1", "name": "Checkout"}, {"id": "frt_2", "name": "Cart"}},
				// Named like no column: a suggestion, not a row template.
				api.NextAction{Label: "Create one", Tool: "create_frt_scenario", Args: map[string]any{"goal": "checkout"}})}
		},
	})
	m := start(t, s, api.Call{Tool: "frt_find_scenarios", Args: map[string]any{"query": "c"}})
	if m.top().data.actionable() {
		t.Fatal("rows got an action from a next action that names none of them")
	}
	text := plainText(m)
	if strings.Contains(text, "inspect") || strings.Contains(text, "mark") || strings.Contains(text, "›  ") {
		t.Errorf("help or rows offer row actions:\n%s", text)
	}
	mustContain(t, text, "› 1  Create one", "enter run")
}

func TestTemplateKeepsArgumentTypesAndDropsServerConsent(t *testing.T) {
	t.Parallel()
	tb := &table{Table: tbl.New("checks", &layout.Table{
		Columns: []string{"id", "attempt"}, Numeric: []bool{false, true}, Rows: [][]string{{"a", "1"}, {"b", "2"}},
	})}
	tb.addTemplates([]api.NextAction{{Tool: "retry", Args: map[string]any{"id": "a", "attempt": float64(1), "confirm": true, "mode": "full"}}}, -1, api.KnownWriteTool)
	if len(tb.templates) != 1 {
		t.Fatalf("templates = %d, want 1", len(tb.templates))
	}
	c := tb.templates[0].call(tb, 1)
	if c.Args["id"] != "b" || c.Args["attempt"] != float64(2) || c.Args["mode"] != "full" {
		t.Errorf("row call = %+v", c.Args)
	}
	if _, ok := c.Args["confirm"]; ok {
		t.Errorf("the server's confirm: true was kept: %+v", c.Args)
	}
}

func TestFilterShowsTheCountAndEscClears(t *testing.T) {
	t.Parallel()
	s := triageServer(t, 350)
	m := start(t, s, failuresCall)
	press(m, "/", "P", "A", "g", "e", " ", "3", "4")
	// Page 34 and Page 340–349: eleven rows, case ignored.
	mustContain(t, plainText(m), "failures (11 of 350)", "11 of 350", "Page 34 ", "Page 347")
	if strings.Contains(plainText(m), "Page 35 ") {
		t.Errorf("the filter shows Page 35:\n%s", plainText(m))
	}
	press(m, "backspace")
	// Page 3, 30–39, 300–350.
	mustContain(t, plainText(m), "failures (62 of 350)")
	press(m, "enter") // keep the filter, back to the rows
	press(m, "enter")
	if calls := s.received(); calls[len(calls)-1].Args["scenarioLabel"] != "Page 3" {
		t.Errorf("enter on the first filtered row sent %+v", calls[len(calls)-1])
	}
	press(m, "esc", "esc")
	mustContain(t, plainText(m), "failures (350)")
	if len(m.stack) != 1 {
		t.Errorf("Esc with a filter went back past the table")
	}
}

func TestMarksAndABatchWithRateLimitsAndARefusal(t *testing.T) {
	t.Parallel()
	rs := newReviewServer(t, 30, map[string]bool{"Page 12": true})
	// The batch sends through the sender of a single call, which waits
	// rate limits out: this one retries, as vq's does.
	m := startWith(t, api.New(api.Options{BaseURL: rs.server.URL, APIKey: "test-key"}), failuresCall)
	press(m, "/", "p", "a", "g", "e", " ", "1")
	press(m, "enter") // 11 rows: Page 1, 10–19
	press(m, "*")
	press(m, "esc") // the filter goes, the marks stay
	press(m, "G", "space")
	if got := len(m.top().selTable().Marked); got != 12 {
		t.Fatalf("%d rows marked, want 12 (the filter's 11 and Page 30)", got)
	}
	press(m, "A")
	if dialogOf(m) == nil {
		t.Fatalf("A opened no batch dialog:\n%s", plainText(m))
	}
	mustContain(t, plainText(m), "Approve 12 checks? [y/N]", "Page 1 desktop", "… and 9 more",
		"approve_vrt_results ×12, each with confirm: true")
	press(m, "y")

	approvals := rs.approvals()
	if len(approvals) != 11 || approvals["Page 12"] != 0 || approvals["Page 30"] != 1 {
		t.Errorf("approved %v, want the 12 marked rows but Page 12", approvals)
	}
	for label, n := range approvals {
		if n != 1 {
			t.Errorf("%s approved %d times", label, n)
		}
	}
	text := plainText(m)
	mustContain(t, text, "Approved 11 checks; 1 refused", "refused Page 12 desktop: validation_error: Page 12 has no baseline",
		"✗ 19 of 40 checks failed")
	if strings.Contains(text, "Page 13 ") {
		t.Errorf("the refreshed list still shows an approved check:\n%s", text)
	}
	if marked := m.top().selTable().Marked; len(marked) != 1 {
		t.Errorf("after the batch %d rows are marked, want Page 12 alone", len(marked))
	}
	if got := m.exitAnswer(); got.ErrorCode() != api.CodeValidation {
		t.Errorf("the session exits with %s %q; one of its writes was refused", got.Tool, got.ErrorCode())
	}
}

// A write the person sent that failed keeps the session from exiting 0,
// though the screen they quit on answered ok; the same write answered ok
// later clears it.
func TestAFailedWriteIsTheSessionsExit(t *testing.T) {
	t.Parallel()
	refuse := map[string]bool{"Page 2": true}
	rs := newReviewServer(t, 6, refuse)
	m := start(t, rs.server, failuresCall)
	press(m, "j", "enter", "a", "y") // Page 2's diff, approved: refused
	mustContain(t, plainText(m), "✗ validation_error: Page 2 has no baseline")
	if got := m.exitAnswer(); got.Tool != api.ToolApprove || got.ErrorCode() != api.CodeValidation {
		t.Fatalf("the session exits with %s %q on an ok diff after a refused approval", got.Tool, got.ErrorCode())
	}
	rs.mu.Lock()
	refuse["Page 2"] = false
	rs.mu.Unlock()
	press(m, "a", "y")
	mustContain(t, plainText(m), "✓ Approved 1 check in run_abc.")
	if got := m.exitAnswer(); !got.OK {
		t.Errorf("the session exits with %s %q after the write went through", got.Tool, got.ErrorCode())
	}
}

func TestStoppedBatchSendsNothingMoreAndSaysWhat(t *testing.T) {
	t.Parallel()
	s := triageServer(t, 20)
	m := start(t, s, failuresCall)
	press(m, "enter", "esc") // learn the approve template from a diff
	press(m, "*", "A")
	_, cmd := m.Update(keyMsg("y")) // the batch page opens; its calls go from cmd
	batchOf(m).stop()               // before any answer is read: ctrl+c
	drain(m, cmd)
	text := plainText(m)
	mustContain(t, text, "Approved ")
	if !strings.Contains(text, "not sent") && !strings.Contains(text, "Approved 20 checks") {
		t.Errorf("no summary of what was not sent:\n%s", text)
	}
}

func TestApproveFromTheDiffRefreshesAndEscShowsItApproved(t *testing.T) {
	t.Parallel()
	rs := newReviewServer(t, 6, nil)
	m := start(t, rs.server, failuresCall)
	press(m, "j", "enter") // Page 2
	press(m, "a")
	mustContain(t, plainText(m), "Approve 1 check (Page 2, desktop) in run_abc? [y/N]", "approve_vrt_results with confirm: true", `"scenarioLabel":"Page 2"`)
	press(m, "y")
	if rs.approvals()["Page 2"] != 1 {
		t.Fatalf("approvals = %v", rs.approvals())
	}
	text := plainText(m)
	mustContain(t, text, "✓ Approved 1 check in run_abc.", "Back to the failures")
	if strings.Contains(text, "Approve Page 2") {
		t.Errorf("the diff was not refreshed after its approval:\n%s", text)
	}
	before := len(rs.received())
	press(m, "esc")
	if len(rs.received()) != before+1 || rs.received()[before].Tool != "get_run_failures" {
		t.Errorf("returning to the stale failures did not fetch them again")
	}
	mustContain(t, plainText(m), "failures (5)", "Page 3 ")
	if strings.Contains(plainText(m), "Page 2 ") {
		t.Errorf("Esc shows the approved check as failing:\n%s", plainText(m))
	}
}

func TestNextAndPreviousStepThroughTheTable(t *testing.T) {
	t.Parallel()
	s := triageServer(t, 10)
	m := start(t, s, failuresCall)
	press(m, "S")           // ascending mismatch: Page 1, 2, 3…
	press(m, "j", "enter")  // Page 2
	press(m, "n", "n", "p") // Page 3, Page 4, back to Page 3
	calls := s.received()
	var labels []any
	for _, c := range calls[1:] {
		labels = append(labels, c.Args["scenarioLabel"])
	}
	if fmt.Sprint(labels) != "[Page 2 Page 3 Page 4 Page 3]" {
		t.Errorf("diffs opened for %v", labels)
	}
	if len(m.stack) != 2 {
		t.Errorf("n/p pushed screens: depth %d", len(m.stack))
	}
	mustContain(t, plainText(m), "run_abc › Inspect Page 3 desktop")
	press(m, "esc")
	if m.top().selRow() != 2 {
		t.Errorf("back on the table the selection is row %d, want Page 3's", m.top().selRow())
	}
}

func TestServerConsentInAnActionStillAsks(t *testing.T) {
	t.Parallel()
	s := triageServer(t, 1)
	m := start(t, s, failuresCall)
	m.top().resp.NextActions = []api.NextAction{{Label: "Approve all", Tool: "approve_vrt_results",
		Args: map[string]any{"runId": "run_abc", "confirm": true}}}
	m.top().listed = m.top().resp.NextActions
	press(m, "tab", "enter")
	calls := s.received()
	if last := calls[len(calls)-1]; last.Args["confirm"] != nil {
		t.Errorf("the server's confirm: true was sent: %+v", last)
	}
	if dialogOf(m) == nil {
		t.Errorf("no consent dialog:\n%s", plainText(m))
	}
}

func TestLongWarningListsCollapse(t *testing.T) {
	t.Parallel()
	s := newServer(t, map[string]func(map[string]any) answer{
		"noisy": func(map[string]any) answer {
			r := success("noisy", "done", nil, api.NextAction{Label: "again", Tool: "noisy"})
			r["warnings"] = []string{"w1", "w2", "w3", "w4", "w5", "w6"}
			return answer{200, r}
		},
	})
	m := start(t, s, api.Call{Tool: "noisy", Args: map[string]any{}})
	text := plainText(m)
	mustContain(t, text, "warning: w1", "warning: w2", "+4 more warnings")
	if strings.Contains(text, "w3") {
		t.Errorf("warnings not collapsed:\n%s", text)
	}
}

func TestDiffPreviewInHalfBlocksWithoutAnImageProtocol(t *testing.T) {
	t.Parallel()
	s := triageServer(t, 2)
	png := testPNG(t, 64, 40)
	client := s.client()
	first, _ := client.Invoke(t.Context(), failuresCall)
	m := newModel(t.Context(), Options{Invoke: client.Invoke, Getenv: func(k string) string { return map[string]string{"TMUX": "1"}[k] },
		Fetch: func(_ context.Context, link string, _ int64) ([]byte, error) { return png, nil }}, failuresCall, first)
	update(m, tea.WindowSizeMsg{Width: 120, Height: 40})
	press(m, "enter")
	content := m.View().Content
	if !strings.Contains(content, "▀") || !strings.Contains(content, "38;2;") {
		t.Errorf("no half-block preview:\n%s", plainText(m))
	}
	mustContain(t, plainText(m), "baseline", "test", "diff", "http://vq.test/images/run_abc/Page 1/diff.png")
}

// selectedLabel is the scenario of the selected row.
func selectedLabel(m *Model) string {
	a := m.top()
	t := a.selTable()
	if a.selRow() < 0 {
		return ""
	}
	return t.Data.Rows[a.selRow()][slices.Index(t.Data.Columns, "scenarioLabel")]
}

// The selection is a check: approving the rows above it and filtering
// it out and back keep it on the same check; a sort shows its top.
func TestTheCursorFollowsItsCheck(t *testing.T) {
	t.Parallel()
	rs := newReviewServer(t, 30, nil)
	// The batch's calls wait its rate limits out, as vq's sender does.
	m := startWith(t, api.New(api.Options{BaseURL: rs.server.URL, APIKey: "test-key"}), failuresCall)
	press(m, "j", "j", "j", "j", "j", "enter", "esc") // Page 6's diff teaches the approve action
	press(m, "g", "space", "space", "space", "j", "j")
	if got := selectedLabel(m); got != "Page 6" {
		t.Fatalf("selected %q, want Page 6", got)
	}
	press(m, "A", "y") // approves Pages 1–3; the list is fetched again
	mustContain(t, plainText(m), "Approved 3 checks", "✗ 27 of 40 checks failed")
	if got := selectedLabel(m); got != "Page 6" {
		t.Errorf("after approving the rows above it the selection is on %q, want Page 6", got)
	}
	press(m, "/", "P", "a", "g", "e", " ", "1")
	if got := selectedLabel(m); got != "Page 10" {
		t.Errorf("with Page 6 filtered out the selection is on %q, want the nearest after it, Page 10", got)
	}
	press(m, "enter", "esc") // keep the filter, then clear it
	if got := selectedLabel(m); got != "Page 6" {
		t.Errorf("clearing the filter left the selection on %q, want Page 6 again", got)
	}
	press(m, "s")
	if pos := m.top().pos; pos != 0 {
		t.Errorf("after a sort the cursor is on row %d, want the first", pos)
	}
	mustContain(t, plainText(m), "› ", "rows 1–")
}

// Marks are state the person sees: the foot counts them, filtered or
// not, the batch key says what it does to how many, and Esc asks before
// it drops them.
func TestMarksAreStateYouCanSee(t *testing.T) {
	t.Parallel()
	rs := newReviewServer(t, 30, nil)
	m := start(t, rs.server, failuresCall)
	press(m, "enter", "esc") // the diff teaches the approve action
	press(m, "space", "space", "space")
	mustContain(t, plainText(m), "● 3 marked", "A approve 3 marked")
	press(m, "/", "P", "a", "g", "e", " ", "2", "enter")
	mustContain(t, plainText(m), "● 3 marked (2 hidden by the filter)")
	press(m, "esc") // clears the filter, keeps the marks
	mustContain(t, plainText(m), "● 3 marked")
	if strings.Contains(plainText(m), "hidden by the filter") {
		t.Errorf("no filter, yet marks hidden:\n%s", plainText(m))
	}

	press(m, "esc")
	mustContain(t, plainText(m), "Drop the 3 marks? [y/N]")
	press(m, "n")
	mustContain(t, plainText(m), "● 3 marked · marks kept")
	press(m, "esc", "y")
	text := plainText(m)
	mustContain(t, text, "3 marks dropped")
	if strings.Contains(text, "● ") || len(m.top().selTable().Marked) != 0 {
		t.Errorf("the marks stayed:\n%s", text)
	}

	press(m, "enter", "2", "space") // a diff, its failures again above it, a mark there
	before := len(m.answers())
	press(m, "esc")
	mustContain(t, plainText(m), "Go back and drop the 1 mark? [y/N]")
	press(m, "y")
	if len(m.answers()) != before-1 || m.top().resp.Tool != "get_diff_stats" {
		t.Errorf("yes did not go back to the diff: %d screens, %s on top", len(m.answers()), m.top().resp.Tool)
	}
}

// At 80×24 a long table keeps ten rows or more in view: the fields above
// it fold into one line, which e opens and folds again.
func TestTenRowsAt80x24(t *testing.T) {
	t.Parallel()
	m := start(t, triageServer(t, 350), failuresCall)
	text := plainText(m)
	mustContain(t, text, "failed 350 · runId run_abc · total 360  (e shows 3 fields)", "rows 1–")
	if n := strings.Count(text, " desktop"); n < 10 {
		t.Errorf("80×24 shows %d rows, want 10 or more:\n%s", n, text)
	}
	press(m, "e")
	text = plainText(m)
	mustContain(t, text, "runId   run_abc", "total   360")
	if strings.Contains(text, "e shows") {
		t.Errorf("e did not open the fields:\n%s", text)
	}
	update(m, tea.WindowSizeMsg{Width: 100, Height: 30}) // the full help's last column fits
	press(m, "?")
	mustContain(t, plainText(m), "fold fields")
	press(m, "?", "e")
	mustContain(t, plainText(m), "(e shows 3 fields)")
	// A short table needs no room: its fields stay as they are.
	m = start(t, triageServer(t, 3), failuresCall)
	mustContain(t, plainText(m), "runId   run_abc")
}

// Esc twice in quick succession reaches vq as one alt+esc: in the
// filter it clears it as Esc does.
func TestEscTwiceInTheFilterClearsIt(t *testing.T) {
	t.Parallel()
	m := start(t, triageServer(t, 30), failuresCall)
	press(m, "/", "P", "a", "g", "e", " ", "1")
	mustContain(t, plainText(m), "failures (11 of 30)")
	update(m, tea.KeyPressMsg{Code: tea.KeyEscape, Mod: tea.ModAlt})
	text := plainText(m)
	mustContain(t, text, "failures (30)")
	if _, typing := m.front().(*filterPage); typing || m.top().filter != "" {
		t.Errorf("alt+esc left the filter open:\n%s", text)
	}
}
