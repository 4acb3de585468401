package cmd

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/cmd/iostreams"
	"github.com/visualq/vq/internal/testkit"
)

func TestEveryCommandHasAnExample(t *testing.T) {
	t.Parallel()
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if c.IsAvailableCommand() && c.Runnable() && c.Example == "" && c.HasParent() {
			t.Errorf("%s has no Example", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(NewRootCmd(&cmdutil.Factory{IOStreams: &iostreams.IOStreams{}, Getenv: func(string) string { return "" }}))
}

// TestHTTPSProxyIsUsed runs vq in a child process (the proxy environment is
// read once per process) against an https:// server, with HTTPS_PROXY
// pointing at a test proxy, and checks the proxy was asked to connect.
func TestHTTPSProxyIsUsed(t *testing.T) {
	if os.Getenv("VQ_TEST_PROXY_CHILD") != "" {
		stdout, stderr, exit := runVQ(t, map[string]string{"VQ_BASE_URL": "https://visualq.invalid", "VQ_API_KEY": "k"},
			"failures", "run_abc", "--no-retry", "--json")
		t.Logf("exit %d\n%s%s", exit, stdout, stderr)
		return
	}
	var mu sync.Mutex
	var seen []string
	proxy := testkit.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.Host)
		mu.Unlock()
		http.Error(w, "proxy says no", http.StatusForbidden)
	}))
	run := func(extra ...string) string {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHTTPSProxyIsUsed$", "-test.v")
		cmd.Env = append(os.Environ(), append([]string{"VQ_TEST_PROXY_CHILD=1", "HTTPS_PROXY=" + proxy.URL, "NO_PROXY="}, extra...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		return string(out)
	}
	out := run()
	mu.Lock()
	got := append([]string(nil), seen...)
	seen = nil
	mu.Unlock()
	if len(got) == 0 || got[0] != "CONNECT visualq.invalid:443" || !strings.Contains(out, "http_error") {
		t.Errorf("proxy saw %q; child said:\n%s", got, out)
	}
	run("NO_PROXY=visualq.invalid")
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 0 {
		t.Errorf("NO_PROXY host went through the proxy: %q", seen)
	}
}

// The README is a page a newcomer reads: under 300 lines, the two set-up
// commands and one short path per job; tables and reference go to docs/.
func TestREADMEIsShortWithAPathPerJob(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(readme), "\n"); n >= 300 {
		t.Errorf("README.md has %d lines, want fewer than 300: move reference to docs/", n)
	}
	for _, want := range []string{"go run . demo", "go test ./...", "\n## Triage a failed run\n", "\n## CI\n", "\n## Prove a JIRA ticket\n", "\n## IDE agents\n", "\n## Install\n"} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README.md lacks %q", want)
		}
	}
}

// markdownLink is a link written in prose, [text](target): a code span
// or a fenced block shows a link, it does not make one.
var markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// markdownProse is path's text outside fenced blocks and code spans, one
// string a line, for reading links and headings from.
func markdownProse(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var prose []string
	fenced := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			prose = append(prose, codeSpan.ReplaceAllString(line, "code"))
		}
	}
	return prose
}

var codeSpan = regexp.MustCompile("`[^`]*`")

// headingAnchors are the #fragments GitHub gives path's headings: the
// text lowercased, its punctuation dropped, spaces as hyphens, and a
// heading met again numbered -1, -2, ...
func headingAnchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
		}
		heading, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " ")
		if fenced || !ok || !strings.HasPrefix(line, "#") {
			continue
		}
		anchor := strings.Map(func(r rune) rune {
			switch {
			case r == ' ':
				return '-'
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				return unicode.ToLower(r)
			}
			return -1
		}, strings.TrimSpace(heading))
		if n := seen[anchor]; n > 0 {
			anchors[anchor+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[anchor] = true
		}
		seen[anchor]++
	}
	return anchors
}

// Every relative link of the README and the pages under docs/ leads to a
// file or directory of this checkout, and a #fragment to a heading of
// its page; and every page under docs/ is linked from the README, so
// what the README leaves to docs/ can be found from it.
func TestDocLinksResolve(t *testing.T) {
	t.Parallel()
	pages, _ := filepath.Glob("../docs/*.md")
	ciPages, _ := filepath.Glob("../docs/ci/*.md")
	pages = append(append([]string{"../README.md"}, pages...), ciPages...)
	fromREADME := map[string]bool{}
	links := 0
	for _, page := range pages {
		for n, line := range markdownProse(t, page) {
			for _, m := range markdownLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				links++
				file, fragment, _ := strings.Cut(target, "#")
				resolved := page
				if file != "" {
					resolved = filepath.Join(filepath.Dir(page), file)
				}
				if page == "../README.md" {
					fromREADME[filepath.Clean(resolved)] = true
				}
				if _, err := os.Stat(resolved); err != nil {
					t.Errorf("%s:%d links to %s, which does not exist", page, n+1, target)
					continue
				}
				if fragment != "" && strings.HasSuffix(resolved, ".md") && !headingAnchors(t, resolved)[fragment] {
					t.Errorf("%s:%d links to %s: %s has no heading #%s", page, n+1, target, resolved, fragment)
				}
			}
		}
	}
	if links < 40 {
		t.Fatalf("only %d relative links found in %d pages", links, len(pages))
	}
	for _, page := range pages[1:] {
		if !fromREADME[filepath.Clean(page)] && !fromREADME[filepath.Dir(page)] {
			t.Errorf("README.md does not link to %s", page)
		}
	}
}
