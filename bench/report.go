package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"
)

const (
	verdictPass = "pass"
	verdictFail = "FAIL"
	verdictSkip = "skipped"
	// verdictReference marks a row that explains others and has no goal.
	verdictReference = "reference"
)

// row is one line of the figures table.
type row struct {
	what    string
	vq      string // vq's figure: median (min–max), or the measured value
	against string // the other side's name and figure, if any
	ratio   string
	rss     string // peak RSS of vq (and of the other side)
	goal    string
	verdict string
	note    string
	broken  bool // the row could not measure: vq or the bench is broken
}

// ratioRow compares vq with another command: the ratio of medians must stay
// within goal and, when rssLimit is not 0, vq's peak RSS within rssLimit
// (-1: a bound that could not be known, which fails).
func ratioRow(what, other string, vq, base series, goal float64, rssLimit int64) row {
	ratio := float64(vq.median()) / float64(base.median())
	pass := ratio <= goal
	goalText := fmt.Sprintf("≤ %g×", goal)
	if rssLimit != 0 {
		pass = pass && vq.rss > 0 && vq.rss <= rssLimit
		goalText += ", RSS ≤ " + mib(rssLimit)
	}
	return row{
		what:    what,
		vq:      spread(vq),
		against: other + ": " + spread(base),
		ratio:   fmt.Sprintf("%.2f×", ratio),
		rss:     mib(vq.rss) + " / " + mib(base.rss),
		goal:    goalText,
		verdict: verdictOf(pass),
	}
}

func failed(what string, err error) row {
	step(what + ": " + err.Error())
	return row{what: what, verdict: verdictFail, note: err.Error(), broken: true}
}

func skipped(what, why string) row {
	step(what + ": skipped: " + why)
	return row{what: what, verdict: verdictSkip, note: why}
}

func verdictOf(pass bool) string {
	if pass {
		return verdictPass
	}
	return verdictFail
}

func spread(s series) string {
	return fmt.Sprintf("%s (%s–%s)", ms(s.median()), ms(s.min()), ms(s.max()))
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
}

func mib(n int64) string {
	if n <= 0 {
		return "?"
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// printReport writes the figures as a Markdown table, ready for
// BENCHMARKS.md, then a note for every row that has one.
func printReport(w io.Writer, b *bench, rows []row) {
	host, _ := os.Hostname()
	mode := "full"
	if b.quick {
		mode = "quick (goals not enforced)"
	}
	fmt.Fprintf(w, "\n%s mode, %d alternating runs per comparison, %s, %d CPUs, %s/%s, host %s\n\n",
		mode, b.runs, runtime.Version(), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, host)
	fmt.Fprintln(w, "| what | vq median (min–max) | against median (min–max) | ratio | peak RSS vq / other | goal | result |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |\n",
			r.what, dash(r.vq), dash(r.against), dash(r.ratio), dash(r.rss), dash(r.goal), r.verdict)
	}
	var notes []string
	for _, r := range rows {
		if r.note != "" {
			notes = append(notes, "- "+r.what+": "+r.note)
		}
	}
	if len(notes) > 0 {
		fmt.Fprintln(w, "\n"+strings.Join(notes, "\n"))
	}
}

func dash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
