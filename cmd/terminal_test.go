package cmd

import (
	"strings"
	"testing"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/testkit"
)

// hostile is server text that would retitle the window, clear the screen,
// set colours and reorder or hide what follows if a terminal obeyed it.
const hostile = "a\x1b]0;owned\x07b\u202ec\u200bd\x1b[2Je\u009b31mf"

// hostileShown is what every terminal path shows of it: sequences gone,
// the bidi override and the zero-width space visible, not obeyed.
const hostileShown = "ab<U+202E>c<U+200B>def"

// assertTerminalSafe fails when out holds anything a terminal would act on.
func assertTerminalSafe(t *testing.T, what, out string) {
	t.Helper()
	if strings.ContainsAny(out, "\x1b\x07\u009b\u202e\u200b") {
		t.Errorf("%s lets control characters through: %q", what, out)
	}
}

func TestServerTextIsSafeOnEveryTerminalPath(t *testing.T) {
	t.Parallel()
	body := testkit.OK("get_run_failures", "summary "+hostile,
		map[string]any{"label " + hostile: hostile, "rows": []map[string]any{{"scenario": hostile}}},
		testkit.Warnings("warn "+hostile),
		testkit.NextActions(map[string]any{"label": "next " + hostile, "tool": "get_diff_stats", "args": map[string]any{"scenarioLabel": hostile}}),
		testkit.Failed("tool_error", "message "+hostile, false))
	s := testkit.NewServer(t, testkit.Always(500, body))
	for _, tc := range []struct {
		name string
		args []string
		// shown lists where the hostile text must appear, made visible.
		stdout, stderr []string
	}{
		{"plain", nil,
			[]string{"summary " + hostileShown, "warning: warn " + hostileShown, "label " + hostileShown, "# next " + hostileShown},
			[]string{"error: tool_error: message " + hostileShown}},
		{"--jq string", []string{"--jq", ".summary"}, []string{"summary " + hostileShown}, nil},
		{"--jq values", []string{"--jq", ".data"}, []string{`\u202e`}, nil},
		{"--json", []string{"--json"}, []string{`\u202ec\u200bd`}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, exit := runVQ(t, s.Env(), append([]string{"invoke", "get_run_failures", "--no-retry"}, tc.args...)...)
			if exit != 37 {
				t.Errorf("exit %d, want 37 (tool_error, not recoverable)", exit)
			}
			assertTerminalSafe(t, "stdout", stdout)
			assertTerminalSafe(t, "stderr", stderr)
			for _, want := range tc.stdout {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout)
				}
			}
			for _, want := range tc.stderr {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
		})
	}
}

func TestWatchProgressLinesAreSafe(t *testing.T) {
	t.Parallel()
	s := testkit.NewJobServer(t, testkit.Reply{}, map[string][]testkit.Reply{"job_1": {
		testkit.JobStep("job_1", "running", 1, 2, "message "+hostile),
		testkit.Answer(200, testkit.Failure(api.ToolJobStatus, "tool_error", "why "+hostile, false, testkit.Summary("failed "+hostile),
			testkit.Set("data", map[string]any{"jobId": "job_1", "status": api.JobFailed}))),
	}})
	stdout, stderr, exit := runVQ(t, s.Env(), "watch", "job_1", "--interval", "1ms")
	if exit != 37 {
		t.Errorf("exit %d, want 37", exit)
	}
	assertTerminalSafe(t, "stdout", stdout)
	assertTerminalSafe(t, "stderr", stderr)
	for _, want := range []string{"job_1 running 1/2 message " + hostileShown, "error: tool_error: why " + hostileShown} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
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
