package cmd

import (
	"strings"
	"testing"

	"github.com/visualq/vq/cmd/cmdtest"
	"github.com/visualq/vq/sandbox"
)

// On a terminal a RUN_ID left out is picked from the runs vq last showed on
// the active server; another server's runs are not offered.
func TestALeftOutRunIsPickedFromTheRunsSeenOnTheServer(t *testing.T) {
	t.Parallel()
	s := cmdtest.NewSandbox(t, sandbox.Options{Rate: -1})
	env := terminalEnv(s.Env())
	env["XDG_CACHE_HOME"] = t.TempDir()
	for _, run := range []string{"run_big", "run_abc"} {
		if _, stderr, exit := runVQ(t, env, "failures", run, "--no-tui"); exit != 0 {
			t.Fatalf("vq failures %s: exit %d: %s", run, exit, stderr)
		}
	}

	p := startTmux(t, 100, 30, env, "true", "failures")
	p.waitFor("the picker, newest first", func(screen string) bool {
		abc, big := strings.Index(screen, "run_abc"), strings.Index(screen, "run_big")
		return strings.Contains(screen, "Which run?") && abc >= 0 && big > abc
	})
	p.keys("Down", "Enter")
	p.waitFor("the picked run's failures", shows("✗ 350 of 480 checks failed"))
	p.keys("q")
	p.waitFor("vq's end", shows("EXIT=0"))

	other := cmdtest.NewSandbox(t, sandbox.Options{Rate: -1})
	otherEnv := other.Env()
	otherEnv["XDG_CACHE_HOME"] = env["XDG_CACHE_HOME"]
	_, stderr, exit := vqRun{Env: otherEnv, TTY: true}.run(t, "failures")
	if exit != 2 || !strings.Contains(stderr, "needs RUN_ID") || len(other.Calls()) != 0 {
		t.Errorf("another server: exit %d, %d requests, stderr %s; want the usage error, nothing sent", exit, len(other.Calls()), stderr)
	}
}
