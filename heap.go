package main

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
)

// startingHeap lets the heap grow to size before the first collection,
// then hands pacing back to the ordinary GOGC=100. A command that reads one
// large answer and exits otherwise collects as soon as the heap passes the
// runtime's 4 MB minimum, a collection that is a visible part of a large
// `vq invoke … --json` (BENCHMARKS.md, "One collection mid-read"). The Go compiler
// starts its heap the same way. A GOGC or GOMEMLIMIT the user set is left
// alone.
func startingHeap(size int64) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(size)
	// The first collection finds sentinel unreachable and runs the cleanup.
	sentinel := new([64]byte)
	runtime.AddCleanup(sentinel, func(struct{}) {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
	}, struct{}{})
}
