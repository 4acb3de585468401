package cmd

import (
	"strings"
	"testing"
)

const runFailuresBody = `{"ok":true,"tool":"get_run_failures","summary":"3 of 12 checks failed.",
	"data":{"runId":"run_abc","failed":3,"total":12,"failures":[
		{"scenarioLabel":"Homepage","viewport":"desktop","mismatchPercent":4.2},
		{"scenarioLabel":"Homepage","viewport":"mobile","mismatchPercent":1.1},
		{"scenarioLabel":"Checkout","viewport":"desktop","mismatchPercent":0.4}]},
	"warnings":[],"nextActions":[]}`

// completeWith runs vq's hidden __complete command and returns the
// candidates (without descriptions) and the directive line.
func completeWith(t *testing.T, env map[string]string, args ...string) ([]string, string) {
	t.Helper()
	stdout, stderr, exit := runVQ(t, env, append([]string{"__complete"}, args...)...)
	if exit != 0 {
		t.Fatalf("__complete %q: exit %d, stderr %q", args, exit, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	var candidates []string
	for _, l := range lines[:len(lines)-1] {
		candidates = append(candidates, strings.SplitN(l, "\t", 2)[0])
	}
	return candidates, lines[len(lines)-1]
}
