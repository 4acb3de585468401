package iostreams

import "testing"

// The pager is the Display policy's: VQ_PAGER, else PAGER, else less
// -FRX; cat or --no-pager for none; never for stdout that is no
// terminal.
func TestPagerCommandByPolicy(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		env            map[string]string
		noPager, isTTY bool
		want           string
	}{
		{nil, false, true, "less -FRX"},
		{map[string]string{"PAGER": "more"}, false, true, "more"},
		{map[string]string{"PAGER": "more", "VQ_PAGER": "most -s"}, false, true, "most -s"},
		{map[string]string{"VQ_PAGER": "cat"}, false, true, ""},
		{nil, true, true, ""},
		{map[string]string{"VQ_PAGER": "less"}, false, false, ""},
	} {
		getenv := func(k string) string { return tc.env[k] }
		if got := pagerCommand(getenv, tc.noPager, tc.isTTY); got != tc.want {
			t.Errorf("%v --no-pager=%v terminal=%v: pager %q, want %q", tc.env, tc.noPager, tc.isTTY, got, tc.want)
		}
	}
}
