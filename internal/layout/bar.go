package layout

import (
	"math"
	"strings"
)

// A mismatch bar draws the percentage of a check's pixels that differ on
// one fixed logarithmic scale, the same wherever vq draws one (the TUI's
// list and diff, the plain and Markdown tables): a bar's length never
// depends on the other rows shown, and the usual small changes (0.1% to
// a few percent) stay apart, which a linear scale would crush into a cell.
// The scale runs from mismatchFloor to 100%, a quarter of the bar per
// tenfold.

// MismatchColumn is the member of a check that holds its mismatch
// percentage: a number column of that name gets bars.
const MismatchColumn = "mismatchPercent"

// MismatchBarWidth is how many cells a mismatch bar takes.
const MismatchBarWidth = 10

// MismatchScale is the bars' scale in words, and MismatchLegend the line
// near bars that says how to read them.
const (
	MismatchScale  = "log scale, 0.01% to 100%"
	MismatchLegend = "bars: " + MismatchScale
)

// mismatchFloor is the percentage at the scale's start; the four decades
// from it to 100% fill the bar.
const (
	mismatchFloor   = 0.01
	mismatchDecades = 4
)

// mismatchBars are the bars by length in eighths of a cell, drawn once:
// plain output draws one a row.
var mismatchBars = func() []string {
	eighths := []string{"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"}
	bars := make([]string, MismatchBarWidth*8+1)
	for n := range bars {
		s := strings.Repeat("█", n/8) + eighths[n%8]
		cells := n / 8
		if n%8 > 0 {
			cells++
		}
		bars[n] = s + strings.Repeat(" ", MismatchBarWidth-cells)
	}
	return bars
}()

// MismatchBar is percent as a bar MismatchBarWidth cells wide, padded with
// spaces. Any positive percentage shows (below the scale's start, as an
// eighth); 100% and more fill it; zero, a negative number and NaN draw
// none.
func MismatchBar(percent float64) string {
	return mismatchBars[mismatchEighths(percent)]
}

// mismatchEighths is the bar's length in eighths of a cell.
func mismatchEighths(percent float64) int {
	if !(percent > 0) {
		return 0
	}
	full := float64(MismatchBarWidth * 8)
	n := math.Round(math.Log10(percent/mismatchFloor) / mismatchDecades * full)
	return int(max(1, min(n, full)))
}
