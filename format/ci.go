package format

import (
	"io"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/exitcode"
)

// Formats are the values of --format: text (the TUI or plain text), json,
// and the CI renderings that RenderCI writes.
var Formats = []string{"text", "json", "markdown", "junit", "github"}

// ciRenderers are the formats RenderCI writes; getenv supplies
// GITHUB_STEP_SUMMARY.
var ciRenderers = map[string]func(out io.Writer, r *api.ToolResponse, getenv func(string) string) error{
	"markdown": func(out io.Writer, r *api.ToolResponse, _ func(string) string) error { return Markdown(out, r) },
	"junit":    func(out io.Writer, r *api.ToolResponse, _ func(string) string) error { return JUnit(out, r) },
	"github": func(out io.Writer, r *api.ToolResponse, getenv func(string) string) error {
		return GitHub(out, r, getenv("GITHUB_STEP_SUMMARY"))
	},
}

// IsCI reports a format that RenderCI writes.
func IsCI(name string) bool {
	_, ok := ciRenderers[name]
	return ok
}

// RenderCI writes a response in a CI format (markdown, junit or github) on
// out; for a failed call it also writes the error line on errOut, for the
// person reading the CI log. getenv supplies GITHUB_STEP_SUMMARY.
func RenderCI(out, errOut io.Writer, r *api.ToolResponse, name string, getenv func(string) string) error {
	render, ok := ciRenderers[name]
	if !ok {
		return exitcode.Usagef("unknown CI format %q", name)
	}
	if err := render(out, r, getenv); err != nil {
		return err
	}
	return WriteErrorLine(errOut, r)
}
