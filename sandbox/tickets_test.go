package sandbox

import (
	"strings"
	"testing"
)

// The sandbox's JIRA comments are pasted into JIRA as they are, so they
// must be JIRA wiki markup, not GitHub markdown: monospace is {{...}} on
// one line, code blocks open and close, table rows start and end with |.
func TestProofCommentsAreJIRAWikiMarkup(t *testing.T) {
	t.Parallel()
	comments := map[string]string{}
	for _, tk := range tickets {
		if tk.crash == "" {
			comments[tk.id] = tk.markdown
		}
		if tk.fixed != nil {
			comments[tk.id+" fixed"] = tk.on(scenario{ID: "scn_101", Name: "Subscribe to the newsletter from the footer"}).markdown
		}
	}
	if len(comments) < 5 {
		t.Fatalf("only %d comments", len(comments))
	}
	for name, md := range comments {
		if strings.ContainsAny(md, "`") {
			t.Errorf("%s: backticks are not JIRA markup (use {{...}}):\n%s", name, md)
		}
		if strings.Contains(md, "%!") {
			t.Errorf("%s: a format verb went wrong:\n%s", name, md)
		}
		inCode := false
		for _, line := range strings.Split(md, "\n") {
			if strings.HasPrefix(line, "{code") {
				inCode = !inCode
				continue
			}
			if inCode {
				continue
			}
			if strings.Count(line, "{{") != strings.Count(line, "}}") {
				t.Errorf("%s: unbalanced {{ }} in %q", name, line)
			}
			if strings.HasPrefix(line, "|") && !strings.HasSuffix(line, "|") {
				t.Errorf("%s: table row does not end with |: %q", name, line)
			}
			if strings.HasPrefix(line, "#") || strings.HasPrefix(line, "**") {
				t.Errorf("%s: GitHub markdown in %q", name, line)
			}
		}
		if inCode {
			t.Errorf("%s: a {code} block is never closed", name)
		}
	}
}
