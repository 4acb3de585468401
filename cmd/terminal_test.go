package cmd

import (
	"strings"
	"testing"
)

// assertTerminalSafe fails when out holds anything a terminal would act on.
func assertTerminalSafe(t *testing.T, what, out string) {
	t.Helper()
	if strings.ContainsAny(out, "\x1b\x07\u009b\u202e\u200b") {
		t.Errorf("%s lets control characters through: %q", what, out)
	}
}

func TestUsageAndTransportErrorsAreSafe(t *testing.T) {
	t.Parallel()
	// The base URL is the user's own, but it is echoed in errors: a pasted
	// one with escapes must not act on the terminal either.
	_, stderr, exit := runVQ(t, map[string]string{"VQ_BASE_URL": "ftp://x\x1b[2J\u202e", "VQ_API_KEY": secretKey}, "failures", "r")
	if exit != 2 {
		t.Errorf("exit %d, want 2", exit)
	}
	assertTerminalSafe(t, "stderr", stderr)
}
