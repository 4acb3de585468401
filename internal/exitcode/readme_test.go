package exitcode

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestREADMEExitCodeTable keeps the documented table (docs/output.md, which
// the README links) identical to the one vq exits with: a release can never
// document one code and exit another.
func TestREADMEExitCodeTable(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../docs/output.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "<!-- exit-codes:start -->\n")
	documented, _, ok2 := strings.Cut(rest, "<!-- exit-codes:end -->")
	if !ok || !ok2 {
		t.Fatal("docs/output.md lacks the exit-codes markers")
	}
	var b strings.Builder
	b.WriteString("| exit | code | recoverable | outcome | meaning |\n|---|---|---|---|---|\n")
	rows := Table()
	unrecoverable := map[string]int{}
	for _, r := range rows {
		if r.Recoverable != nil && !*r.Recoverable {
			unrecoverable[r.Code] = r.Exit
		}
	}
	for _, r := range rows {
		switch {
		case r.Recoverable == nil:
			fmt.Fprintf(&b, "| %d | %s | - | %s | %s |\n", r.Exit, r.Code, r.Outcome, r.Meaning)
		case *r.Recoverable:
			fmt.Fprintf(&b, "| %d / %d | %s | true / false | %s | %s |\n", r.Exit, unrecoverable[r.Code], r.Code, r.Outcome, r.Meaning)
		}
	}
	if documented != b.String() {
		t.Errorf("docs/output.md's exit-code table differs from exitcode.Table(); replace it with:\n%s", b.String())
	}
}
