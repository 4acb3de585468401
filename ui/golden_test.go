package ui

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/visualq/vq/api"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/*.golden from the current rendering")

// golden compares text with testdata/name.golden, or rewrites it with
// -update.
func golden(t *testing.T, name, text string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *updateGolden {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./ui -run %s -update to create it)", err, t.Name())
	}
	if string(want) != text {
		t.Errorf("%s differs from the rendering (go test ./ui -update rewrites it)\n--- want\n%s\n--- got\n%s", path, want, text)
	}
}

// The golden frames are the ASCII colour profile's: what NO_COLOR shows,
// bold, underline and reverse included.

func TestGoldenFailures80x24(t *testing.T) {
	t.Parallel()
	s := triageServer(t, 40)
	m := start(t, s, failuresCall)
	golden(t, "failures_80x24", screenText(t, m))
}

func TestGoldenDiff80x24(t *testing.T) {
	t.Parallel()
	s := triageServer(t, 3)
	m := start(t, s, failuresCall)
	press(m, "j", "enter")
	golden(t, "diff_80x24", screenText(t, m))
}

func TestGoldenConfirmDialog(t *testing.T) {
	t.Parallel()
	s := triageServer(t, 3)
	m := start(t, s, failuresCall)
	press(m, "enter", "1")
	golden(t, "confirm_80x24", screenText(t, m))
}

func TestGoldenQuitFrame120x40(t *testing.T) {
	t.Parallel()
	s := triageServer(t, 40)
	m := start(t, s, failuresCall)
	update(m, tea.WindowSizeMsg{Width: 120, Height: 40})
	press(m, "tab", "s", "q")
	golden(t, "quit_120x40", screenText(t, m))
}

func TestGoldenRateLimit(t *testing.T) {
	t.Parallel()
	s := triageServer(t, 1)
	m := start(t, s, api.Call{Tool: "slow_tool", Args: map[string]any{}})
	golden(t, "rate_limit_80x24", screenText(t, m))
}

func TestGoldenPrintedOnce(t *testing.T) {
	t.Parallel()
	s := triageServer(t, 1)
	call := api.Call{Tool: "get_diff_stats", Args: map[string]any{"runId": "run_abc", "scenarioLabel": "Home"}}
	first, err := s.client().Invoke(context.Background(), call)
	if err != nil {
		t.Fatal(err)
	}
	first.NextActions = nil // nothing to act on: printed once
	var out strings.Builder
	// A terminal's styling (forced, as out is none), without colours.
	terminal := func(k string) string { return map[string]string{"CLICOLOR_FORCE": "1"}[k] }
	if _, err := Run(context.Background(), Options{In: failingReader{t}, Out: &out, NoColor: true, Getenv: terminal}, call, first); err != nil {
		t.Fatal(err)
	}
	golden(t, "printed_once", out.String())
}
