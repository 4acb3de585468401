package testkit

import (
	"bytes"
	"context"
	"fmt"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// leakLabel is the pprof label NoLeaks gives a test's goroutine, with the
// test's name: Go copies a goroutine's labels to each goroutine it starts,
// so every goroutine the test starts (its servers, their connections,
// what vq starts for it) carries the test's name, also while other tests
// run in parallel, which goleak's whole-process view cannot tell apart.
const leakLabel = "vq-test"

// leakGrace is how long a test's goroutines are given to end once the
// test and its cleanups have: a connection's goroutine sees its peer gone
// only when it is next scheduled.
const leakGrace = 5 * time.Second

// longLived are the functions of goroutines that outlive, by design, the
// session or request that started them, as goleak.IgnoreTopFunction and
// goleak.IgnoreAnyFunction name them (the top function, or any function
// of the stack). Each is bounded on its own.
var longLived = struct{ top, any []string }{
	top: []string{
		// os/signal's one loop, started by the first signal.Notify of the
		// process (vq's interrupt handling), lives as long as it does.
		"os/signal.signal_recv",
	},
}

// tracked are the names of the tests NoLeaks watches.
var tracked sync.Map // test name → struct{}

// NoLeaks fails t when a goroutine it started (directly or not) is still
// running leakGrace after t and its cleanups have ended, listing their
// stacks: a server, a session, a child's reader or a timer's callback
// that nothing ends. It labels the calling goroutine, the test's, so that
// what it starts afterwards is counted: call it first (Bound does; so do
// the helpers that start servers). Calling it again for the same test
// does nothing, and so does calling it in a subtest of a test it watches:
// that test's goroutines, its subtests' included, are checked when it
// ends, after the servers it shares with them are closed (a client's idle
// connection to them ends only then).
func NoLeaks(t testing.TB) {
	t.Helper()
	name := t.Name()
	for ancestor := name; ; {
		if _, watched := tracked.Load(ancestor); watched {
			return
		}
		i := strings.LastIndex(ancestor, "/")
		if i < 0 {
			break
		}
		ancestor = ancestor[:i]
	}
	tracked.Store(name, struct{}{})
	pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels(leakLabel, name)))
	t.Cleanup(func() {
		tracked.Delete(name)
		if leaked := awaitGoroutines(name, leakGrace); leaked != "" {
			t.Errorf("goroutines started by %s still run after it ended:\n%s", name, leaked)
		}
	})
}

// awaitGoroutines waits up to grace for the goroutines labelled with the
// test's name to end, and describes those that have not.
func awaitGoroutines(name string, grace time.Duration) string {
	deadline := time.Now().Add(grace)
	for pause := time.Millisecond; ; pause = min(2*pause, 100*time.Millisecond) {
		leaked := goroutinesOf(name)
		if len(leaked) == 0 {
			return ""
		}
		if time.Now().After(deadline) {
			return strings.Join(leaked, "\n")
		}
		time.Sleep(pause)
	}
}

// goroutinesOf are the stacks of the goroutines labelled with the test's
// name, but the one asking and the long-lived ones, as the goroutine
// profile groups them ("2 goroutines:" then a function and its file:line
// per line, the top first).
func goroutinesOf(name string) []string {
	var profile bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&profile, 1); err != nil {
		return []string{err.Error()}
	}
	label := fmt.Sprintf("%q:%q", leakLabel, name)
	var leaked []string
	// The profile's groups are separated by blank lines: a count line
	// ("3 @ 0x..."), a labels line when there are labels, and a line per
	// frame ("#\t0xPC\tfunction+0xoff\tfile:line").
	_, groups, _ := strings.Cut(profile.String(), "\n") // past "goroutine profile: total N"
	for _, group := range strings.Split(groups, "\n\n") {
		lines := strings.Split(strings.TrimSpace(group), "\n")
		if len(lines) < 3 || !strings.HasPrefix(lines[1], "# labels: ") || !strings.Contains(lines[1], label) {
			continue
		}
		count, _, _ := strings.Cut(lines[0], " ")
		var funcs, frames []string
		for _, line := range lines[2:] {
			fields := strings.Fields(line)
			if len(fields) < 4 {
				continue
			}
			fn, _, _ := strings.Cut(fields[2], "+0x")
			funcs = append(funcs, fn)
			frames = append(frames, "\t"+fn+" "+strings.Join(fields[3:], " "))
		}
		if len(funcs) == 0 || slices.Contains(funcs, askingFunction) || ignored(funcs) {
			continue
		}
		leaked = append(leaked, fmt.Sprintf("%s goroutine(s):\n%s", count, strings.Join(frames, "\n")))
	}
	return leaked
}

// askingFunction is on the stack of the goroutine that looks for leaks.
const askingFunction = "github.com/visualq/vq/internal/testkit.goroutinesOf"

// ignored reports a long-lived goroutine, by the functions of its stack.
func ignored(funcs []string) bool {
	if slices.Contains(longLived.top, funcs[0]) {
		return true
	}
	return slices.ContainsFunc(funcs, func(fn string) bool { return slices.Contains(longLived.any, fn) })
}
