package format

import (
	"bytes"
	"context"
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/fixture"
	"github.com/visualq/vq/internal/layout"
)

// failuresResponse is get_run_failures as the seed shows it: 2 of 12
// checks failed, only the failures listed.
func failuresResponse(t *testing.T) *api.ToolResponse {
	t.Helper()
	return decodeResponse(t, `{"ok":true,"tool":"get_run_failures","summary":"2 of 12 checks failed.",
		"data":{"runId":"run_abc","failed":2,"total":12,"failures":[
			{"scenarioLabel":"Homepage","viewport":"desktop","mismatchPercent":4.2},
			{"scenarioLabel":"Cart | *promo*","viewport":"mobile","mismatchPercent":0.5}]},
		"warnings":["baseline is 30 days old"],
		"nextActions":[{"label":"Inspect Homepage desktop","tool":"get_diff_stats","args":{"runId":"run_abc","scenarioLabel":"Homepage","viewport":"desktop"}}]}`)
}

// decodeResponse decodes an answer as the client does (raw bytes kept,
// data indexed), so renderers see what they see in production.
func decodeResponse(t *testing.T, body string) *api.ToolResponse {
	t.Helper()
	r, err := api.DecodeToolResponse([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

type parsedSuites struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Errors   int `xml:"errors,attr"`
	Suites   []struct {
		Tests      int              `xml:"tests,attr"`
		Failures   int              `xml:"failures,attr"`
		Errors     int              `xml:"errors,attr"`
		Skipped    int              `xml:"skipped,attr"`
		Properties []parsedProperty `xml:"properties>property"`
		Cases      []parsedCase     `xml:"testcase"`
	} `xml:"testsuite"`
}

type parsedProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type parsedCase struct {
	Name      string `xml:"name,attr"`
	SystemOut string `xml:"system-out"`
	Failure   *struct {
		Message string `xml:"message,attr"`
		Text    string `xml:",chardata"`
	} `xml:"failure"`
	Error *struct {
		Type    string `xml:"type,attr"`
		Message string `xml:"message,attr"`
		Text    string `xml:",chardata"`
	} `xml:"error"`
	Skipped *struct {
		Message string `xml:"message,attr"`
	} `xml:"skipped"`
}

func parseJUnit(t *testing.T, doc []byte) parsedSuites {
	t.Helper()
	var s parsedSuites
	if err := xml.Unmarshal(doc, &s); err != nil {
		t.Fatalf("JUnit output does not parse: %v\n%s", err, doc)
	}
	if len(s.Suites) != 1 {
		t.Fatalf("want one testsuite, got %d", len(s.Suites))
	}
	return s
}

func TestJUnitHasOneCasePerCheckAndHonestCounts(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := JUnit(&out, failuresResponse(t), nil); err != nil {
		t.Fatal(err)
	}
	s := parseJUnit(t, out.Bytes())
	suite := s.Suites[0]
	if s.Tests != 12 || s.Failures != 2 || s.Errors != 0 || suite.Tests != 12 || suite.Failures != 2 || len(suite.Cases) != 3 {
		t.Fatalf("counts: suites %d/%d/%d, suite %d/%d, %d cases; want 12 tests, 2 failures, 3 cases", s.Tests, s.Failures, s.Errors, suite.Tests, suite.Failures, len(suite.Cases))
	}
	first := suite.Cases[0]
	if first.Name != "Homepage [desktop]" || first.Failure == nil || first.Failure.Message != "4.2% of pixels differ" ||
		!strings.Contains(first.Failure.Text, "mismatchPercent: 4.2") {
		t.Errorf("first case = %+v", first)
	}
	last := suite.Cases[2]
	if last.Failure != nil || last.Name != "checks passed, not itemized by the server" {
		t.Errorf("unlisted passing checks must say so: %+v", last)
	}
}

func TestGitHubAppendsTheReportToTheStepSummary(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "summary.md")
	os.WriteFile(path, []byte("earlier step\n"), 0o644)
	var out bytes.Buffer
	if err := Render(context.Background(), &out, &bytes.Buffer{}, failuresResponse(t), Options{Format: "github", Getenv: func(k string) string {
		return map[string]string{"GITHUB_STEP_SUMMARY": path}[k]
	}}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(b), "earlier step\n### ❌ Visual run run\\_abc: 2 of 12 checks changed") || !strings.Contains(string(b), "| Homepage | desktop | 4.2% ██████▌ | failed |") {
		t.Errorf("step summary:\n%s", b)
	}
}

// runStatus is a get_run_status answer as vq wraps it: the CI JSON in data.
func runStatus(t *testing.T, status string, ran, failed int) *api.ToolResponse {
	t.Helper()
	return decodeResponse(t, `{"ok":true,"tool":"get_run_status","summary":"run run_9 `+status+`","data":{"runId":"run_9","status":"`+status+`",
		"progress":{"current":`+itoa(ran)+`,"total":12},"failed":`+itoa(failed)+`,"total":12,"url":"http://127.0.0.1:8787/runs/run_9"},"warnings":[],"nextActions":[]}`)
}

// linkedFailures is get_run_failures with the links a server gives: the
// run's page and a diff image per failure.
func linkedFailures(t *testing.T) *api.ToolResponse {
	t.Helper()
	return decodeResponse(t, `{"ok":true,"tool":"get_run_failures","summary":"2 of 12 checks failed.",
		"data":{"runId":"run_9","failed":2,"total":12,"url":"http://127.0.0.1:8787/runs/run_9","failures":[
			{"scenarioLabel":"Homepage","viewport":"desktop","mismatchPercent":4.2,"diffUrl":"http://127.0.0.1:8787/img/home%20page/diff.png"},
			{"scenarioLabel":"Cart","viewport":"mobile","mismatchPercent":9.5,"diffUrl":"http://127.0.0.1:8787/img/cart/diff.png"}]},
		"warnings":[],"nextActions":[]}`)
}

// A run that ended in error or was cancelled is never a green report: an
// errored case for the run, the checks it got through as they ended, and
// a skipped case per check it did not run. One without a verdict yet
// skips; a passed and a failed run are their checks.
func TestJUnitOfEachVerdict(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                                    string
		resp                                    *api.ToolResponse
		tests, failures, errors, skipped, cases int
		runCase                                 string // the run case's error type, "skipped" or "" for none
	}{
		{"passed", runStatus(t, "passed", 12, 0), 12, 0, 0, 0, 1, ""},
		{"failed", linkedFailures(t), 12, 2, 0, 0, 3, ""},
		{"error", runStatus(t, "error", 6, 0), 13, 0, 1, 6, 8, "run_error"},
		{"cancelled", runStatus(t, "cancelled", 3, 1), 13, 1, 1, 9, 12, "run_cancelled"},
		{"running", runStatus(t, "running", 3, 0), 13, 0, 0, 10, 11, "skipped"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := JUnit(&out, tc.resp, nil); err != nil {
				t.Fatal(err)
			}
			s := parseJUnit(t, out.Bytes())
			suite := s.Suites[0]
			if s.Tests != tc.tests || s.Failures != tc.failures || s.Errors != tc.errors ||
				suite.Tests != tc.tests || suite.Failures != tc.failures || suite.Errors != tc.errors || suite.Skipped != tc.skipped || len(suite.Cases) != tc.cases {
				t.Fatalf("counts %d/%d/%d (suite %d/%d/%d/%d), %d cases; want %d tests, %d failures, %d errors, %d skipped\n%s",
					s.Tests, s.Failures, s.Errors, suite.Tests, suite.Failures, suite.Errors, suite.Skipped, len(suite.Cases),
					tc.tests, tc.failures, tc.errors, tc.skipped, out.String())
			}
			// Counted from the cases themselves, so the attributes cannot
			// disagree with what a publisher lists.
			var failures, errors, skipped int
			for _, c := range suite.Cases {
				failures += count(c.Failure != nil)
				errors += count(c.Error != nil)
				skipped += count(c.Skipped != nil)
			}
			if failures != tc.failures || errors != tc.errors || skipped != tc.skipped {
				t.Errorf("cases: %d failures, %d errors, %d skipped", failures, errors, skipped)
			}
			run := slices.IndexFunc(suite.Cases, func(c parsedCase) bool { return c.Name == "run" })
			switch {
			case tc.runCase == "" && run >= 0:
				t.Errorf("a finished run needs no case of its own: %+v", suite.Cases[run])
			case tc.runCase == "skipped" && (run < 0 || suite.Cases[run].Skipped == nil || !strings.Contains(suite.Cases[run].Skipped.Message, "no verdict yet")):
				t.Errorf("a running run is a skipped case saying so:\n%s", out.String())
			case tc.runCase != "" && tc.runCase != "skipped" && (run < 0 || suite.Cases[run].Error == nil || suite.Cases[run].Error.Type != tc.runCase ||
				!strings.Contains(suite.Cases[run].Error.Text, "Run: http://127.0.0.1:8787/runs/run_9")):
				t.Errorf("want an errored run case of type %s with the run's link:\n%s", tc.runCase, out.String())
			}
		})
	}
}

func count(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Only web addresses become links, written so that no report syntax ends
// them early; anything else is left out rather than made clickable.
func TestWebURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"http://127.0.0.1:8787/a/diff.png":           "http://127.0.0.1:8787/a/diff.png",
		"HTTP://vq.example/a b":                      "http://vq.example/a%20b",
		"http://127.0.0.1:8787/x)](javascript:1)|<>": "http://127.0.0.1:8787/x%29%5D%28javascript:1%29%7C%3C%3E",
		"javascript:alert(1)":                        "",
		"data:image/png;base64,AAAA":                 "",
		"https://github.com@evil.example/":           "",
		"/relative/diff.png":                         "",
		"http://127.0.0.1:8787/\x1b[2J":              "",
		"":                                           "",
	} {
		if got := webURL(in); got != want {
			t.Errorf("webURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWorstFailedKeepsTheLargestInOrder(t *testing.T) {
	t.Parallel()
	var listed []layout.Check
	for i, m := range []float64{3, 9, -1, 9, 1, 12, 0.5} {
		ch := layout.Check{Scenario: itoa(i), Failed: true, Mismatch: m, HasMismatch: m >= 0}
		listed = append(listed, ch)
	}
	listed = append(listed, layout.Check{Scenario: "passed", Mismatch: 50, HasMismatch: true})
	var got []string
	for _, ch := range worstFailed(listed, 4) {
		got = append(got, ch.Scenario)
	}
	if want := []string{"5", "1", "3", "0"}; !slices.Equal(got, want) {
		t.Errorf("worst 4 = %v, want %v (largest first, ties in server order, passed checks never)", got, want)
	}
	if all := worstFailed(listed, 10); len(all) != 7 || all[6].Scenario != "2" {
		t.Errorf("a check without a mismatch comes last: %+v", all)
	}
}

// 100,000 failures give what GitHub shows: the ten worst as errors, one
// notice saying how many more and where, and a step summary under 1 MiB
// that says it was cut, after what an earlier command of the step wrote.
func TestGitHubOf100kFailuresIsBounded(t *testing.T) {
	t.Parallel()
	r, err := api.DecodeToolResponse(fixture.RunFailures(100_000))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "summary.md")
	earlier := strings.Repeat("an earlier command's report\n", 1000)
	if err := os.WriteFile(path, []byte(earlier), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := GitHub(&out, r, path, nil, nil); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != maxAnnotations+1 {
		t.Fatalf("%d lines, want %d errors and one notice:\n%s", len(lines), maxAnnotations, out.String())
	}
	last := 100.0
	for _, line := range lines[:maxAnnotations] {
		m := regexp.MustCompile(`changed: ([0-9.]+)%25 of pixels differ%0ADiff image: http://127\.0\.0\.1:8787/sandbox/runs/run_100k/\S+%0ARun: http://127\.0\.0\.1:8787/sandbox/runs/run_100k$`).FindStringSubmatch(line)
		if !strings.HasPrefix(line, "::error ") || m == nil {
			t.Fatalf("not a linked check annotation: %s", line)
		}
		mismatch, _ := strconv.ParseFloat(m[1], 64)
		if mismatch > last {
			t.Errorf("annotations not worst first: %v after %v", mismatch, last)
		}
		last = mismatch
	}
	if last != 24.9 { // the fixture's mismatches reach 24.9%, far more than ten times
		t.Errorf("the tenth annotation is %v%%, not among the worst", last)
	}
	wantNotice := "::notice title=Visual run run_100k::99990 more errors not annotated (GitHub shows 10 of each per step); all of them: http://127.0.0.1:8787/sandbox/runs/run_100k, vq failures run_100k, the job's step summary"
	if lines[maxAnnotations] != wantNotice {
		t.Errorf("notice:\n got %s\nwant %s", lines[maxAnnotations], wantNotice)
	}

	summary, _ := os.ReadFile(path)
	if len(summary) > stepSummaryLimit || len(summary) < stepSummaryLimit-4<<10 {
		t.Errorf("step summary is %d bytes; want just under %d", len(summary), stepSummaryLimit)
	}
	report := strings.TrimPrefix(string(summary), earlier)
	if len(report) == len(summary) {
		t.Fatal("the earlier content of the step summary is gone")
	}
	if !strings.HasPrefix(report, "### ❌ Visual run run\\_100k: 100000 of 120000 checks changed\n") ||
		strings.Count(report, "![diff of ") != maxInlineImages {
		t.Errorf("step summary starts:\n%.600s", report)
	}
	wantEnd := "|\n\n_Report cut here: GitHub shows 1 MiB of a step's summary. The rest is on [the run's page](http://127.0.0.1:8787/sandbox/runs/run_100k) or with `vq failures run_100k`._\n"
	if !strings.HasSuffix(report, wantEnd) {
		t.Errorf("step summary ends:\n%s", report[len(report)-300:])
	}
}

// A cut inside the next steps' fence goes back to before it, so the note
// after the cut is not read as code.
func TestCutAtLineLeavesNoFenceOpen(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"| a |\n| b":                             "| a |\n",
		"text\n\n````sh\n# x\nvq ```\n":          "text\n\n",
		"text\n```sh\nvq x\n```\nmore\n| partia": "text\n```sh\nvq x\n```\nmore\n",
		"no newline at all":                      "",
	} {
		if got := string(cutAtLine([]byte(in))); got != want {
			t.Errorf("cutAtLine(%q) = %q, want %q", in, got, want)
		}
	}
}

// A few bytes that count many checks without naming them never become a
// case per check: past maxUnnamedCases one case stands for them all.
func TestJUnitOfCountedChecksStaysBounded(t *testing.T) {
	t.Parallel()
	r := &api.ToolResponse{OK: true, Tool: "get_run_failures", Summary: "s",
		Data: []byte(`{"runId":"r","failed":200000,"total":300000}`)}
	var out bytes.Buffer
	if err := JUnit(&out, r, nil); err != nil {
		t.Fatal(err)
	}
	if out.Len() > 64<<10 {
		t.Fatalf("%d bytes of JUnit for a %d-byte answer", out.Len(), len(r.Data))
	}
	var doc struct {
		Cases []struct {
			Name    string    `xml:"name,attr"`
			Failure *struct{} `xml:"failure"`
		} `xml:"testsuite>testcase"`
	}
	if err := xml.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, c := range doc.Cases {
		names = append(names, c.Name)
	}
	if want := []string{"failed checks not itemized by the server", "checks passed, not itemized by the server"}; !slices.Equal(names, want) || doc.Cases[0].Failure == nil {
		t.Errorf("cases %q, want %q (the first failed)", names, want)
	}
}
