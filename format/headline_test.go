package format

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

// TestTheVerdictCountsTheFailuresShown: the verdict's count of failed
// checks is never below the failures the answer lists, whatever count the
// server states beside them; the count comes from the table drawn of them
// (one scan of the rows), or from the list itself when it makes no table.
func TestTheVerdictCountsTheFailuresShown(t *testing.T) {
	t.Parallel()
	const a, b, c = `{"scenarioLabel":"a","viewport":"d"}`, `{"scenarioLabel":"b","viewport":"d"}`, `{"scenarioLabel":"c","viewport":"d"}`
	for name, tc := range map[string]struct{ data, head, table string }{
		"more listed than stated":        {`{"runId":"r","failed":1,"total":2,"failures":[` + a + `,` + b + `,` + c + `]}`, "✗ 3 of 3 checks failed", "failures (3):"},
		"as stated":                      {`{"runId":"r","failed":3,"total":12,"failures":[` + a + `,` + b + `,` + c + `]}`, "✗ 3 of 12 checks failed", "failures (3):"},
		"no table (a number among them)": {`{"runId":"r","failed":0,"total":0,"failures":[` + a + `,5,` + b + `]}`, "✗ 2 of 2 checks failed", "failures"},
		"failures sent twice, the last read": {`{"runId":"r","failed":1,"total":1,"failures":[` + a + `],"failures":[` + a + `,` + b + `,` + c + `]}`,
			"✗ 3 of 3 checks failed", "failures (3):"},
	} {
		r := decodeResponse(t, `{"ok":true,"tool":"get_run_failures","summary":"failures","data":`+tc.data+`}`)
		var out bytes.Buffer
		if err := Render(context.Background(), &out, io.Discard, r, Options{}); err != nil {
			t.Fatal(err)
		}
		head, _, _ := strings.Cut(out.String(), "\n")
		if head != tc.head || !strings.Contains(out.String(), tc.table) {
			t.Errorf("%s: the answer opens on %q, want %q (and %q):\n%s", name, head, tc.head, tc.table, out.String())
		}
	}
}
