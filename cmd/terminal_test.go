package cmd

import (
	"strings"
	"testing"

	"github.com/visualq/vq/api"
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
	body := toolJSON(map[string]any{
		"ok": false, "tool": "get_run_failures", "summary": "summary " + hostile,
		"data":        map[string]any{"label " + hostile: hostile, "rows": []map[string]any{{"scenario": hostile}}},
		"warnings":    []string{"warn " + hostile},
		"nextActions": []map[string]any{{"label": "next " + hostile, "tool": "get_diff_stats", "args": map[string]any{"scenarioLabel": hostile}}},
		"error":       map[string]string{"code": "tool_error", "message": "message " + hostile}, "recoverable": false,
	})
	s := newToolServer(t, 500, body)
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
			stdout, stderr, exit := runVQ(t, s.env(), append([]string{"invoke", "get_run_failures", "--no-retry"}, tc.args...)...)
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
	s := newJobServer(t, step{}, map[string][]step{"job_1": {
		jobStep("job_1", "running", 1, 2, "message "+hostile),
		{200, toolJSON(map[string]any{"ok": false, "tool": api.ToolJobStatus, "summary": "failed " + hostile,
			"data":  map[string]any{"jobId": "job_1", "status": api.JobFailed},
			"error": map[string]string{"code": "tool_error", "message": "why " + hostile}, "recoverable": false})},
	}})
	stdout, stderr, exit := runVQ(t, s.env(), "watch", "job_1", "--interval", "1ms")
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
	// The base URL is the user's own, but it is echoed in errors: a pasted
	// one with escapes must not act on the terminal either.
	_, stderr, exit := runVQ(t, map[string]string{"VQ_BASE_URL": "ftp://x\x1b[2J\u202e", "VQ_API_KEY": secretKey}, "failures", "r")
	if exit != 2 {
		t.Errorf("exit %d, want 2", exit)
	}
	assertTerminalSafe(t, "stderr", stderr)
}
