package cmd

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// enumSchema asks to pick one of n values, v0 to v(n-1).
func enumSchema(n int) map[string]any {
	values := make([]any, n)
	for i := range values {
		values[i] = fmt.Sprint("v", i)
	}
	return map[string]any{"type": "object", "properties": map[string]any{
		"pick": map[string]any{"type": "string", "title": "Pick one", "enum": values},
	}, "required": []any{"pick"}}
}

// fieldsSchema asks n text fields, each titled with title characters.
func fieldsSchema(n, title int) map[string]any {
	props := make(map[string]any, n)
	for i := range n {
		props[fmt.Sprint("f", i)] = map[string]any{"type": "string", "title": strings.Repeat("t", title)}
	}
	return map[string]any{"type": "object", "properties": props}
}

// heardWithin is what the question server heard, failing the test when it
// heard nothing in a minute (a bound on a hung run; it measures nothing:
// under the race detector the SDK takes seconds to move a 20 MB message).
func heardWithin(t *testing.T, heard chan string) string {
	t.Helper()
	select {
	case got := <-heard:
		return got
	case <-time.After(time.Minute):
		t.Fatal("the server never heard an answer")
		return ""
	}
}

// The forms of issue 29 asked by an MCP server, at a terminal: a 50k-value
// enum (43 s to appear, 66 s a key) is drawn with its first values and
// "+N more", and answered with the keys a person presses; 10k fields (with
// 5000-character titles, 122 s and 1.1 GB) are declined at once, with why:
// on stderr in plain output, on the TUI's status line. The titles here are
// 100 characters: the MCP SDK takes seconds to validate a 50 MB schema on
// each side (minutes under the race detector) before vq sees it, and vq
// refuses by the count.
func TestHugeQuestionsInTmux(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("drives a terminal")
	}
	env := terminalEnv(map[string]string{})
	t.Run("50k-value enum", func(t *testing.T) {
		endpoint, heard := questionServerAsking(t, "Pick a value", enumSchema(50_000))
		p := startTmux(t, 100, 30, env, "true", "--endpoint", endpoint, "invoke", "signup", "--no-tui")
		p.waitFor("the form", shows("The server asks", "Pick a value", "┃ Pick one (required)", "+49976 more not offered (the server sent 50000)", "> v0", "v9"))
		p.keys("Up")
		p.waitFor("the last value offered", shows("> v23"))
		p.keys("Enter")
		if got := heardWithin(t, heard); got != `accept {"pick":"v23"}` {
			t.Errorf("the server heard %s", got)
		}
		p.waitFor("the answer", shows("the server asks: Pick a value: accepted", "EXIT=0"))
	})
	for _, tc := range []struct {
		name  string
		args  []string
		shows string
	}{
		{"10k fields, plain", []string{"--no-tui"}, "the server asks: Sign up for the run: declined: it has 10000 fields, more than the 32 a form asks"},
		{"10k fields, TUI", nil, "the server's question: declined: it has 10000 fields, more than the 32 a form asks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The answer offers an action: the TUI stays, its status line
			// in view.
			endpoint, heard := questionServerAsking(t, "Sign up for the run", fieldsSchema(10_000, 100),
				map[string]any{"label": "Again", "tool": "signup", "args": map[string]any{}})
			p := startTmux(t, 120, 30, env, "true", append([]string{"--endpoint", endpoint, "invoke", "signup"}, tc.args...)...)
			if got := heardWithin(t, heard); got != "decline null" {
				t.Errorf("the server heard %s", got)
			}
			p.waitFor("why", shows(tc.shows))
			p.keys("q")
			p.waitFor("vq's exit", shows("EXIT=0"))
		})
	}
}

// In a script a question is declined and told in one line, however long
// the server's message: a 20 MB one is cut.
func TestAScriptPrintsOneBoundedLineForAQuestion(t *testing.T) {
	t.Parallel()
	endpoint, heard := questionServerAsking(t, strings.Repeat("twenty megabytes\x1b[2J\n", 20<<20/21), enumSchema(3))
	_, errOut, exit := runVQ(t, nil, "--endpoint", endpoint, "invoke", "signup", "--json")
	if got := heardWithin(t, heard); got != "decline null" {
		t.Errorf("the server heard %s", got)
	}
	var asks []string
	for _, line := range strings.Split(errOut, "\n") {
		if strings.Contains(line, "twenty") {
			asks = append(asks, line)
		}
	}
	if exit != 0 || len(asks) != 1 || len(errOut) > 400 || !strings.HasPrefix(asks[0], "the server asks: twenty megabytes twenty") ||
		!strings.HasSuffix(asks[0], "…: declined (on a terminal vq asks; --elicit-defaults accepts the defaults)") {
		t.Errorf("exit %d, %d bytes of stderr, the question in %d lines: %.400q", exit, len(errOut), len(asks), errOut)
	}
}
