package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// pacing is the collector's GOGC percent and memory limit.
func pacing() (gogc, limit uint64) {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64(), s[1].Value.Uint64()
}

// The starting heap lasts until the first collection: after it the process
// collects as GOGC=100 would, so a long TUI session's memory stays bounded.
func TestStartingHeapEndsAtTheFirstCollection(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	gogc := debug.SetGCPercent(100)
	limit := debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() {
		debug.SetGCPercent(gogc)
		debug.SetMemoryLimit(limit)
	})
	startingHeap(32 << 20)
	if gogc, limit := pacing(); gogc != math.MaxUint64 || limit != 32<<20 { // off reads as MaxUint64
		t.Fatalf("before the first collection: GOGC %d, limit %d; want off and 32 MiB", gogc, limit)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		gogc, limit := pacing()
		if gogc == 100 && limit == math.MaxInt64 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after collecting: GOGC %d, limit %d; want 100 and none", gogc, limit)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestStartingHeapLeavesTheUsersSettings(t *testing.T) {
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv("GOGC", "")
			t.Setenv("GOMEMLIMIT", "")
			t.Setenv(env, "50")
			gogc, limit := pacing()
			startingHeap(32 << 20)
			if g, l := pacing(); g != gogc || l != limit {
				t.Errorf("GOGC %d, limit %d; want the process's own %d and %d", g, l, gogc, limit)
			}
		})
	}
}
