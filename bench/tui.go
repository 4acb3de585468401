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
const (
	firstFrameBench = "FirstFrame"
	keyPressBench   = "KeyToFrame"
)

// benchLine matches a go test -bench result: name-CPUs, iterations, ns/op.
var benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+([0-9.]+) ns/op`)

func (b *bench) tui() row {
	what := "100k failures in the TUI: first frame after the answer, key-press → frame"
	step(what + " (go test -bench ./ui)")
	benchtime := "10x"
	if b.quick {
		benchtime = "3x" // one run alone times the first, cold key press
	}
	cmd := exec.Command("go", "test", "-run", "^$", "-bench", firstFrameBench+"|"+keyPressBench, "-benchtime", benchtime, "./ui")
	cmd.Dir = b.root
	out, err := cmd.CombinedOutput()
	if err != nil {
		return failed(what, fmt.Errorf("go test -bench ./ui: %v: %s", err, firstLine(string(out))))
	}
	perOp := map[string]time.Duration{} // by the word its name holds; first wins
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		ns, _ := strconv.ParseFloat(m[2], 64)
		for _, word := range []string{firstFrameBench, keyPressBench} {
			if _, seen := perOp[word]; !seen && strings.Contains(m[1], word) {
				perOp[word] = time.Duration(ns)
			}
		}
	}
	first, okFirst := perOp[firstFrameBench]
	key, okKey := perOp[keyPressBench]
	if !okFirst || !okKey {
		return failed(what, fmt.Errorf("ui/ has no benchmarks named *%s* and *%s*", firstFrameBench, keyPressBench))
	}
	return row{
		what:    what,
		vq:      fmt.Sprintf("first frame %s, key-press %s", ms(first), ms(key)),
		goal:    "≤ 150 ms, ≤ 5 ms",
		verdict: verdictOf(first <= 150*time.Millisecond && key <= 5*time.Millisecond),
	}
}
