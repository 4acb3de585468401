//go:build !race

package cmd

// raceDetector: this test binary runs under the race detector.
const raceDetector = false
