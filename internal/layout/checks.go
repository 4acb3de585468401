package layout

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/textsafe"
)

// Check is one visual check (a scenario on a viewport); Fields holds every member sent.
type Check struct {
	Scenario    string
	Viewport    string
	Mismatch    float64 // percent of differing pixels
	HasMismatch bool
	Failed      bool
	// DiffURL (diffUrl or diffImageUrl) is as sent: reports link it only once it is a web address.
	DiffURL string
	Fields  *Node
}

// MismatchText is the mismatch as reports print it ("4.2%"), "" when unknown.
func (c Check) MismatchText() string {
	if !c.HasMismatch {
		return ""
	}
	return strconv.FormatFloat(c.Mismatch, 'f', -1, 64) + "%"
}

// Checks is what a response tells of a run's checks (itemized Listed, Total, Failed), so a report
// can say what it does not know instead of inventing it.
type Checks struct {
	RunID  string
	Total  int
	Failed int
	Listed []Check
	Status string // queued, running, passed, failed, error, cancelled; "" for none
	// Ran is progress.current of RanOf (progress.total), when HasRan.
	Ran, RanOf int
	HasRan     bool
	URL        string
	Reason     string // why the run ended so, as sent
	// Project and Branch are the run's, when the server says them.
	Project, Branch string
	// Unreadable says why the verdict cannot be read (a bad count, a contradicted pass).
	Unreadable string
	Diff       bool // the answer is one check's diff, no run
}

// Verdict is the exit code the checks add up to, the one verdict → exit map:
// error or cancel wins over failures; an unknown or running status is pending.
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

// Summary is the one-line account of a run: "run run_123 failed: 3 of 12 checks changed".
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

// Words is one sentence saying what the checks add up to: "3 of 12 checks failed", "all 12 checks passed".
func (c *Checks) Words() string { return c.Sentence(c.Name()+" ", "failed") }

// Name is how a sentence names the run: "run run_123", or "the run" when it has no id.
func (c *Checks) Name() string {
	if c.RunID != "" {
		return "run " + c.RunID
	}
	return "the run"
}

// Sentence is Words with run naming the run where the sentence needs it ("" when a title names it
// already) and failed the verb for the checks that did not pass ("changed" in CI reports).
func (c *Checks) Sentence(run, failed string) string {
	_, _, notRun := c.Unlisted()
	ran := c.Total - notRun
	progress := ""
	switch {
	case notRun == 0:
	case c.HasRan:
		progress = " after " + strconv.Itoa(ran) + " of " + strconv.Itoa(c.Total) + " checks; " + strconv.Itoa(notRun) + " did not run"
	default:
		progress = "; " + strconv.Itoa(notRun) + " of " + strconv.Itoa(c.Total) + " checks have no result"
	}
	switch c.Verdict() {
	case exitcode.RunError:
		return run + "ended in error" + progress
	case exitcode.RunCancelled:
		return run + "was cancelled" + progress
	case exitcode.Pending:
		if c.Total == 0 {
			return run + "has no verdict yet (" + c.Status + ")"
		}
		return run + "has no verdict yet (" + c.Status + ", " + strconv.Itoa(ran) + " of " + strconv.Itoa(c.Total) + " checks done)"
	case exitcode.RunFailed:
		if c.Failed == 0 {
			return run + "failed"
		}
		return strconv.Itoa(c.Failed) + " of " + strconv.Itoa(c.Total) + " checks " + failed
	case exitcode.NoVerdict:
		return run + "has no verdict vq can read: " + c.Unreadable
	}
	if c.Total == 0 {
		return run + "passed"
	}
	return "all " + strconv.Itoa(c.Total) + " checks passed"
}

// Headline is an answer's first line in words, marked: a run's verdict ("✗ 3 of 12 checks failed"), else
// summary's first line marked by ok ("" for no summary); rest is the summary it leaves unsaid, good its mark.
// l is data laid out (nil if not): a failures table there is counted already.
func Headline(ok bool, summary string, data []byte, m *Members, l *Layout) (line, rest string, good bool) {
	if c, listed := verdictOf(data, m, l); ok && listed && !c.Diff {
		words, v := c.Words(), c.Verdict()
		if !strings.EqualFold(strings.TrimSuffix(strings.TrimSpace(textsafe.Sanitize(summary)), "."), words) {
			rest = summary
		}
		mark := "✗ "
		switch v {
		case exitcode.OK:
			mark = "✓ "
		case exitcode.Pending:
			mark = "… "
		}
		return mark + words, rest, v == exitcode.OK
	}
	if summary == "" {
		return "", "", ok
	}
	line, rest, _ = strings.Cut(summary, "\n")
	if ok {
		return "✓ " + line, rest, true
	}
	return "✗ " + line, rest, false
}

// Complete reports whether the run passed or failed (every counted check ran).
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

// Unlisted are the checks counted but not itemized; of an incomplete run only Ran can have passed.
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

// ChecksOf reads the check results in data or data.result; ok is false for none.
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

// verdictMembers are the members checksIn reads.
var verdictMembers = []string{"runId", "status", "url", "error", "message", "reason", "progress", "total", "failed",
	"failures", "result", "scenarioLabel", "viewport", "mismatchPercent", "threshold", "approved", "diffUrl", "diffImageUrl"}

// verdictOf is ChecksOf for the verdict alone, read from data's members (m, if known): the failures are
// counted, not decoded (by l's table of them if it has one), and other members skipped, so the head of
// a 100k-row answer costs no scan of its rows beyond the table's.
func verdictOf(data []byte, m *Members, l *Layout) (*Checks, bool) {
	if m == nil {
		found := membersOf(data)
		m = &found
	}
	n, failures := &Node{Kind: '{'}, 0
	for i, name := range m.Names {
		v := m.Values[i]
		if !slices.Contains(verdictMembers, name) {
			continue
		}
		if name == "failures" && jsontext.Value(v).Kind() == '[' {
			failures, v = l.objects(v), []byte("[]")
		}
		child, err := ParseNode(v)
		if err != nil {
			return nil, false
		}
		n.Keys, n.Values = append(n.Keys, name), append(n.Values, child)
	}
	c, ok := checksIn(n)
	if !ok {
		if res := n.Get("result"); res != nil && res.Kind == '{' {
			return checksIn(res)
		}
		return c, false
	}
	// Each listed failure counts as a failed check, as listedChecks reads it.
	c.Failed = max(c.Failed, failures)
	c.Total = max(c.Total, c.Failed)
	if c.Unreadable == "" {
		c.Unreadable = c.contradiction(n.Get("error"))
	}
	return c, true
}

// objects is how many objects the valid JSON array list holds: the rows of l's table of these very
// bytes (a table's items are all objects, counted as it was measured), else counted here.
func (l *Layout) objects(list []byte) int {
	for i := 0; l != nil && i < len(l.Tables); i++ {
		if t := l.Tables[i].Records; len(t) == len(list) && &t[0] == &list[0] {
			return l.Tables[i].Count
		}
	}
	dec, n := newDecoder(list), 0
	if _, err := dec.ReadToken(); err != nil {
		return 0
	}
	for dec.PeekKind() != ']' && dec.PeekKind() != 0 {
		if dec.PeekKind() == '{' {
			n++
		}
		if dec.SkipValue() != nil {
			break
		}
	}
	return n
}

// RunOf reads data as a CI run's answer; ok is false without runId and status or with bad counts.
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

func checksIn(n *Node) (*Checks, bool) {
	c := &Checks{RunID: textOf(n.Get("runId")), Status: textOf(n.Get("status")), URL: textOf(n.Get("url")), Reason: reasonOf(n),
		Project: textOf(n.Get("project")), Branch: textOf(n.Get("branch"))}
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
		// {analysed, total} of a readiness lock is no run; a queued run is.
		return c, false
	}
	c.Diff = listed && n.Get("failures") == nil
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

// reasonOf is n's error, error.message, message or reason; "" for none.
func reasonOf(n *Node) string {
	for _, why := range []*Node{n.Get("error"), n.Get("error").Get("message"), n.Get("message"), n.Get("reason")} {
		if why != nil && why.Kind == '"' {
			return why.Text
		}
	}
	return ""
}

// contradiction says how an answer contradicts its pass; "" when it does not.
func (c *Checks) contradiction(e *Node) string {
	switch {
	case c.Status == "passed" && c.Failed > 0:
		return fmt.Sprintf("it says passed and counts %d failed checks", c.Failed)
	case e != nil && e.Kind != 'n' && e.Kind != 'f' && c.Verdict() == exitcode.OK:
		return "it says it passed beside an error"
	}
	return ""
}

// count reads n's member name as a count; a bad one makes the verdict unreadable.
func (c *Checks) count(n *Node, name string) (v int, has bool) {
	v, has, ok := countOf(n.Get(name))
	if !ok && c.Unreadable == "" {
		c.Unreadable = fmt.Sprintf("its %q is no count of checks (a whole number, at least 0)", name)
	}
	return v, has
}

// maxCount caps a count: 1e30 reads as a big count, never a small one.
const maxCount = 1 << 53

// countOf reads n as an integral count (5, 5.0, 1e1); has is false for nil n, ok for no count.
func countOf(n *Node) (v int, has, ok bool) {
	if n == nil {
		return 0, false, true
	}
	f, _ := strconv.ParseFloat(n.Text, 64) // past float64's range: ±Inf
	digits, _, _ := strings.Cut(strings.ToLower(n.Text), "e")
	if n.Kind != '0' || f < 0 || f != math.Trunc(f) || f == 0 && strings.Trim(digits, "-0.") != "" {
		// 1e-400 reads as 0 but is no count either.
		return 0, true, false
	}
	return int(min(f, maxCount)), true, true
}

// listedChecks are n's failures, or n as one diff (failed past its threshold unless approved).
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
