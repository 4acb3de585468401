package layout

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/visualq/vq/internal/exitcode"
)

// Check is one visual check (a scenario on a viewport) as a response
// describes it. Fields hold every member the server sent, in its order, for
// reports that show the diff summary.
type Check struct {
	Scenario string
	Viewport string
	// Mismatch is the percentage of differing pixels; HasMismatch is false
	// when the server did not say.
	Mismatch    float64
	HasMismatch bool
	Failed      bool
	// DiffURL is the check's diff image (diffUrl, or diffImageUrl as
	// get_diff_stats names it), as the server sent it: reports link it
	// only after checking it is a web address.
	DiffURL string
	Fields  *Node
}

// MismatchText is the mismatch as reports print it ("4.2%"), or "" when the
// server did not say.
func (c Check) MismatchText() string {
	if !c.HasMismatch {
		return ""
	}
	return strconv.FormatFloat(c.Mismatch, 'f', -1, 64) + "%"
}

// Checks is vq's one verdict of a run: what a response tells about its
// checks. The server may list only the failed checks (get_run_failures),
// one check (get_diff_stats) or only counts and a status (a CI run's
// answer): Listed holds what was listed, Total and Failed the counts, so a
// report can say what it does not know instead of inventing it. Verdict
// is what they add up to.
type Checks struct {
	RunID  string
	Total  int
	Failed int
	Listed []Check
	// Status is the run's status where the answer gives one (a CI run:
	// queued, running, passed, failed, error, cancelled); "" otherwise.
	Status string
	// Ran is how many checks the run got through (progress.current) of
	// RanOf (progress.total); HasRan is false when the answer did not say.
	Ran, RanOf int
	HasRan     bool
	// URL is the run's page, as the server sent it.
	URL string
	// Reason is why the run says it ended as it did (its error, or
	// error.message, message or reason), as the server sent it; "" for none.
	Reason string
	// Unreadable says why the answer's verdict cannot be read (a count
	// that is no count, a pass that its counts or an error contradict);
	// "" when it can.
	Unreadable string
}

// Verdict is what the checks add up to as the exit-code row it exits with
// (exitcode.OutcomeOf names its outcome): the one verdict → exit map. An
// error or a cancel wins over failures found first; a run still going, or
// with a status vq does not know, is pending, never passed.
func (c *Checks) Verdict() int {
	switch {
	case c.Unreadable != "":
		return exitcode.NoVerdict
	case c.Status == "error":
		return exitcode.RunError
	case c.Status == "cancelled":
		return exitcode.RunCancelled
	case c.Status == "failed":
		return exitcode.RunFailed
	case c.Status != "" && c.Status != "passed":
		return exitcode.Pending
	case c.Failed > 0:
		return exitcode.RunFailed
	}
	return exitcode.OK
}

// Summary is the one-line account of a run: "run run_123 queued",
// "run run_123 running (3/12)", "run run_123 failed: 3 of 12 checks changed".
func (c *Checks) Summary() string {
	s := "run " + c.RunID + " " + c.Status
	switch {
	case c.Status == "error" && c.Reason == "":
		return "run " + c.RunID + " ended in error (the server gave no reason)"
	case c.Status == "error":
		return "run " + c.RunID + " ended in error: " + c.Reason
	case c.Status == "passed" && c.Total > 0:
		return s + ": " + strconv.Itoa(c.Total) + " checks"
	case c.Status == "failed" && c.Total > 0:
		return s + ": " + strconv.Itoa(c.Failed) + " of " + strconv.Itoa(c.Total) + " checks changed"
	case c.HasRan && c.Verdict() == exitcode.Pending:
		return s + " (" + strconv.Itoa(c.Ran) + "/" + strconv.Itoa(c.RanOf) + ")"
	}
	return s
}

// Complete reports whether every counted check ran: the run passed or
// failed, rather than stopping (error, cancelled) or still going.
func (c *Checks) Complete() bool {
	v := c.Verdict()
	return v == exitcode.OK || v == exitcode.RunFailed
}

// ListedFailed is how many of the listed checks failed.
func (c *Checks) ListedFailed() int {
	n := 0
	for _, ch := range c.Listed {
		if ch.Failed {
			n++
		}
	}
	return n
}

// Unlisted are the checks counted but not itemized: passed ones, failed
// ones the server did not name, and, for a run that is not complete, the
// ones that did not run. Of an incomplete run only the checks it got
// through (Ran) can have passed: without progress none is known to have.
func (c *Checks) Unlisted() (passed, failed, notRun int) {
	failed = max(0, c.Failed-c.ListedFailed())
	known := len(c.Listed) + failed
	rest := max(0, c.Total-known)
	if c.Complete() {
		return rest, failed, 0
	}
	ran := known
	if c.HasRan {
		ran = max(known, min(c.Ran, c.Total))
	}
	passed = ran - known
	return passed, failed, rest - passed
}

// ChecksOf reads the check results in a response's data (or in data.result,
// where a finished job carries them). ok is false when the data holds none.
func ChecksOf(data []byte) (*Checks, bool) {
	n := objectOf(data)
	if n == nil {
		return nil, false
	}
	if c, ok := checksIn(n); ok {
		return c, true
	}
	if res := n.Get("result"); res != nil && res.Kind == '{' {
		if c, ok := checksIn(res); ok {
			return c, true
		}
	}
	return nil, false
}

// RunOf reads data as a CI run's answer (run_vrt, run_perf,
// get_run_status): the checks at its top level. ok is false when data is
// no object naming a runId and a status, or its counts cannot be read
// (Unreadable then says why, or c holds what it lacks).
func RunOf(data []byte) (*Checks, bool) {
	n := objectOf(data)
	if n == nil {
		return &Checks{Unreadable: "it is no JSON object"}, false
	}
	c, _ := checksIn(n)
	return c, c.RunID != "" && c.Status != "" && c.Unreadable == ""
}

func objectOf(data []byte) *Node {
	if n, err := ParseNode(data); err == nil && n.Kind == '{' {
		return n
	}
	return nil
}

// checksIn reads n's checks; ok is false when n holds none.
func checksIn(n *Node) (*Checks, bool) {
	c := &Checks{RunID: textOf(n.Get("runId")), Status: textOf(n.Get("status")), URL: textOf(n.Get("url")), Reason: reasonOf(n)}
	if p := n.Get("progress"); p != nil && p.Kind == '{' {
		if ran, has, ok := countOf(p.Get("current")); ok {
			c.Ran, c.HasRan = ran, has
		}
		c.RanOf, _, _ = countOf(p.Get("total"))
	}
	total, hasTotal := c.count(n, "total")
	failed, hasFailed := c.count(n, "failed")
	var listed bool
	if c.Listed, listed = listedChecks(n); !listed && (!hasTotal || !hasFailed) && (c.RunID == "" || c.Status == "") {
		// Counts alone are check results only when they say how many
		// failed: {analysed, total} of a readiness lock is no run. A run
		// with a status and no counts yet (just queued) is one.
		return c, false
	}
	for _, ch := range c.Listed {
		if ch.Failed {
			c.Failed++
		}
	}
	if hasFailed {
		c.Failed = max(failed, c.Failed)
	}
	c.Total = max(total, c.Failed, len(c.Listed))
	if c.Unreadable == "" {
		c.Unreadable = c.contradiction(n.Get("error"))
	}
	return c, true
}

// reasonOf is why n says its run ended as it did: its error (a string, or
// error.message), message or reason; "" for none.
func reasonOf(n *Node) string {
	for _, why := range []*Node{n.Get("error"), n.Get("error").Get("message"), n.Get("message"), n.Get("reason")} {
		if why != nil && why.Kind == '"' {
			return why.Text
		}
	}
	return ""
}

// contradiction says how an answer contradicts its pass: a status passed
// with failed checks, or a pass beside an error (e); "" when it does not.
func (c *Checks) contradiction(e *Node) string {
	switch {
	case c.Status == "passed" && c.Failed > 0:
		return fmt.Sprintf("it says passed and counts %d failed checks", c.Failed)
	case e != nil && e.Kind != 'n' && e.Kind != 'f' && c.Verdict() == exitcode.OK:
		return "it says it passed beside an error"
	}
	return ""
}

// count reads n's member name as a count of checks; has is false when n
// has none. One that is no count makes the verdict unreadable.
func (c *Checks) count(n *Node, name string) (v int, has bool) {
	v, has, ok := countOf(n.Get(name))
	if !ok && c.Unreadable == "" {
		c.Unreadable = fmt.Sprintf("its %q is no count of checks (a whole number, at least 0)", name)
	}
	return v, has
}

// maxCount is the largest count read as it is: a larger one (1e30, a
// hundred digits) is read as maxCount, a big count, never a small one.
const maxCount = 1 << 53

// countOf reads n as a count: a JSON number in any integral form (5,
// 5.0, 1e1). has is false when n is nil; ok is false when n is present
// but no count (negative, fractional, a string, null, ...).
func countOf(n *Node) (v int, has, ok bool) {
	if n == nil {
		return 0, false, true
	}
	f, _ := strconv.ParseFloat(n.Text, 64) // past float64's range: ±Inf
	digits, _, _ := strings.Cut(strings.ToLower(n.Text), "e")
	if n.Kind != '0' || f < 0 || f != math.Trunc(f) || f == 0 && strings.Trim(digits, "-0.") != "" {
		// A fraction too small for a float64 (1e-400) reads as 0: it
		// is no count either.
		return 0, true, false
	}
	return int(min(f, maxCount)), true, true
}

// listedChecks are the checks n lists: its failures, or n itself when it
// is one check (a diff's answer, failed when past its threshold and not
// approved); ok is false when it lists none.
func listedChecks(n *Node) (listed []Check, ok bool) {
	if failures := n.Get("failures"); failures != nil && failures.Kind == '[' {
		for _, f := range failures.Items {
			if f.Kind == '{' {
				ch := checkOf(f)
				ch.Failed = true
				listed = append(listed, ch)
			}
		}
		return listed, true
	}
	if n.Get("scenarioLabel") == nil || n.Get("viewport") == nil {
		return nil, false
	}
	ch := checkOf(n)
	threshold, _ := floatOf(n.Get("threshold"))
	approved := n.Get("approved")
	ch.Failed = (approved == nil || approved.Kind != 't') && ch.Mismatch > threshold
	return []Check{ch}, true
}

func checkOf(n *Node) Check {
	ch := Check{Scenario: textOf(n.Get("scenarioLabel")), Viewport: textOf(n.Get("viewport")), Fields: n}
	ch.DiffURL = textOf(n.Get("diffUrl"))
	if ch.DiffURL == "" {
		ch.DiffURL = textOf(n.Get("diffImageUrl"))
	}
	ch.Mismatch, ch.HasMismatch = floatOf(n.Get("mismatchPercent"))
	return ch
}

func textOf(n *Node) string {
	if n == nil || !n.IsScalar() {
		return ""
	}
	return n.String()
}

func floatOf(n *Node) (float64, bool) {
	if n == nil || n.Kind != '0' {
		return 0, false
	}
	v, err := strconv.ParseFloat(n.Text, 64)
	return v, err == nil
}
