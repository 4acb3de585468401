package format

import (
	"bytes"
	"context"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/visualq/vq/api"
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
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Errors   int `xml:"errors,attr"`
		Cases    []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Error *struct {
				Type string `xml:"type,attr"`
			} `xml:"error"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
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
	r := decodeResponse(t, `{"ok":true,"tool":"get_run_failures","summary":"s","data":{"runId":"r","failed":1,"total":1,
		"failures":[{"scenarioLabel":"50%: a, b","viewport":"x\r\n::error::forged","mismatchPercent":3}]},
		"warnings":["line one\nline two 100%\r\u001b[31mred"],"nextActions":[]}`)
	var out bytes.Buffer
	if err := GitHub(&out, r, ""); err != nil {
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
	for runID, want := range map[string]string{
		"":      "::error title=vq get_run_status::3 of 12 checks failed (not itemized here)\n",
		"run 1": "::error title=vq get_run_status::3 of 12 checks failed (not itemized here; run vq failures 'run 1')\n",
	} {
		data := `{"status":"failed","failed":3,"total":12}`
		if runID != "" {
			data = `{"runId":"` + runID + `","status":"failed","failed":3,"total":12}`
		}
		var out bytes.Buffer
		if err := GitHub(&out, decodeResponse(t, `{"ok":true,"tool":"get_run_status","summary":"s","data":`+data+`}`), ""); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Errorf("run %q:\n got %q\nwant %q", runID, out.String(), want)
		}
	}
}

func TestGitHubAppendsTheReportToTheStepSummary(t *testing.T) {
	path := filepath.Join(t.TempDir(), "summary.md")
	os.WriteFile(path, []byte("earlier step\n"), 0o644)
	var out bytes.Buffer
	if err := Render(context.Background(), &out, &bytes.Buffer{}, failuresResponse(t), Options{Format: "github", Getenv: func(k string) string {
		return map[string]string{"GITHUB_STEP_SUMMARY": path}[k]
	}}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(b), "earlier step\n### ❌ vq get\\_run\\_failures") || !strings.Contains(string(b), "| Homepage | desktop | 4.2% | failed |") {
		t.Errorf("step summary:\n%s", b)
	}
}

func TestMarkdownReport(t *testing.T) {
	var out bytes.Buffer
	if err := Markdown(&out, failuresResponse(t)); err != nil {
		t.Fatal(err)
	}
	want := "### ❌ vq get\\_run\\_failures\n\n" +
		"**Summary:** 2 of 12 checks failed.\n\n" +
		"**Checks:** 2 failed of 12 in run `run_abc`\n\n" +
		"| Scenario | Viewport | Mismatch | Result |\n|---|---|---:|---|\n" +
		"| Homepage | desktop | 4.2% | failed |\n" +
		"| Cart \\| \\*promo\\* | mobile | 0.5% | failed |\n\n" +
		"_Not itemized by the server: 10 passed, 0 failed._\n\n" +
		"#### Warnings\n\n- baseline is 30 days old\n\n" +
		"#### Next steps\n\n```sh\n# Inspect Homepage desktop\nvq invoke get_diff_stats runId=run_abc scenarioLabel=Homepage viewport=desktop\n```\n"
	if out.String() != want {
		t.Errorf("markdown:\n got %q\nwant %q", out.String(), want)
	}
}

func TestMarkdownEscapesServerText(t *testing.T) {
	r := decodeResponse(t, `{"ok":false,"tool":"x","summary":"# <img src=x> [link](http://evil)","data":{"note":"- 1. item","ratio":"4.2"},
		"warnings":["1. not a list"],"nextActions":[],"error":{"code":"tool_error","message":"a`+"`"+`b"}}`)
	var out bytes.Buffer
	if err := Markdown(&out, r); err != nil {
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
