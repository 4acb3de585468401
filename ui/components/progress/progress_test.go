package progress

import (
	"slices"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/visualq/vq/api"
)

// An update says its status, its count (3/6, or 3 so far without a
// total) and its message; a CI run that ended in error reads "error";
// the bar fills as far as the count, and stays empty without a total.
func TestPartsAndBar(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		u    api.JobUpdate
		want []string
	}{
		{api.JobUpdate{Status: "running", HasProgress: true, Current: 3, Total: 6, Message: "Comparing\x1b[2J"}, []string{"running", "3/6", "Comparing"}},
		{api.JobUpdate{HasProgress: true, Current: 3}, []string{"3 so far"}},
		{api.JobUpdate{Status: api.JobFailed, Message: api.RunError}, []string{api.RunError}},
	} {
		if got := Parts(c.u); !slices.Equal(got, c.want) {
			t.Errorf("Parts(%+v) = %q, want %q", c.u, got, c.want)
		}
	}
	bar := New(10, lipgloss.Color("#00ffff"))
	half := bar.View(api.JobUpdate{HasProgress: true, Current: 3, Total: 6})
	if w := lipgloss.Width(half); w != 10 || strings.Count(half, "█") != 5 {
		t.Errorf("half bar %q (%d wide)", half, w)
	}
	if none := bar.View(api.JobUpdate{HasProgress: true, Current: 3}); strings.Contains(none, "█") {
		t.Errorf("a bar without a total is filled: %q", none)
	}
}
