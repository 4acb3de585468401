package format

import (
	"encoding/xml"
	"io"
	"strings"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/layout"
	"github.com/visualq/vq/internal/textsafe"
)

// JUnit XML (the shape Jenkins, GitLab and the JUnit publishers read).
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
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

// junitProperties are a <properties> element. They marshal themselves
// because encoding/xml writes the parent of an empty "a>b" slice anyway.
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
	Name       string          `xml:"name,attr"`
	ClassName  string          `xml:"classname,attr"`
	Properties junitProperties `xml:"properties,omitempty"`
	Skipped    *junitSkipped   `xml:"skipped,omitempty"`
	Failure    *junitProblem   `xml:"failure,omitempty"`
	Error      *junitProblem   `xml:"error,omitempty"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// JUnit writes the check results of a response as JUnit XML: one test case
// per check. Where the server counted checks without listing them, the
// cases say so in their names rather than inventing scenarios. A run that
// ended in error or was cancelled adds an errored case for the run, and a
// run without a verdict yet a skipped one; the checks such a run did not
// get to are skipped cases, never passing ones. A failed response becomes
// one errored case, and an answer without check results one passing case
// for the call.
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
		// An answer without checks (an approval, a scenario) is one passing
		// case for the call: the report stays valid, and the call — which
		// may have written — is never mistaken for a usage error.
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
	doc := junitSuites{Name: "vq", Tests: suite.Tests, Failures: suite.Failures, Errors: suite.Errors, Skipped: suite.Skipped, Suites: []junitSuite{suite}}
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
	cases := make([]junitCase, 0, len(c.Listed)+passed+failed+notRun+1)
	run := webURL(c.URL)
	for _, ch := range c.Listed {
		tc := junitCase{Name: textsafe.SanitizeLine(ch.Scenario) + " [" + textsafe.SanitizeLine(ch.Viewport) + "]", ClassName: class}
		diff := webURL(ch.DiffURL)
		if diff != "" {
			tc.Properties = junitProperties{{"diffUrl", diff}}
		}
		if ch.Failed {
			msg := "visual change"
			if ch.HasMismatch {
				msg = ch.MismatchText() + " of pixels differ"
			}
			tc.Failure = &junitProblem{Message: msg, Type: "visual_change", Text: linkLines(diff, run) + diffSummary(ch.Fields)}
		}
		cases = append(cases, tc)
	}
	if tc, ok := runCase(c, class, run); ok {
		cases = append(cases, tc)
	}
	for i := range failed {
		cases = append(cases, junitCase{
			Name:      "failed check " + itoa(i+1) + " of " + itoa(failed) + " not itemized by the server",
			ClassName: class,
			Failure:   &junitProblem{Message: "counted as failed; the server did not name it", Type: "visual_change"},
		})
	}
	for i := range passed {
		cases = append(cases, junitCase{
			Name:      "passed check " + itoa(i+1) + " of " + itoa(passed) + " not itemized by the server",
			ClassName: class,
		})
	}
	why := &junitSkipped{Message: "not run: " + textsafe.SanitizeLine(runVerdict(c))}
	for i := range notRun {
		cases = append(cases, junitCase{
			Name:      "check " + itoa(i+1) + " of " + itoa(notRun) + " that did not run",
			ClassName: class,
			Skipped:   why,
		})
	}
	return cases
}

// runCase is the case of a run that did not finish: errored when it ended
// in error or was cancelled (its checks have no verdict, and the exit code
// fails the job too), skipped while it has no verdict yet, its body the
// run's page (run, as webURL made it). A finished run needs none: its
// checks are its cases.
func runCase(c *layout.Checks, class, run string) (junitCase, bool) {
	name := "run"
	if c.RunID != "" {
		name += " " + textsafe.SanitizeLine(c.RunID)
	}
	tc := junitCase{Name: name, ClassName: class}
	verdict := textsafe.SanitizeLine(runVerdict(c))
	switch c.Verdict() {
	case layout.VerdictError:
		tc.Error = &junitProblem{Message: verdict, Type: "run_error", Text: linkLines("", run)}
	case layout.VerdictCancelled:
		tc.Error = &junitProblem{Message: verdict, Type: "run_cancelled", Text: linkLines("", run)}
	case layout.VerdictPending:
		tc.Skipped = &junitSkipped{Message: verdict}
	default:
		return junitCase{}, false
	}
	return tc, true
}

// diffSummary lists a check's fields as "key: value" lines, in the
// server's order.
func diffSummary(n *layout.Node) string {
	var b strings.Builder
	for i, k := range n.Keys {
		b.WriteString(textsafe.SanitizeLine(k) + ": " + textsafe.SanitizeLine(n.Values[i].String()) + "\n")
	}
	return b.String()
}
