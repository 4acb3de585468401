package format

import (
	"encoding/xml"
	"io"
	"strings"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/layout"
	"github.com/visualq/vq/internal/privatefile"
	"github.com/visualq/vq/internal/textsafe"
)

// JUnit XML of the Jenkins schema (junit-10.xsd), which Jenkins, GitLab and
// GitHub read: a case holds no properties, so links ride in its body.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Properties junitProperties `xml:"properties,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
	SystemOut  string          `xml:"system-out,omitempty"`
}

// junitProperties marshal themselves: encoding/xml writes an empty "a>b" parent.
type junitProperties []junitProperty

func (p junitProperties) MarshalXML(e *xml.Encoder, start xml.StartElement) error {
	return e.EncodeElement(struct {
		Items []junitProperty `xml:"property"`
	}{p}, start)
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
	checks    int           // how many checks the case stands for (0: one)
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// Saved maps a listed check (its index in the answer's checks) to the file its diff image was saved to.
type Saved map[int]string

// JUnit writes a response's checks as JUnit XML under names that stay the same run after run (no run id, no
// tool name), so a CI server keeps each check's history: a case per listed check, one for the passes the
// server did not list, an unfinished run's case; tests= counts every check. A failure is an errored case,
// an answer without checks one passing case. saved diff images are attached ([[ATTACHMENT|path]]).
func JUnit(out io.Writer, r *api.ToolResponse, saved Saved) error {
	suite := junitSuite{Name: "vq " + textsafe.SanitizeLine(r.Tool), SystemOut: textsafe.Sanitize(r.Summary)}
	errorCase := junitCase{Name: textsafe.SanitizeLine(r.Tool), ClassName: "vq"}
	checks, ok := layout.ChecksOf(r.Data)
	switch {
	case ok:
		suite.Name = checksSuiteName(checks)
		suite.Cases = checkCases(checks, suite.Name, saved)
		errorCase = junitCase{Name: "vq " + textsafe.SanitizeLine(r.ErrorCode()), ClassName: suite.Name}
		if checks.RunID != "" {
			suite.Properties = append(suite.Properties, junitProperty{"runId", textsafe.SanitizeLine(checks.RunID)})
		}
		if run := webURL(checks.URL); run != "" {
			suite.Properties = append(suite.Properties, junitProperty{"url", run})
		}
	case r.OK:
		suite.Cases = []junitCase{{Name: textsafe.SanitizeLine(r.Tool), ClassName: "vq"}}
	}
	if !r.OK {
		errorCase.Error = &junitProblem{Message: textsafe.SanitizeLine(r.ErrorMessage()), Type: textsafe.SanitizeLine(r.ErrorCode()), Text: ErrorLine(r)}
		suite.Cases = append(suite.Cases, errorCase)
	}
	for _, warn := range r.Warnings {
		suite.Properties = append(suite.Properties, junitProperty{"warning", textsafe.SanitizeLine(warn)})
	}
	for _, c := range suite.Cases {
		n := max(c.checks, 1)
		suite.Tests += n
		switch {
		case c.Failure != nil:
			suite.Failures += n
		case c.Error != nil:
			suite.Errors += n
		case c.Skipped != nil:
			suite.Skipped += n
		}
	}
	doc := junitSuites{Name: "vq", Tests: suite.Tests, Failures: suite.Failures, Errors: suite.Errors, Suites: []junitSuite{suite}}
	if _, err := io.WriteString(out, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(out)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(out, "\n")
	return err
}

// checksSuiteName names the checks' suite by project and branch when the answer says them, else a fixed name.
func checksSuiteName(c *layout.Checks) string {
	name := "vq visual checks"
	if c.Project != "" {
		name += " of project " + textsafe.SanitizeLine(c.Project)
	}
	if c.Branch != "" {
		name += " on branch " + textsafe.SanitizeLine(c.Branch)
	}
	return name
}

func checkCases(c *layout.Checks, class string, saved Saved) []junitCase {
	passed, failed, notRun := c.Unlisted()
	cases := make([]junitCase, 0, len(c.Listed)+min(failed+notRun, 2*maxUnnamedCases)+2)
	run := webURL(c.URL)
	for i, ch := range c.Listed {
		tc := junitCase{Name: textsafe.SanitizeLine(ch.Scenario) + " [" + textsafe.SanitizeLine(ch.Viewport) + "]", ClassName: class}
		diff := webURL(ch.DiffURL)
		if ch.Failed {
			msg := "visual change"
			if ch.HasMismatch {
				msg = ch.MismatchText() + " of pixels differ"
			}
			tc.Failure = &junitProblem{Message: msg, Type: "visual_change", Text: linkLines(diff, run) + diffSummary(ch.Fields)}
			if path, ok := saved[i]; ok {
				tc.SystemOut = "[[ATTACHMENT|" + textsafe.SanitizeLine(path) + "]]\n"
			}
		} else {
			tc.SystemOut = linkLines(diff, "")
		}
		cases = append(cases, tc)
	}
	if tc, ok := runCase(c, class, run); ok {
		cases = append(cases, tc)
	}
	cases = appendUnnamed(cases, failed, "failed check", "failed checks", func(tc *junitCase) {
		tc.Failure = &junitProblem{Message: "counted as failed; the server did not name it", Type: "visual_change"}
	}, class, "not itemized by the server")
	if passed > 0 {
		cases = append(cases, junitCase{Name: "checks passed, not itemized by the server", ClassName: class, checks: passed,
			SystemOut: itoa(passed) + " " + layout.Plural(passed, "check", "checks") + " passed; the server listed no more of them\n"})
	}
	why := &junitSkipped{Message: "not run: " + textsafe.SanitizeLine(runVerdict(c))}
	cases = appendUnnamed(cases, notRun, "check", "checks", func(tc *junitCase) { tc.Skipped = why }, class, "that did not run")
	return cases
}

// maxUnnamedCases bounds unnamed checks' cases: past it one case stands for all, never 300,000 cases.
const maxUnnamedCases = 1000

// appendUnnamed adds the cases of n unnamed checks ("failed check 3 of 12").
func appendUnnamed(cases []junitCase, n int, one, many string, mark func(*junitCase), class, what string) []junitCase {
	add := func(name string, checks int) {
		tc := junitCase{Name: name + " " + what, ClassName: class, checks: checks}
		mark(&tc)
		cases = append(cases, tc)
	}
	if n > maxUnnamedCases {
		add(many, n)
		return cases
	}
	for i := range n {
		add(one+" "+itoa(i+1)+" of "+itoa(n), 1)
	}
	return cases
}

// runCase is an unfinished run's case: errored when it ended in error or was cancelled, else skipped.
func runCase(c *layout.Checks, class, run string) (junitCase, bool) {
	tc := junitCase{Name: "run", ClassName: class}
	verdict := textsafe.SanitizeLine(runVerdict(c))
	switch c.Verdict() {
	case exitcode.RunError, exitcode.RunCancelled, exitcode.NoVerdict:
		tc.Error = &junitProblem{Message: verdict, Type: exitcode.CodeOf(c.Verdict()), Text: linkLines("", run)}
	case exitcode.Pending:
		tc.Skipped = &junitSkipped{Message: verdict}
	default:
		return junitCase{}, false
	}
	return tc, true
}

// diffSummary lists a check's fields as "key: value" lines.
func diffSummary(n *layout.Node) string {
	var b strings.Builder
	for i, k := range n.Keys {
		b.WriteString(textsafe.SanitizeLine(k) + ": " + textsafe.SanitizeLine(n.Values[i].String()) + "\n")
	}
	return b.String()
}

// WriteJUnitFile writes r's JUnit report to path (--junit) with privatefile.WriteReport.
func WriteJUnitFile(path string, r *api.ToolResponse, saved Saved) error {
	return privatefile.WriteReport(path, func(w io.Writer) error { return JUnit(w, r, saved) })
}
