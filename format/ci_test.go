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
	if err := JUnit(&out, failuresResponse(t)); err != nil {
		t.Fatal(err)
	}
	s := parseJUnit(t, out.Bytes())
	suite := s.Suites[0]
	if s.Tests != 12 || s.Failures != 2 || s.Errors != 0 || suite.Tests != 12 || suite.Failures != 2 || len(suite.Cases) != 12 {
		t.Fatalf("counts: suites %d/%d/%d, suite %d/%d, %d cases; want 12 tests, 2 failures", s.Tests, s.Failures, s.Errors, suite.Tests, suite.Failures, len(suite.Cases))
	}
	first := suite.Cases[0]
	if first.Name != "Homepage [desktop]" || first.Failure == nil || first.Failure.Message != "4.2% of pixels differ" ||
		!strings.Contains(first.Failure.Text, "mismatchPercent: 4.2") {
		t.Errorf("first case = %+v", first)
	}
	last := suite.Cases[11]
	if last.Failure != nil || !strings.Contains(last.Name, "not itemized by the server") {
		t.Errorf("unlisted passing checks must say so: %+v", last)
	}
}

func TestJUnitOfAFailedCallIsOneErroredCase(t *testing.T) {
	t.Parallel()
	r := decodeResponse(t, `{"ok":false,"tool":"get_run_failures","summary":"nope","data":null,"warnings":[],"nextActions":[],
		"error":{"code":"validation_error","message":"runId \"x\" not found"},"recoverable":true}`)
	var out bytes.Buffer
	if err := JUnit(&out, r); err != nil {
		t.Fatal(err)
	}
	s := parseJUnit(t, out.Bytes())
	if s.Tests != 1 || s.Errors != 1 || s.Suites[0].Cases[0].Error == nil || s.Suites[0].Cases[0].Error.Type != "validation_error" {
		t.Fatalf("want one errored case, got %+v", s)
	}
}

func TestJUnitOfDataWithoutChecksIsOnePassingCase(t *testing.T) {
	t.Parallel()
	r := decodeResponse(t, `{"ok":true,"tool":"approve_vrt_results","summary":"approved","data":{"approved":1},"warnings":[],"nextActions":[]}`)
	var out bytes.Buffer
	if err := JUnit(&out, r); err != nil {
		t.Fatal(err)
	}
	if s := parseJUnit(t, out.Bytes()); s.Tests != 1 || s.Failures != 0 || s.Errors != 0 {
		t.Fatalf("want one passing case for the call, got %+v", s)
	}
}

func TestJUnitOfADiffIsOneCase(t *testing.T) {
	t.Parallel()
	r := decodeResponse(t, `{"ok":true,"tool":"get_diff_stats","summary":"s","data":{"runId":"run_abc","scenarioLabel":"Homepage","viewport":"desktop","approved":false,"mismatchPercent":4.2,"threshold":0.1},"warnings":[],"nextActions":[]}`)
	var out bytes.Buffer
	if err := JUnit(&out, r); err != nil {
		t.Fatal(err)
	}
	if s := parseJUnit(t, out.Bytes()); s.Tests != 1 || s.Failures != 1 {
		t.Fatalf("want 1 failing case, got %+v", s)
	}
}

func TestGitHubAnnotationsEscapeWorkflowCommandSyntax(t *testing.T) {
	t.Parallel()
	r := decodeResponse(t, `{"ok":true,"tool":"get_run_failures","summary":"s","data":{"runId":"r","failed":1,"total":1,
		"failures":[{"scenarioLabel":"50%: a, b","viewport":"x\r\n::error::forged","mismatchPercent":3}]},
		"warnings":["line one\nline two 100%\r\u001b[31mred"],"nextActions":[]}`)
	var out bytes.Buffer
	if err := GitHub(&out, r, "", nil); err != nil {
		t.Fatal(err)
	}
	want := "::error title=Visual change%3A 50%25%3A a%2C b [x%0D%0A%3A%3Aerror%3A%3Aforged]::50%25: a, b on x%0D%0A::error::forged changed: 3%25 of pixels differ\n" +
		"::warning title=vq get_run_failures::line one%0Aline two 100%25%0Dred\n"
	if out.String() != want {
		t.Errorf("annotations:\n got %q\nwant %q", out.String(), want)
	}
}

// Counts alone (a CI run's status) are one annotation; it names the command
// that lists the checks only when it knows the run.
func TestGitHubCountsWithoutChecks(t *testing.T) {
	t.Parallel()
	for runID, want := range map[string]string{
		"":      "::error title=vq get_run_status::3 of 12 checks failed (not itemized here)\n",
		"run 1": "::error title=vq get_run_status::3 of 12 checks failed (not itemized here; run vq failures 'run 1')\n",
	} {
		data := `{"status":"failed","failed":3,"total":12}`
		if runID != "" {
			data = `{"runId":"` + runID + `","status":"failed","failed":3,"total":12}`
		}
		var out bytes.Buffer
		if err := GitHub(&out, decodeResponse(t, `{"ok":true,"tool":"get_run_status","summary":"s","data":`+data+`}`), "", nil); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Errorf("run %q:\n got %q\nwant %q", runID, out.String(), want)
		}
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
	if !strings.HasPrefix(string(b), "earlier step\n### ❌ vq get\\_run\\_failures") || !strings.Contains(string(b), "| Homepage | desktop | 4.2% ██████▌ | failed |") {
		t.Errorf("step summary:\n%s", b)
	}
}

func TestMarkdownReport(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	// The next steps are the commands the printer gives (cmd's command
	// table: its own tests hold the lines to the commands).
	front := func(a api.NextAction) (string, bool) {
		return "vq diff run_abc --scenario Homepage --viewport desktop", a.Tool == api.ToolDiffStats
	}
	if err := Markdown(&out, failuresResponse(t), front); err != nil {
		t.Fatal(err)
	}
	want := "### ❌ vq get\\_run\\_failures: 2 of 12 checks failed\n\n" +
		"**Summary:** 2 of 12 checks failed.\n\n" +
		"**Checks:** 2 failed of 12 in run `run_abc`\n\n" +
		"| Scenario | Viewport | Mismatch | Result |\n|---|---|---:|---|\n" +
		"| Homepage | desktop | 4.2% ██████▌ | failed |\n" +
		"| Cart \\| \\*promo\\* | mobile | 0.5% ████▎ | failed |\n\n" +
		"_Mismatch bars: log scale, 0.01% to 100%._\n\n" +
		"_Not itemized by the server: 10 passed, 0 failed._\n\n" +
		"#### Warnings\n\n- baseline is 30 days old\n\n" +
		"#### Next steps\n\n```sh\n# Inspect Homepage desktop\nvq diff run_abc --scenario Homepage --viewport desktop\n```\n"
	if out.String() != want {
		t.Errorf("markdown:\n got %q\nwant %q", out.String(), want)
	}
}

func TestMarkdownEscapesServerText(t *testing.T) {
	t.Parallel()
	r := decodeResponse(t, `{"ok":false,"tool":"x","summary":"# <img src=x> [link](http://evil)","data":{"note":"- 1. item","ratio":"4.2"},
		"warnings":["1. not a list"],"nextActions":[],"error":{"code":"tool_error","message":"a`+"`"+`b"}}`)
	var out bytes.Buffer
	if err := Markdown(&out, r, nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"**Summary:** \\# &lt;img src=x&gt; \\[link\\](http://evil)\n",
		"| note | \\- 1. item |\n",
		"| ratio | 4.2 |\n",
		"- 1\\. not a list\n",
		"**Error** `tool_error`: a\\`b (not recoverable, exit 37)\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q in:\n%s", want, out.String())
		}
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
		{"passed", runStatus(t, "passed", 12, 0), 12, 0, 0, 0, 12, ""},
		{"failed", linkedFailures(t), 12, 2, 0, 0, 12, ""},
		{"error", runStatus(t, "error", 6, 0), 13, 0, 1, 6, 13, "run_error"},
		{"cancelled", runStatus(t, "cancelled", 3, 1), 13, 1, 1, 9, 13, "run_cancelled"},
		{"running", runStatus(t, "running", 3, 0), 13, 0, 0, 10, 13, "skipped"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := JUnit(&out, tc.resp); err != nil {
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
			run := slices.IndexFunc(suite.Cases, func(c parsedCase) bool { return c.Name == "run run_9" })
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

func TestJUnitCarriesTheLinks(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := JUnit(&out, linkedFailures(t)); err != nil {
		t.Fatal(err)
	}
	suite := parseJUnit(t, out.Bytes()).Suites[0]
	if !slices.Contains(suite.Properties, parsedProperty{"url", "http://127.0.0.1:8787/runs/run_9"}) {
		t.Errorf("suite properties %+v lack the run's url", suite.Properties)
	}
	home := suite.Cases[0]
	if home.Name != "Homepage [desktop]" || home.SystemOut != "" ||
		home.Failure == nil || !strings.HasPrefix(home.Failure.Text, "Diff image: http://127.0.0.1:8787/img/home%20page/diff.png\nRun: http://127.0.0.1:8787/runs/run_9\n") {
		t.Errorf("first case %+v", home)
	}
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

func TestGitHubOfEachVerdict(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		resp *api.ToolResponse
		want string
	}{
		{"passed", runStatus(t, "passed", 12, 0), "::notice title=vq get_run_status::run run_9 passed\n"},
		{"error", runStatus(t, "error", 6, 0), "::error title=vq get_run_status::run run_9 ended in error after 6 of 12 checks; 6 did not run%0ARun: http://127.0.0.1:8787/runs/run_9\n"},
		{"cancelled", runStatus(t, "cancelled", 3, 0), "::warning title=vq get_run_status::run run_9 was cancelled after 3 of 12 checks; 9 did not run%0ARun: http://127.0.0.1:8787/runs/run_9\n"},
		{"running", runStatus(t, "running", 3, 0), "::warning title=vq get_run_status::run run_9 has no verdict yet (running, 3 of 12 checks done)%0ARun: http://127.0.0.1:8787/runs/run_9\n"},
		{"failed", linkedFailures(t), "::error title=Visual change%3A Cart [mobile]::Cart on mobile changed: 9.5%25 of pixels differ%0ADiff image: http://127.0.0.1:8787/img/cart/diff.png%0ARun: http://127.0.0.1:8787/runs/run_9\n" +
			"::error title=Visual change%3A Homepage [desktop]::Homepage on desktop changed: 4.2%25 of pixels differ%0ADiff image: http://127.0.0.1:8787/img/home%2520page/diff.png%0ARun: http://127.0.0.1:8787/runs/run_9\n"},
	} {
		var out bytes.Buffer
		if err := GitHub(&out, tc.resp, "", nil); err != nil {
			t.Fatal(err)
		}
		if out.String() != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, out.String(), tc.want)
		}
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
	if err := GitHub(&out, r, path, nil); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != maxAnnotations+1 {
		t.Fatalf("%d lines, want %d errors and one notice:\n%s", len(lines), maxAnnotations, out.String())
	}
	last := 100.0
	for _, line := range lines[:maxAnnotations] {
		m := regexp.MustCompile(`changed: ([0-9.]+)%25 of pixels differ%0ADiff image: https://visualq\.example/\S+%0ARun: https://visualq\.example/runs/run_100k$`).FindStringSubmatch(line)
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
	wantNotice := "::notice title=vq get_run_failures::99990 more errors not annotated (GitHub shows 10 of each per step); all of them: https://visualq.example/runs/run_100k, vq failures run_100k, the job's step summary"
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
	if !strings.HasPrefix(report, "### ❌ vq get\\_run\\_failures: 100000 of 120000 checks failed\n") ||
		strings.Count(report, "![diff of ") != maxInlineImages {
		t.Errorf("step summary starts:\n%.600s", report)
	}
	wantEnd := "|\n\n_Report cut here: GitHub shows 1 MiB of a step's summary. The rest is on [the run's page](https://visualq.example/runs/run_100k) or with `vq failures run_100k`._\n"
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

// Whatever the verdict, the first line of a Markdown report states it.
func TestMarkdownFirstLineStatesTheVerdict(t *testing.T) {
	t.Parallel()
	failedCall := decodeResponse(t, `{"ok":false,"tool":"get_run_failures","summary":"","data":null,"warnings":[],"nextActions":[],
		"error":{"code":"validation_error","message":"no such run"},"recoverable":true}`)
	for _, tc := range []struct {
		resp *api.ToolResponse
		want string
	}{
		{runStatus(t, "passed", 12, 0), "### ✅ vq get\\_run\\_status: 12 checks passed"},
		{linkedFailures(t), "### ❌ vq get\\_run\\_failures: 2 of 12 checks failed"},
		{runStatus(t, "error", 6, 0), "### ❌ vq get\\_run\\_status: run run\\_9 ended in error after 6 of 12 checks; 6 did not run"},
		{runStatus(t, "cancelled", 3, 0), "### ⚠️ vq get\\_run\\_status: run run\\_9 was cancelled after 3 of 12 checks; 9 did not run"},
		{runStatus(t, "queued", 0, 0), "### ⏳ vq get\\_run\\_status: run run\\_9 has no verdict yet (queued, 0 of 12 checks done)"},
		{failedCall, "### ❌ vq get\\_run\\_failures: error `validation_error`"},
	} {
		var out bytes.Buffer
		if err := Markdown(&out, tc.resp, nil); err != nil {
			t.Fatal(err)
		}
		if first, _, _ := strings.Cut(out.String(), "\n"); first != tc.want {
			t.Errorf("first line:\n got %s\nwant %s", first, tc.want)
		}
	}
}

// A report links the run, links every row's diff and shows the largest
// changes' diffs inline, so a pull-request comment shows them.
func TestMarkdownLinksEveryDiff(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := Markdown(&out, linkedFailures(t), nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"**Checks:** 2 failed of 12 in run [`run_9`](http://127.0.0.1:8787/runs/run_9)\n\n" +
			"#### Largest changes\n\n" +
			"**Cart on mobile**: 9.5%\n\n![diff of Cart on mobile](http://127.0.0.1:8787/img/cart/diff.png)\n\n" +
			"**Homepage on desktop**: 4.2%\n\n![diff of Homepage on desktop](http://127.0.0.1:8787/img/home%20page/diff.png)\n\n" +
			"| Scenario | Viewport | Mismatch | Result | Diff |\n|---|---|---:|---|---|\n" +
			"| Homepage | desktop | 4.2% ██████▌ | failed | [diff](http://127.0.0.1:8787/img/home%20page/diff.png) |\n" +
			"| Cart | mobile | 9.5% ███████▌ | failed | [diff](http://127.0.0.1:8787/img/cart/diff.png) |\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing\n%s\nin:\n%s", want, out.String())
		}
	}
}

// A diff address that is no web address is shown as no link at all, and
// the row keeps its cells.
func TestMarkdownLinksOnlyWebAddresses(t *testing.T) {
	t.Parallel()
	r := decodeResponse(t, `{"ok":true,"tool":"get_run_failures","summary":"s","data":{"runId":"r","failed":2,"total":2,"url":"javascript:alert(1)","failures":[
		{"scenarioLabel":"A","viewport":"d","mismatchPercent":1,"diffUrl":"javascript:alert(1)"},
		{"scenarioLabel":"B","viewport":"d","mismatchPercent":2,"diffUrl":"http://127.0.0.1:8787/b|c)d"}]},"warnings":[],"nextActions":[]}`)
	var out bytes.Buffer
	if err := Markdown(&out, r, nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"in run `r`\n",
		"| A | d | 1% █████ | failed | |\n",
		"| B | d | 2% █████▊ | failed | [diff](http://127.0.0.1:8787/b%7Cc%29d) |\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q in:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "javascript") {
		t.Errorf("a javascript: address became a link:\n%s", out.String())
	}
}

// Server text that names a person or a team notifies no one where the
// report is pasted: the @ is followed by an invisible word joiner.
func TestMarkdownNeutralisesMentions(t *testing.T) {
	t.Parallel()
	r := decodeResponse(t, `{"ok":true,"tool":"x","summary":"ping @octocat and @org/team","data":{"owner":"@admin"},"warnings":["cc @oncall"],"nextActions":[]}`)
	var out bytes.Buffer
	if err := Markdown(&out, r, nil); err != nil {
		t.Fatal(err)
	}
	if regexp.MustCompile(`@[A-Za-z0-9]`).MatchString(out.String()) {
		t.Errorf("a mention survives:\n%s", out.String())
	}
	for _, want := range []string{"ping @\u2060octocat and @\u2060org/team", "| owner | @\u2060admin |", "- cc @\u2060oncall"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q in:\n%s", want, out.String())
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
	if err := JUnit(&out, r); err != nil {
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
	if want := []string{"200000 failed checks not itemized by the server", "100000 passed checks not itemized by the server"}; !slices.Equal(names, want) || doc.Cases[0].Failure == nil {
		t.Errorf("cases %q, want %q (the first failed)", names, want)
	}
}
