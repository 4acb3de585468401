package cmd

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image"
	stdpng "image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/testkit"
)

// reviewJUnit is what a CI server keeps of a JUnit report.
type reviewJUnit struct {
	Tests  int `xml:"tests,attr"`
	Suites []struct {
		Name  string `xml:"name,attr"`
		Tests int    `xml:"tests,attr"`
		Cases []struct {
			Name      string    `xml:"name,attr"`
			ClassName string    `xml:"classname,attr"`
			Failure   *struct{} `xml:"failure"`
			SystemOut string    `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// pipelineEnv is a GitHub Actions step's environment against s: outputs and
// summary files in dir.
func pipelineEnv(s map[string]string, dir string) map[string]string {
	env := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_OUTPUT": filepath.Join(dir, "output"), "GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary.md")}
	for k, v := range s {
		env[k] = v
	}
	return env
}

func readJUnit(t *testing.T, path string) reviewJUnit {
	t.Helper()
	report, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	testkit.ValidJUnit(t, report)
	var r reviewJUnit
	if err := xml.Unmarshal(report, &r); err != nil || len(r.Suites) != 1 {
		t.Fatalf("report: %v\n%s", err, report)
	}
	return r
}

// The same checks of two runs carry the same suite, class and test names
// (no run id, no tool name), so a CI server keeps each check's history;
// the passes the server did not list are one case and tests= counts every
// check; the step summary speaks of the run.
func TestCIReportsKeepTheirNamesRunAfterRun(t *testing.T) {
	t.Parallel()
	s := newCISandbox(t, time.Millisecond)
	dir := t.TempDir()
	env := pipelineEnv(s.Env(), dir)
	var names [2][]string
	for i := range names {
		path := filepath.Join(dir, "junit", "vq.xml")
		_, stderr, exit := runVQ(t, env, append([]string{"ci", "run-vrt", "branch=feature/new-header", "--junit", path}, fastWait...)...)
		if exit != exitcode.RunFailed {
			t.Fatalf("exit %d\n%s", exit, stderr)
		}
		r := readJUnit(t, path)
		suite := r.Suites[0]
		if r.Tests != 12 || suite.Tests != 12 || len(suite.Cases) != 4 {
			t.Errorf("tests=%d/%d in %d cases; want 12 checks in 4 cases (3 changes, 1 for the 9 passes)", r.Tests, suite.Tests, len(suite.Cases))
		}
		names[i] = append(names[i], suite.Name)
		for _, c := range suite.Cases {
			names[i] = append(names[i], c.ClassName+" / "+c.Name)
		}
	}
	if !slices.Equal(names[0], names[1]) {
		t.Errorf("names differ between runs:\n%q\n%q", names[0], names[1])
	}
	for _, name := range names[0] {
		if strings.Contains(name, "run_ci_") || strings.Contains(name, "get_run") {
			t.Errorf("name %q holds a run id or a tool name", name)
		}
	}
	if !slices.Contains(names[0], "vq visual checks / Homepage [desktop]") {
		t.Errorf("names %q", names[0])
	}
	summary, _ := os.ReadFile(env["GITHUB_STEP_SUMMARY"])
	if !strings.HasPrefix(string(summary), "### ❌ Visual run run\\_ci\\_0001: 3 of 12 checks changed\n") {
		t.Errorf("summary:\n%.300s", summary)
	}
}

// --save-dir saves the diff images of the failed checks under vq's names, the
// JUnit report attaches each, the step summary links them; vq failures takes
// it on the invoke endpoint; --save-max-images bounds how many.
func TestCISaveDirAttachesDiffImages(t *testing.T) {
	t.Parallel()
	s := newCISandbox(t, time.Millisecond)
	dir := t.TempDir()
	env := pipelineEnv(s.Env(), dir)
	images, junit := filepath.Join(dir, "diffs"), filepath.Join(dir, "vq.xml")
	_, stderr, exit := runVQ(t, env, append([]string{"ci", "run-vrt", "branch=feature/new-header", "--junit", junit, "--save-dir", images}, fastWait...)...)
	if exit != exitcode.RunFailed {
		t.Fatalf("exit %d\n%s", exit, stderr)
	}
	want := []string{"01-Homepage-desktop.png", "02-Homepage-mobile.png", "03-Product_page-desktop.png"}
	entries, _ := os.ReadDir(images)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
		if b, _ := os.ReadFile(filepath.Join(images, e.Name())); !strings.HasPrefix(string(b), "\x89PNG") {
			t.Errorf("%s is no PNG", e.Name())
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("saved %q, want %q\n%s", got, want, stderr)
	}
	attached := 0
	for _, c := range readJUnit(t, junit).Suites[0].Cases {
		if c.Failure != nil && strings.HasPrefix(c.SystemOut, "[[ATTACHMENT|"+images+"/0") {
			attached++
		}
	}
	summary, _ := os.ReadFile(env["GITHUB_STEP_SUMMARY"])
	if attached != 3 || !strings.Contains(string(summary), "#### Saved diff images\n\n- [Homepage on desktop]("+images+"/01-Homepage-desktop.png)\n") {
		t.Errorf("%d attachments; summary:\n%s", attached, summary)
	}

	one := filepath.Join(dir, "one")
	_, stderr, exit = runVQ(t, s.Env(), "failures", "run_ci_0001", "--save-dir", one, "--save-max-images", "1", "--format", "junit")
	entries, _ = os.ReadDir(one)
	if exit != 0 || len(entries) != 1 || !strings.Contains(stderr, "warning: 2 more diff images not saved: past --save-max-images 1") {
		t.Errorf("vq failures --save-max-images 1: exit %d, %d files\n%s", exit, len(entries), stderr)
	}
	if _, stderr, exit := runVQ(t, s.Env(), "failures", "run_ci_0001", "--save-max-mb", "5"); exit != exitcode.Usage || !strings.Contains(stderr, "--save-max-mb bounds what --save-dir saves") {
		t.Errorf("--save-max-mb alone: exit %d\n%s", exit, stderr)
	}
}

// --exit-zero-on-changes exits 0 when checks changed, while the document
// stays ok:false run_failed and the outputs and JUnit show every change; an
// errored or cancelled run still fails.
func TestCIExitZeroOnChanges(t *testing.T) {
	t.Parallel()
	s := newCISandbox(t, time.Millisecond)
	dir := t.TempDir()
	env := pipelineEnv(s.Env(), dir)
	junit := filepath.Join(dir, "vq.xml")
	stdout, stderr, exit := runVQ(t, env, append([]string{"ci", "run-vrt", "branch=feature/new-header", "--exit-zero-on-changes", "--json", "--junit", junit}, fastWait...)...)
	if exit != 0 || !strings.Contains(stdout, `"ok": false`) && !strings.Contains(stdout, `"ok":false`) || !strings.Contains(stdout, `"run_failed"`) {
		t.Fatalf("exit %d\nstdout %.300s\nstderr %s", exit, stdout, stderr)
	}
	out := readStepOutputs(t, env["GITHUB_OUTPUT"])
	if out["status"] != "failed" || out["failed"] != "3" || out["exit-code"] != "0" {
		t.Errorf("outputs %v", out)
	}
	failures := 0
	for _, c := range readJUnit(t, junit).Suites[0].Cases {
		if c.Failure != nil {
			failures++
		}
	}
	if failures != 3 {
		t.Errorf("%d failed cases, want 3", failures)
	}
	for branch, want := range map[string]int{"broken": exitcode.RunError, "cancelled": exitcode.RunCancelled} {
		if _, stderr, exit := runVQ(t, s.Env(), append([]string{"ci", "run-vrt", "branch=" + branch, "--exit-zero-on-changes"}, fastWait...)...); exit != want {
			t.Errorf("branch %s: exit %d, want %d\n%s", branch, exit, want, stderr)
		}
	}
}

// vq ci --help lists only flags some vq ci command takes.
func TestCIHelpListsOnlyWhatCITakes(t *testing.T) {
	t.Parallel()
	stdout, _, _ := runVQ(t, nil, "ci", "--help")
	for _, refused := range []string{"--yes", "--transport", "--endpoint", "--header", "--log-level", "--elicit-defaults"} {
		if strings.Contains(stdout, refused) {
			t.Errorf("vq ci --help lists %s, which vq ci refuses", refused)
		}
	}
	if !strings.Contains(stdout, "--base-url") || !strings.Contains(stdout, "--save-dir") {
		t.Errorf("help:\n%s", stdout)
	}
}

// --save-dir fetches a diff image from the server's origin only and names
// the file itself: a link to another origin is never requested, a body that
// is no image is not saved, and a label with path separators stays in DIR.
func TestSaveDirKeepsToTheServerAndItsDir(t *testing.T) {
	t.Parallel()
	var other atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { other.Add(1) }))
	defer elsewhere.Close()
	var png bytes.Buffer
	stdpng.Encode(&png, image.NewRGBA(image.Rect(0, 0, 2, 2)))
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/d.png":
			w.Write(png.Bytes())
		case "/page.png":
			w.Write([]byte("<html>not an image</html>"))
		default:
			fmt.Fprintf(w, `{"ok":true,"tool":"get_run_failures","summary":"3 of 3 checks failed.","data":{"runId":"r","failed":3,"total":3,"failures":[
				{"scenarioLabel":"../../escape","viewport":"a/b","mismatchPercent":1,"diffUrl":"%[1]s/d.png"},
				{"scenarioLabel":"Away","viewport":"desktop","mismatchPercent":1,"diffUrl":"%[2]s/x.png"},
				{"scenarioLabel":"Page","viewport":"desktop","mismatchPercent":1,"diffUrl":"%[1]s/page.png"}]},"warnings":[],"nextActions":[]}`, srv.URL, elsewhere.URL)
		}
	}))
	defer srv.Close()
	dir := filepath.Join(t.TempDir(), "diffs")
	_, stderr, exit := runVQ(t, map[string]string{"VQ_BASE_URL": srv.URL, "VQ_API_KEY": "k"}, "failures", "r", "--save-dir", dir, "--format", "junit")
	entries, _ := os.ReadDir(dir)
	if exit != 0 || len(entries) != 1 || entries[0].Name() != "01-_.._escape-a_b.png" || other.Load() != 0 {
		t.Errorf("exit %d, %d requests elsewhere, saved %v\n%s", exit, other.Load(), entries, stderr)
	}
	if !strings.Contains(stderr, "warning: diff image of Away [desktop] not saved: image on 127.0.0.1:") ||
		!strings.Contains(stderr, "warning: diff image of Page [desktop] not saved: not an image") {
		t.Errorf("stderr:\n%s", stderr)
	}
}
