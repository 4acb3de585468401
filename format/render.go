package format

import (
	"context"
	"io"
	"slices"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/exitcode"
)

// Options say how Render writes a response.
type Options struct {
	Format string // one of Formats; "" is text
	Query  *Query // --jq: filters the JSON document instead
	// Terminal: a person reads stdout; JSON is indented, tables get bars.
	Terminal bool
	Getenv   func(string) string // supplies GITHUB_STEP_SUMMARY
	// Commands prints next actions as their front commands; nil: vq invoke.
	Commands CommandPrinter
	Workflow io.Writer // takes the github format's workflow commands
	Saved    Saved     // the diff images saved (--save-dir), which the CI formats link
}

// renderers write a response on out and a failure's error line on errOut.
var renderers = map[string]func(out, errOut io.Writer, r *api.ToolResponse, o Options) error{
	"text": func(out, errOut io.Writer, r *api.ToolResponse, o Options) error {
		return plain(out, errOut, r, o.Commands, o.Terminal)
	},
	"json": func(out, errOut io.Writer, r *api.ToolResponse, o Options) error {
		return withErrorLine(errOut, r, JSON(out, r, o.Terminal))
	},
	"markdown": func(out, errOut io.Writer, r *api.ToolResponse, o Options) error {
		return withErrorLine(errOut, r, Markdown(out, r, o.Commands, o.Saved))
	},
	"junit": func(out, errOut io.Writer, r *api.ToolResponse, o Options) error {
		return withErrorLine(errOut, r, JUnit(out, r, o.Saved))
	},
	"github": func(out, errOut io.Writer, r *api.ToolResponse, o Options) error {
		summary := ""
		if o.Getenv != nil {
			summary = o.Getenv("GITHUB_STEP_SUMMARY")
		}
		if o.Workflow != nil {
			out = o.Workflow
		}
		return withErrorLine(errOut, r, GitHub(out, r, summary, o.Commands, o.Saved))
	},
}

// Formats are the values of --format, in the order help lists them.
var Formats = []string{"text", "json", "markdown", "junit", "github"}

// ciFormats are the renderings for CI systems, which --jq cannot filter.
var ciFormats = []string{"markdown", "junit", "github"}

// IsCI reports a format written for a CI system (markdown, junit, github).
func IsCI(name string) bool { return slices.Contains(ciFormats, name) }

// Render writes one response as o asks: the one place a ToolResponse becomes bytes.
func Render(ctx context.Context, out, errOut io.Writer, r *api.ToolResponse, o Options) error {
	if o.Query != nil {
		return withErrorLine(errOut, r, o.Query.Run(ctx, out, r))
	}
	name := o.Format
	if name == "" {
		name = "text"
	}
	render, ok := renderers[name]
	if !ok {
		return exitcode.Usagef("unknown format %q", name)
	}
	return render(out, errOut, r, o)
}

// withErrorLine adds a failure's error line on errOut after a program's rendering, so a CI log says why.
func withErrorLine(errOut io.Writer, r *api.ToolResponse, err error) error {
	if err != nil {
		return err
	}
	return WriteErrorLine(errOut, r)
}
