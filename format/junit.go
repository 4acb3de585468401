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
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// JUnit writes a response's checks as JUnit XML, a case per check: counted but unlisted checks say so in
// their names, an unfinished run adds a run case and skips unrun checks (never passing); a failure is an
// errored case, an answer without checks one passing case.
func JUnit(out io.Writer, r *api.ToolResponse) error {
	suite := junitSuite{Name: "vq " + textsafe.SanitizeLine(r.Tool), SystemOut: textsafe.Sanitize(r.Summary)}
	checks, ok := layout.ChecksOf(r.Data)
	switch {
	case ok:
		suite.Cases = checkCases(checks, suite.Name)
		if checks.RunID != "" {
			suite.Name += " " + textsafe.SanitizeLine(checks.RunID)
			suite.Properties = append(suite.Properties, junitProperty{"runId", textsafe.SanitizeLine(checks.RunID)})
		}
		if run := webURL(checks.URL); run != "" {
			suite.Properties = append(suite.Properties, junitProperty{"url", run})
		}
	case r.OK:
		suite.Cases = []junitCase{{Name: textsafe.SanitizeLine(r.Tool), ClassName: "vq"}}
	}
	if !r.OK {
		suite.Cases = append(suite.Cases, junitCase{
			Name: textsafe.SanitizeLine(r.Tool), ClassName: "vq",
			Error: &junitProblem{Message: textsafe.SanitizeLine(r.ErrorMessage()), Type: textsafe.SanitizeLine(r.ErrorCode()), Text: ErrorLine(r)},
		})
	}
	for _, warn := range r.Warnings {
		suite.Properties = append(suite.Properties, junitProperty{"warning", textsafe.SanitizeLine(warn)})
	}
	for _, c := range suite.Cases {
		switch {
		case c.Failure != nil:
			suite.Failures++
		case c.Error != nil:
			suite.Errors++
		case c.Skipped != nil:
			suite.Skipped++
		}
	}
	suite.Tests = len(suite.Cases)
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

func checkCases(c *layout.Checks, class string) []junitCase {
	passed, failed, notRun := c.Unlisted()
	cases := make([]junitCase, 0, len(c.Listed)+min(passed+failed+notRun, 3*maxUnnamedCases)+1)
	run := webURL(c.URL)
	for _, ch := range c.Listed {
		tc := junitCase{Name: textsafe.SanitizeLine(ch.Scenario) + " [" + textsafe.SanitizeLine(ch.Viewport) + "]", ClassName: class}
		diff := webURL(ch.DiffURL)
		if ch.Failed {
			msg := "visual change"
			if ch.HasMismatch {
				msg = ch.MismatchText() + " of pixels differ"
			}
			tc.Failure = &junitProblem{Message: msg, Type: "visual_change", Text: linkLines(diff, run) + diffSummary(ch.Fields)}
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
	cases = appendUnnamed(cases, passed, "passed check", "passed checks", nil, class, "not itemized by the server")
	why := &junitSkipped{Message: "not run: " + textsafe.SanitizeLine(runVerdict(c))}
	cases = appendUnnamed(cases, notRun, "check", "checks", func(tc *junitCase) { tc.Skipped = why }, class, "that did not run")
	return cases
}

// maxUnnamedCases bounds unnamed checks' cases: past it one case stands for all, never 300,000 cases.
const maxUnnamedCases = 1000

// appendUnnamed adds the cases of n unnamed checks ("passed check 3 of 12").
func appendUnnamed(cases []junitCase, n int, one, many string, mark func(*junitCase), class, what string) []junitCase {
	add := func(name string) {
		tc := junitCase{Name: name + " " + what, ClassName: class}
		if mark != nil {
			mark(&tc)
		}
		cases = append(cases, tc)
	}
	if n > maxUnnamedCases {
		add(itoa(n) + " " + many)
		return cases
	}
	for i := range n {
		add(one + " " + itoa(i+1) + " of " + itoa(n))
	}
	return cases
}

// runCase is an unfinished run's case: errored when it ended in error or was cancelled, else skipped.
func runCase(c *layout.Checks, class, run string) (junitCase, bool) {
	name := "run"
	if c.RunID != "" {
		name += " " + textsafe.SanitizeLine(c.RunID)
	}
	tc := junitCase{Name: name, ClassName: class}
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
func WriteJUnitFile(path string, r *api.ToolResponse) error {
	return privatefile.WriteReport(path, func(w io.Writer) error { return JUnit(w, r) })
}
