// Package progress draws how far a job or call got, for the TUI and the stderr job view.
// It imports api, and nothing of ui.
package progress

import (
	"image/color"
	"strconv"

	"charm.land/bubbles/v2/progress"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/textsafe"
)

// Bar is a progress bar without a percentage.
type Bar struct{ bar progress.Model }

// New is a bar width columns wide, filled in colour fill.
func New(width int, fill color.Color) Bar {
	return Bar{progress.New(progress.WithWidth(width), progress.WithoutPercentage(),
		progress.WithFillCharacters(progress.DefaultFullCharFullBlock, progress.DefaultEmptyCharBlock),
		progress.WithColors(fill))}
}

// View is the bar filled as far as u got, empty while it says no total.
func (b Bar) View(u api.JobUpdate) string {
	pct := 0.0
	if u.Total > 0 {
		pct = min(max(u.Current/u.Total, 0), 1)
	}
	return b.bar.ViewAs(pct)
}

// Parts are an update's status, count and message, each when it has one.
func Parts(u api.JobUpdate) []string {
	var parts []string
	if u.Status == api.JobFailed && u.Message == api.RunError {
		// A CI run ended in error reads "error", not "failed … error".
		u.Status, u.Message = api.RunError, ""
	}
	if u.Status != "" {
		parts = append(parts, textsafe.SanitizeLine(u.Status))
	}
	switch {
	case u.HasProgress && u.Total > 0:
		parts = append(parts, count(u.Current)+"/"+count(u.Total))
	case u.HasProgress:
		parts = append(parts, count(u.Current)+" so far")
	}
	if u.Message != "" {
		parts = append(parts, textsafe.SanitizeLine(u.Message))
	}
	return parts
}

func count(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
