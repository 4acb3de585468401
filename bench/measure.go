package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
)

// command is one program the bench runs, with the environment it needs.
type command struct {
	label string
	argv  []string
	env   []string
	dir   string
}

// sample is one finished run: wall time from start to exit, and the bytes
// of its output, drained through a pipe.
type sample struct {
	wall time.Duration
	out  int64
}

// byteCounter counts what is written to it.
type byteCounter int64

func (c *byteCounter) Write(p []byte) (int, error) { *c += byteCounter(len(p)); return len(p), nil }

// run executes the command once, its stdout drained through a pipe, and
// fails when it exits non-zero so a broken command is never timed.
func (c command) run() (sample, error) {
	cmd := exec.Command(c.argv[0], c.argv[1:]...)
	cmd.Env = c.env
	cmd.Dir = c.dir
	var out byteCounter
	cmd.Stdout = &out // not an *os.File: exec makes a pipe and drains it
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return sample{}, fmt.Errorf("%s: %v: %s", c.label, err, firstLine(stderr.String()))
	}
	return sample{wall: wall, out: int64(out)}, nil
}

// gnuTime is GNU time, which reports a command's peak RSS.
const gnuTime = "/usr/bin/time"

// peakRSS is the largest peak RSS, in bytes, of a few runs of the command,
// 0 when GNU time is missing. It cannot come from the rusage os/exec
// returns: Go starts children with vfork, so the kernel counts the bench's
// own RSS at exec as the child's peak. GNU time forks a copy of its own
// small self instead, and reports its child's wait4 figure.
func (c command) peakRSS(runs int) (int64, error) {
	if _, err := os.Stat(gnuTime); err != nil {
		return 0, nil
	}
	out, err := os.CreateTemp("", "vq-bench-rss-")
	if err != nil {
		return 0, err
	}
	out.Close()
	defer os.Remove(out.Name())
	timed := c
	timed.argv = append([]string{gnuTime, "-f", "%M", "-o", out.Name(), "--"}, c.argv...)
	var peak int64
	for range runs {
		if _, err := timed.run(); err != nil {
			return 0, err
		}
		report, err := os.ReadFile(out.Name())
		if err != nil {
			return 0, err
		}
		fields := strings.Fields(string(report))
		kb, err := strconv.ParseInt(fields[len(fields)-1], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s: GNU time said %q", c.label, report)
		}
		peak = max(peak, kb*1024)
	}
	return peak, nil
}

// series is the samples of one command in a comparison, and its peak RSS
// from separate runs (see peakRSS).
type series struct {
	samples []sample
	rss     int64
}

func (s series) walls() []time.Duration {
	out := make([]time.Duration, len(s.samples))
	for i, x := range s.samples {
		out[i] = x.wall
	}
	slices.Sort(out)
	return out
}

func (s series) median() time.Duration { return medianOf(s.walls()) }
func (s series) min() time.Duration    { return s.walls()[0] }
func (s series) max() time.Duration    { w := s.walls(); return w[len(w)-1] }

func medianOf(sorted []time.Duration) time.Duration {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// compare runs a and b alternately (a, b, a, b, …) after one unrecorded
// warm-up each, so both see the same noise of a shared machine; then
// rssRuns runs of each under GNU time for peak RSS.
func compare(a, b command, runs, rssRuns int) (series, series, error) {
	sa, sb := series{}, series{}
	for i := -1; i < runs; i++ {
		x, err := a.run()
		if err != nil {
			return sa, sb, err
		}
		y, err := b.run()
		if err != nil {
			return sa, sb, err
		}
		if i >= 0 { // i == -1 is the warm-up
			sa.samples, sb.samples = append(sa.samples, x), append(sb.samples, y)
		}
	}
	var err error
	if sa.rss, err = a.peakRSS(rssRuns); err != nil {
		return sa, sb, err
	}
	sb.rss, err = b.peakRSS(rssRuns)
	return sa, sb, err
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
