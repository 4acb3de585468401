package ui

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/visualq/vq/api"
)

// frames splits a live view's output at its redraws (cursor back up) and
// returns each frame as plain text.
func frames(out string) []string {
	var fs []string
	for _, f := range strings.Split(out, "\r"+ansi.CursorUp(2)) {
		fs = append(fs, ansi.Strip(f))
	}
	return fs
}

func TestLiveViewRedrawsInPlaceAndLeavesSummaries(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	p := NewJobProgress(&buf, []string{"job_a", "job_b"}, ProgressOptions{Live: true, Width: 60, Profile: colorprofile.ANSI256, Refresh: time.Hour})
	p.Update(api.JobUpdate{JobID: "job_a", Status: api.JobRunning, HasProgress: true, Current: 1, Total: 4, Message: "Loading \x1b]0;title\x07page"})
	p.Update(api.JobUpdate{JobID: "job_a", Failure: &api.ToolResponse{Error: &api.ToolError{Code: api.CodeHTTPError, Message: "HTTP 502"}}, RetryIn: time.Second})
	final := &api.ToolResponse{OK: false, Error: &api.ToolError{Code: api.CodeProofFailed, Message: "not proven"}}
	p.Update(api.JobUpdate{JobID: "job_b", Status: api.JobFailed, Final: final})
	p.Close()
	p.Update(api.JobUpdate{JobID: "job_a", Status: api.JobCompleted}) // after Close: ignored

	fs := frames(buf.String())
	if len(fs) != 5 { // the first frame, three updates, the last frame
		t.Fatalf("%d frames, want 5:\n%q", len(fs), buf.String())
	}
	want := []string{
		"job_a  ░░░░░░░░░░░░░░░░░░░░░░░░  waiting  0s\njob_b  ░░░░░░░░░░░░░░░░░░░░░░░░  waiting  0s\n",
		"job_a  ██████░░░░░░░░░░░░░░░░░░  running  1/4  Loading page  0s\njob_b  ░░░░░░░░░░░░░░░░░░░░░░░░  waiting  0s\n",
		"job_a  ██████░░░░░░░░░░░░░░░░░░  running  1/4  Loading page  poll failed (http_error), retrying  0s\njob_b  ░░░░░░░░░░░░░░░░░░░░░░░░  waiting  0s\n",
		"job_a  ██████░░░░░░░░░░░░░░░░░░  running  1/4  Loading page  poll failed (http_error), retrying  0s\n✗ job_b failed: proof_failed: not proven (0s)\n",
	}
	for i, w := range want {
		if got := truncateEach(fs[i]); got != truncateEach(w) {
			t.Errorf("frame %d:\n%s\nwant:\n%s", i, got, truncateEach(w))
		}
	}
	if fs[4] != fs[3] {
		t.Errorf("Close changed the last frame:\n%s", fs[4])
	}
}

// truncateEach cuts each line as the view does for a 60-column terminal.
func truncateEach(frame string) string {
	lines := strings.Split(frame, "\n")
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, 59, "…")
	}
	return strings.Join(lines, "\n")
}

func TestPlainLinesOnePerUpdateNoEscapes(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	p := NewJobProgress(&buf, []string{"job_a"}, ProgressOptions{})
	p.Update(api.JobUpdate{JobID: "job_a", Status: api.JobQueued})
	p.Update(api.JobUpdate{JobID: "job_a", Status: api.JobRunning, HasProgress: true, Current: 3, Total: 10, Message: "Comparing\x1b[2J screenshots", Elapsed: 4 * time.Second})
	// The same change again (over MCP: a notification, then a poll).
	p.Update(api.JobUpdate{JobID: "job_a", Status: api.JobRunning, HasProgress: true, Current: 3, Total: 10, Message: "Comparing\x1b[2J screenshots", Elapsed: 5 * time.Second})
	p.Update(api.JobUpdate{JobID: "job_a", Failure: &api.ToolResponse{Error: &api.ToolError{Code: api.CodeHTTPError, Message: "HTTP 502"}}, RetryIn: 1500 * time.Millisecond, Elapsed: 65 * time.Second})
	p.Update(api.JobUpdate{JobID: "job_a", Status: api.JobCompleted, HasProgress: true, Current: 10, Total: 10, Final: &api.ToolResponse{OK: true}, Elapsed: 2 * time.Hour})
	p.Close()
	want := "job_a queued (0s)\n" +
		"job_a running 3/10 Comparing screenshots (4s)\n" +
		"job_a poll failed: http_error: HTTP 502; retrying in 1.5s (1m05s)\n" +
		"job_a completed 10/10 (2h00m)\n"
	if buf.String() != want {
		t.Errorf("got:\n%q\nwant:\n%q", buf.String(), want)
	}
}

// MCP progress may come without a total: it is counted, never shown as
// "3/0" or drawn as an empty bar.
func TestProgressWithoutATotalIsCounted(t *testing.T) {
	t.Parallel()
	var plain bytes.Buffer
	p := NewJobProgress(&plain, []string{"call"}, ProgressOptions{})
	p.Update(api.JobUpdate{JobID: "call", Status: api.JobRunning, HasProgress: true, Current: 3, Message: "pages read", Elapsed: time.Second})
	p.Close()
	if want := "call running 3 so far pages read (1s)\n"; plain.String() != want {
		t.Errorf("plain: got %q, want %q", plain.String(), want)
	}

	var live bytes.Buffer
	p = NewJobProgress(&live, []string{"call"}, ProgressOptions{Live: true, Width: 60, Profile: colorprofile.ANSI256, Refresh: time.Hour})
	p.Update(api.JobUpdate{JobID: "call", Status: api.JobRunning, HasProgress: true, Current: 3})
	p.Close()
	shown := ansi.Strip(live.String())
	if !strings.Contains(shown, "call  running  3 so far  0s") || strings.Contains(shown, "running  ░") {
		t.Errorf("live view: got %q", shown)
	}
}

// While a form has the terminal the live view draws nothing; released, it
// draws afresh below the form instead of moving up over it.
func TestHeldLiveViewDrawsNothingThenAfresh(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	p := NewJobProgress(&buf, []string{"call"}, ProgressOptions{Live: true, Width: 60, Profile: colorprofile.ANSI256, Refresh: time.Hour})
	p.Update(api.JobUpdate{JobID: "call", Status: api.JobRunning, HasProgress: true, Current: 1, Total: 4})
	release := p.Hold()
	before := buf.Len()
	p.Update(api.JobUpdate{JobID: "call", Status: api.JobRunning, HasProgress: true, Current: 2, Total: 4})
	if buf.Len() != before {
		t.Fatalf("a held view drew: %q", buf.String()[before:])
	}
	buf.WriteString("form\n")
	release()
	after := buf.String()[before+len("form\n"):]
	if strings.Contains(after, ansi.CursorUp(1)) || !strings.Contains(ansi.Strip(after), "running  2/4") {
		t.Errorf("released, the view drew %q", after)
	}
	p.Close()

	// A plain view, one line per change, prints none while held.
	var plain bytes.Buffer
	p = NewJobProgress(&plain, []string{"call"}, ProgressOptions{})
	release = p.Hold()
	p.Update(api.JobUpdate{JobID: "call", Status: api.JobRunning, HasProgress: true, Current: 2, Total: 4})
	if plain.Len() != 0 {
		t.Errorf("a held plain view printed %q", plain.String())
	}
	release()
	p.Update(api.JobUpdate{JobID: "call", Status: api.JobRunning, HasProgress: true, Current: 3, Total: 4})
	p.Close()
	if want := "call running 3/4 (0s)\n"; plain.String() != want {
		t.Errorf("released, the plain view printed %q, want %q", plain.String(), want)
	}
}
