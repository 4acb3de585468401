package layout

import (
	"math"
	"strings"
	"sync"
)

// Mismatch bars share one fixed log scale, so small changes (0.1% to a few percent) stay apart.

// MismatchColumn is the member holding a check's mismatch percentage.
const MismatchColumn = "mismatchPercent"

// MismatchBarWidth is how many cells a mismatch bar takes.
const MismatchBarWidth = 10

// MismatchScale is the bars' scale in words; MismatchLegend the line near bars.
const (
	MismatchScale  = "log scale, 0.01% to 100%"
	MismatchLegend = "bars: " + MismatchScale
)

// The bar's scale: four decades from mismatchFloor to 100%.
const (
	mismatchFloor   = 0.01
	mismatchDecades = 4
)

// mismatchBars are the bars by length in eighths of a cell, made when first
// drawn, not at every start of vq.
var mismatchBars = sync.OnceValue(func() []string {
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
})

// MismatchBar is percent as a bar MismatchBarWidth cells wide: 100% fills it, any positive shows, else none.
func MismatchBar(percent float64) string {
	return mismatchBars()[mismatchEighths(percent)]
}

func mismatchEighths(percent float64) int {
	if !(percent > 0) {
		return 0
	}
	full := float64(MismatchBarWidth * 8)
	n := math.Round(math.Log10(percent/mismatchFloor) / mismatchDecades * full)
	return int(max(1, min(n, full)))
}
