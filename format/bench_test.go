package format

import (
	"io"
	"os"
	"testing"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/fixture"
)

// BenchmarkRender100k renders the 100k-failure answer as each output does:
// the plain table a pipe gets, --json (the server's bytes, escaped where a
// terminal could act on them), and the CI formats, which read the checks;
// github writes its step summary to the null device, so the summary's
// rendering (stopped at 1 MiB) is counted.
func BenchmarkRender100k(b *testing.B) {
	resp, err := api.DecodeToolResponse(fixture.RunFailures(100_000))
	if err != nil {
		b.Fatal(err)
	}
	for _, out := range []struct {
		name   string
		render func(io.Writer, *api.ToolResponse) error
	}{
		{"plain", func(w io.Writer, r *api.ToolResponse) error { return Plain(w, io.Discard, r, nil) }},
		{"json", func(w io.Writer, r *api.ToolResponse) error { return JSON(w, r, false) }},
		{"junit", func(w io.Writer, r *api.ToolResponse) error { return JUnit(w, r, nil) }},
		{"markdown", func(w io.Writer, r *api.ToolResponse) error { return Markdown(w, r, nil, nil) }},
		{"github", func(w io.Writer, r *api.ToolResponse) error { return GitHub(w, r, os.DevNull, nil, nil) }},
	} {
		b.Run(out.name, func(b *testing.B) {
			b.SetBytes(int64(len(resp.Raw)))
			b.ReportAllocs()
			for b.Loop() {
				if err := out.render(io.Discard, resp); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkInvokeCommand quotes next actions as printed under every plain
// answer: plain words, words needing single quotes, JSON values, and a
// hostile value that needs $'...'.
func BenchmarkInvokeCommand(b *testing.B) {
	actions := []struct {
		name string
		a    api.NextAction
	}{
		{"plain", api.NextAction{Tool: "get_run_failures", Args: map[string]any{"runId": "run_abc"}}},
		{"quoted", api.NextAction{Tool: "get_diff_stats", Args: map[string]any{"runId": "run_abc", "scenarioLabel": "Product page's hero", "viewport": "desktop"}}},
		{"json", api.NextAction{Tool: "tracking_run", Args: map[string]any{"events": []any{"add_to_cart", "purchase"}, "limit": 5, "confirm": true}}},
		{"hostile", api.NextAction{Tool: "get_diff_stats", Args: map[string]any{"scenarioLabel": "\x1b[2Jwipe\u202e$(rm -rf ~)"}}},
	}
	for _, c := range actions {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				InvokeCommand(c.a)
			}
		})
	}
}
