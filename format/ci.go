package format

import (
	"io"

	"github.com/visualq/vq/api"
)

// Formats are the values of --format: text (the TUI or plain text), json,
// and the CI renderings that RenderCI writes.
var Formats = []string{"text", "json", "markdown", "junit", "github"}

// IsCI reports a format that RenderCI writes.
func IsCI(name string) bool {
	return name == "markdown" || name == "junit" || name == "github"
}

// RenderCI writes a response in a CI format (markdown, junit or github) on
// out; for a failed call it also writes the error line on errOut, for the
// person reading the CI log. getenv supplies GITHUB_STEP_SUMMARY.
func RenderCI(out, errOut io.Writer, r *api.ToolResponse, name string, getenv func(string) string) error {
	var err error
	switch name {
	case "markdown":
		err = Markdown(out, r)
	case "junit":
		err = JUnit(out, r)
	case "github":
		err = GitHub(out, r, getenv("GITHUB_STEP_SUMMARY"))
	default:
		return Usagef("unknown CI format %q", name)
	}
	if err == nil && !r.OK {
		_, err = io.WriteString(errOut, ErrorLine(r)+"\n")
	}
	return err
}
