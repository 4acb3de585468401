//go:build race

package cmd

// raceDetector: this test binary runs under the race detector, which slows
// the test's own servers and every goroutine several times over.
const raceDetector = true
