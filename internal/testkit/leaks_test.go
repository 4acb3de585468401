package testkit

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// cleanupT is a test whose cleanups run when the test says, and whose
// errors are kept: NoLeaks's verdict on a test, without failing this one.
type cleanupT struct {
	testing.TB
	name     string
	cleanups []func()
	errors   []string
}

func (c *cleanupT) Name() string     { return c.name }
func (c *cleanupT) Helper()          {}
func (c *cleanupT) Cleanup(f func()) { c.cleanups = append(c.cleanups, f) }
func (c *cleanupT) Errorf(format string, args ...any) {
	c.errors = append(c.errors, fmt.Sprintf(format, args...))
}

func (c *cleanupT) end() string {
	for i := len(c.cleanups) - 1; i >= 0; i-- {
		c.cleanups[i]()
	}
	return strings.Join(c.errors, "\n")
}

// parked is a goroutine's function that says it runs, then waits for stop.
func parked(running chan<- struct{}, stop <-chan struct{}) {
	close(running)
	<-stop
}

// A goroutine a test started, or one that a goroutine of the test
// started, is named with its stack while it runs after the test; one that
// ends within the grace, or is long-lived by name, is not; another test's
// goroutines are not this one's.
func TestNoLeaksNamesWhatTheTestLeftRunning(t *testing.T) {
	ctx := Bound(t)
	leaky := &cleanupT{TB: t, name: t.Name() + "-leaky"}
	NoLeaks(leaky)
	running, stop := make(chan struct{}), make(chan struct{})
	go func() { go parked(running, stop) }()
	Receive(t, ctx, running, "the goroutine to start")
	left := awaitGoroutines(leaky.name, 50*time.Millisecond)
	if !strings.Contains(left, "testkit.parked ") || !strings.Contains(left, "leaks_test.go:") {
		t.Errorf("the goroutine left running is not named with its stack:\n%s", left)
	}
	if other := awaitGoroutines(t.Name()+"-other", 0); other != "" {
		t.Errorf("another test's goroutines are counted as this one's:\n%s", other)
	}
	longLived.top = append(longLived.top, "github.com/visualq/vq/internal/testkit.parked")
	if left := awaitGoroutines(leaky.name, 0); left != "" {
		t.Errorf("a long-lived goroutine is counted:\n%s", left)
	}
	longLived.top = longLived.top[:len(longLived.top)-1]

	close(stop)
	if errs := leaky.end(); errs != "" {
		t.Errorf("a goroutine that ended is reported: %s", errs)
	}
}
