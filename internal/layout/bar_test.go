package layout

import (
	"math"
	"testing"
	"unicode/utf8"
)

// The mismatch bar is one fixed scale: each tenfold adds a quarter of
// the bar, 100% fills it, any change shows, and no change draws nothing.
func TestMismatchBarIsOneLogScale(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		percent float64
		want    string
	}{
		{100, "██████████"},
		{250, "██████████"},
		{math.Inf(1), "██████████"},
		{10, "███████▌  "},
		{1, "█████     "},
		{0.1, "██▌       "},
		{0.01, "▏         "},
		{0.0001, "▏         "},
		{0, "          "},
		{-3, "          "},
		{math.NaN(), "          "},
		{math.Inf(-1), "          "},
	} {
		got := MismatchBar(tc.percent)
		if got != tc.want {
			t.Errorf("MismatchBar(%v) = %q, want %q", tc.percent, got, tc.want)
		}
		if n := utf8.RuneCountInString(got); n != MismatchBarWidth {
			t.Errorf("MismatchBar(%v) is %d cells wide", tc.percent, n)
		}
	}
	for p, last := 0.001, 0; p < 200; p *= 1.1 {
		n := mismatchEighths(p)
		if n < last {
			t.Fatalf("the bar of %v%% is shorter than a smaller change's", p)
		}
		last = n
	}
}
