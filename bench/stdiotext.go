package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/visualq/vq/internal/testkit"
	"github.com/visualq/vq/internal/textsafe"
)

// stdioTextEnv makes the bench binary the stdio server of the stdiotext
// row (serveStdioTextIfAsked): a child of vq's gets it through --env.
const stdioTextEnv = "VQ_BENCH_STDIO_TEXT"

// The stdiotext row: the size of the message, and the peak RSS it may
// cost vq, in times the message (docs/reliability.md).
const (
	stdioTextSize  = 60 << 20
	stdioTextBound = 3
)

// serveStdioTextIfAsked serves the stdiotext row's answer over stdio
// (testkit.ServeStdioText) when the bench binary was started as its
// server, and reports whether it was.
func serveStdioTextIfAsked() bool {
	size, err := strconv.Atoi(os.Getenv(stdioTextEnv))
	if err != nil {
		return false
	}
	if err := testkit.ServeStdioText(os.Stdin, os.Stdout, size); err != nil {
		fmt.Fprintln(os.Stderr, "bench stdio server:", err)
	}
	return true
}

// stdioText measures what one large stdio message costs vq: a 60 MiB text
// answer (a file's contents read back), from a server that holds none of
// it, printed as the document (--json) and as text. The goal is vq's
// peak RSS against the message's size; the times are shown.
func (b *bench) stdioText() row {
	what := "a 60 MiB stdio text answer (`vq --endpoint stdio:… invoke text --json`, and plain)"
	step(what)
	self, err := os.Executable()
	if err != nil {
		return failed(what, err)
	}
	args := []string{"--endpoint", "stdio:" + textsafe.ShellQuote(self), "--env", fmt.Sprintf("%s=%d", stdioTextEnv, stdioTextSize), "invoke", testkit.TextTool}
	doc, text, err := compare(b.vqCmd(append(args, "--json")...), b.vqCmd(args...), b.runs, b.rssRuns())
	if err != nil {
		return failed(what, err)
	}
	if written := doc.samples[0].out; written < stdioTextSize {
		return failed(what, fmt.Errorf("--json wrote %d bytes, less than the answer", written))
	}
	bound := int64(stdioTextBound * stdioTextSize)
	return row{
		what:    what,
		vq:      "--json " + spread(doc),
		against: "plain: " + spread(text),
		ratio:   fmt.Sprintf("%.2f× / %.2f× the message", float64(doc.rss)/stdioTextSize, float64(text.rss)/stdioTextSize),
		rss:     mib(doc.rss) + " / " + mib(text.rss),
		goal:    fmt.Sprintf("RSS ≤ %d× the message (%s)", stdioTextBound, mib(bound)),
		verdict: verdictOf(doc.rss > 0 && doc.rss <= bound && text.rss > 0 && text.rss <= bound),
	}
}
