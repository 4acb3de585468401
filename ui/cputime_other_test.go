//go:build !unix

package ui

import "time"

// cpuTime is unknown here: the benchmarks report wall time only.
func cpuTime() time.Duration { return 0 }
