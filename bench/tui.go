package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The TUI's figures come from go test benchmarks in ui/ (a terminal is not
// something the bench can time from outside): the first whose name holds
// each of these words, e.g. BenchmarkFirstFrame100k, BenchmarkKeyToFrame100k.
// The words are whole names: "FirstFrame" alone first matched
// BenchmarkQuestionFirstFrame (a form's first frame, not the 100k rows').
const (
	firstFrameBench = "FirstFrame100k"
	keyPressBench   = "KeyToFrame100k"
	filterBench     = "FilterKeystroke100k"
	halfBlockBench  = "HalfBlocks"
)

// tuiGoals are the goal of each benchmark, in the row's order.
var tuiGoals = []struct {
	word string
	goal time.Duration
}{
	{firstFrameBench, 100 * time.Millisecond},
	{keyPressBench, 5 * time.Millisecond},
	{filterBench, 30 * time.Millisecond},
	{halfBlockBench, 20 * time.Millisecond},
}

// benchLine matches a go test -bench result: name-CPUs, iterations, ns/op.
var benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+([0-9.]+) ns/op`)

func (b *bench) tui() row {
	what := "TUI: 100k failures' first frame, key-press → frame with a filter, filter keystroke → frame; a 1280×800 diff in half-blocks"
	step(what + " (go test -bench ./ui/...)")
	benchtime := "10x"
	if b.quick {
		benchtime = "3x" // one run alone times the first, cold key press
	}
	words := make([]string, len(tuiGoals))
	for i, g := range tuiGoals {
		words[i] = g.word
	}
	cmd := exec.Command("go", "test", "-run", "^$", "-bench", strings.Join(words, "|"), "-benchtime", benchtime, "./ui/...")
	cmd.Dir = b.root
	out, err := cmd.CombinedOutput()
	if err != nil {
		return failed(what, fmt.Errorf("go test -bench ./ui/...: %v: %s", err, firstLine(string(out))))
	}
	perOp := map[string]time.Duration{} // by the word its name holds; first wins
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		ns, _ := strconv.ParseFloat(m[2], 64)
		for _, word := range words {
			if _, seen := perOp[word]; !seen && strings.Contains(m[1], word) {
				perOp[word] = time.Duration(ns)
			}
		}
	}
	var figures, goals []string
	pass := true
	for _, g := range tuiGoals {
		d, ok := perOp[g.word]
		if !ok {
			return failed(what, fmt.Errorf("ui/... has no benchmark named *%s*", g.word))
		}
		figures = append(figures, ms(d))
		goals = append(goals, "≤ "+ms(g.goal))
		pass = pass && d <= g.goal
	}
	return row{
		what:    what,
		vq:      strings.Join(figures, ", "),
		goal:    strings.Join(goals, ", "),
		verdict: verdictOf(pass),
	}
}
