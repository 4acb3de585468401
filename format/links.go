package format

import (
	"strings"

	"github.com/visualq/vq/internal/layout"
	"github.com/visualq/vq/internal/textsafe"
)

// urlEscaper percent-encodes what would end a link in a report (space, parenthesis, pipe, quote ...).
var urlEscaper = strings.NewReplacer(
	" ", "%20", "(", "%28", ")", "%29", "<", "%3C", ">", "%3E", "[", "%5B", "]", "%5D",
	"`", "%60", `"`, "%22", "'", "%27", `\`, "%5C", "|", "%7C",
)

// webURL is a server address fit to click (textsafe.WebURL), escaped, else "": never a javascript: link.
func webURL(s string) string {
	u, ok := textsafe.WebURL(s)
	if !ok {
		return ""
	}
	return urlEscaper.Replace(u.String())
}

// linkLines are the webURL-made diff and run links as lines of a text body.
func linkLines(diff, run string) string {
	lines := ""
	if diff != "" {
		lines += "Diff image: " + diff + "\n"
	}
	if run != "" {
		lines += "Run: " + run + "\n"
	}
	return lines
}

// worstFailed are the k failed checks of largest mismatch, largest first, stable; O(len(listed)·k), small k.
func worstFailed(listed []layout.Check, k int) []layout.Check {
	worst := make([]layout.Check, 0, k)
	rank := func(ch layout.Check) float64 {
		if !ch.HasMismatch {
			return -1
		}
		return ch.Mismatch
	}
	for _, ch := range listed {
		if !ch.Failed || k == 0 {
			continue
		}
		i := len(worst)
		for i > 0 && rank(worst[i-1]) < rank(ch) {
			i--
		}
		if i == k {
			continue
		}
		if len(worst) < k {
			worst = append(worst, layout.Check{})
		}
		copy(worst[i+1:], worst[i:])
		worst[i] = ch
	}
	return worst
}

// runVerdict is one sentence saying what a run's checks add up to, as CI reports say it: changes.
func runVerdict(c *layout.Checks) string { return c.Sentence(c.Name()+" ", "changed") }

// runTitle names a run where a report titles it: "Visual run run_123", "Visual run" without an id.
func runTitle(c *layout.Checks) string {
	if c.RunID == "" {
		return "Visual run"
	}
	return "Visual run " + c.RunID
}
