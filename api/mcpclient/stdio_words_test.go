package mcpclient_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/visualq/vq/api/mcpclient"
)

// A stdio: endpoint is split into words as a shell splits them, without
// running one: quotes group, a backslash escapes (but not within single
// quotes), and nothing expands.
func TestStdioCommandSplitsAsAShellWould(t *testing.T) {
	t.Parallel()
	for endpoint, want := range map[string][]string{
		"stdio:npx -y @modelcontextprotocol/server-everything": {"npx", "-y", "@modelcontextprotocol/server-everything"},
		"stdio:  server\t--flag \n x  ":                        {"server", "--flag", "x"},
		`stdio:run "two words" 'and $HOME' *`:                  {"run", "two words", "and $HOME", "*"},
		`stdio:a\ b c\"d 'e\f' "g\"h"`:                         {"a b", `c"d`, `e\f`, `g"h`},
		`stdio:empty "" ''`:                                    {"empty", "", ""},
		`stdio:joined"quo"'ted'`:                               {"joinedquoted"},
	} {
		got, ok := mcpclient.StdioCommand(endpoint)
		if !ok || !slices.Equal(got, want) {
			t.Errorf("StdioCommand(%q) = %q, %v; want %q", endpoint, got, ok, want)
		}
		if err := mcpclient.CheckStdioEndpoint(endpoint); err != nil {
			t.Errorf("CheckStdioEndpoint(%q): %v", endpoint, err)
		}
	}
	for endpoint, problem := range map[string]string{
		"stdio:":              "names no command",
		"stdio:   ":           "names no command",
		`stdio:run "open`:     "has an unterminated quote or escape",
		`stdio:run 'open`:     "has an unterminated quote or escape",
		`stdio:run trailing\`: "has an unterminated quote or escape",
	} {
		if _, ok := mcpclient.StdioCommand(endpoint); ok {
			t.Errorf("StdioCommand(%q) names a command", endpoint)
		}
		if err := mcpclient.CheckStdioEndpoint(endpoint); err == nil || err.Error() != problem {
			t.Errorf("CheckStdioEndpoint(%q) = %v, want %q", endpoint, err, problem)
		}
	}
	if _, ok := mcpclient.StdioCommand("https://127.0.0.1/api/mcp"); ok {
		t.Error("a URL read as a stdio command")
	}
}

// FuzzStdioCommand: whatever words an endpoint splits into, each quoted
// the shell's way and joined again split into the same words.
func FuzzStdioCommand(f *testing.F) {
	for _, seed := range []string{`stdio:a\ b c\"d 'e\f' "g\"h"`, `stdio:x "" ''`, "stdio:\t\n", `stdio:'it'\''s'`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, endpoint string) {
		words, ok := mcpclient.StdioCommand(endpoint)
		if !ok {
			return
		}
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
		again, ok := mcpclient.StdioCommand(mcpclient.StdioScheme + strings.Join(quoted, " "))
		if !ok || !slices.Equal(again, words) {
			t.Fatalf("%q splits into %q; quoted again, into %q (%v)", endpoint, words, again, ok)
		}
	})
}
