package cmdutil

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/visualq/vq/internal/layout"
)

// manyLabels is a run's failures on n distinct scenario labels, each on
// two viewports, as get_run_failures answers them.
func manyLabels(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"runId":"run_big","failures":[`)
	for i := range n {
		for j, viewport := range []string{"desktop", "mobile"} {
			if i+j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"scenarioLabel":"scenario-%06d","viewport":%q}`, i, viewport)
		}
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// Completing --scenario on a run that failed on 100k labels offers each
// once, in the server's order, and --viewport the two viewports: the
// values are gathered in a set, linear in the answer
// (BenchmarkCompletingLabels; slices.Contains per value took 3.4 s on 50k).
func TestCompletionOffersEveryLabelOfAHugeRunOnce(t *testing.T) {
	t.Parallel()
	const n = 100_000
	checks, ok := layout.ChecksOf(manyLabels(n))
	if !ok {
		t.Fatal("the failures read as no checks")
	}
	labels := checkValues(checks.Listed, "scenarioLabel", "")
	if len(labels) != n {
		t.Fatalf("%d labels offered, want %d", len(labels), n)
	}
	for i, l := range labels {
		if want := fmt.Sprintf("scenario-%06d", i); l != want {
			t.Fatalf("label %d is %q, want %q", i, l, want)
		}
	}
	if got := checkValues(checks.Listed, "viewport", ""); !slices.Equal(got, []string{"desktop", "mobile"}) {
		t.Errorf("viewports = %q", got)
	}
	if got := checkValues(checks.Listed, "scenarioLabel", "mobile"); len(got) != n {
		t.Errorf("%d labels on mobile, want %d", len(got), n)
	}
}

// BenchmarkCompletingLabels is the work of completing --scenario past the
// call: the answer read as checks, then its distinct labels. It stays
// linear: 25k, 50k and 150k labels took 0.98, 3.4 and 40.5 s before.
func BenchmarkCompletingLabels(b *testing.B) {
	for _, n := range []int{25_000, 50_000, 150_000} {
		body := manyLabels(n)
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			for b.Loop() {
				checks, _ := layout.ChecksOf(body)
				if got := checkValues(checks.Listed, "scenarioLabel", ""); len(got) != n {
					b.Fatalf("%d labels", len(got))
				}
			}
		})
	}
}
