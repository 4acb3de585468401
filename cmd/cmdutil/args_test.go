package cmdutil

import (
	"strings"
	"testing"
)

// A near miss is looked for only among names of about the key's length,
// none longer than a person types: a key one edit from a 3000-byte name
// is not worth 9M steps a name (20k such names took 39 s).
func TestNearestNameComparesOnlyNamesAPersonTypes(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("n", 3000)
	names := []string{long + "a", "runId", "scenarioLabel", strings.Repeat("v", maxSuggested+1)}
	for key, want := range map[string]string{
		"runid": "runId", "scenarioLable": "scenarioLabel", "viewport": "",
		long + "b": "", strings.Repeat("v", maxSuggested): "",
	} {
		if got := nearestName(key, names); got != want {
			t.Errorf("nearestName(%.20q) = %.20q, want %q", key, got, want)
		}
	}
}
