package cmd

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/pflag"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/textsafe"
	"github.com/visualq/vq/ui"
)

// MCPOptions are the global flags of MCP servers in general: a header of
// their own, their log level, where their binary content goes.
type MCPOptions struct {
	HeaderLines []string
	LogLevel    string
	SaveDir     string
	// ElicitDefaults accepts a server's elicitation with its schema's
	// defaults instead of declining it.
	ElicitDefaults bool
	// EnvPairs are the --env KEY=VALUE pairs of a stdio: server.
	EnvPairs []string

	headers http.Header
}

// logLevels are the levels of MCP logging/setLevel, least severe first.
var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

func addMCPFlags(fs *pflag.FlagSet, o *MCPOptions) {
	fs.StringArrayVar(&o.HeaderLines, "header", nil, "'Name: value' sent with every MCP request (repeatable), for servers with a header of their own")
	fs.StringArrayVar(&o.EnvPairs, "env", nil, "KEY=VALUE set in a stdio: MCP server's environment (repeatable); it gets only HOME, LOGNAME, PATH, SHELL, TERM and USER of vq's")
	fs.StringVar(&o.LogLevel, "log-level", "", "ask an MCP server to log at this level and above: "+strings.Join(logLevels, ", "))
	fs.StringVar(&o.SaveDir, "save-dir", "", "save images, audio and binary resources of an MCP answer into this directory")
	fs.BoolVar(&o.ElicitDefaults, "elicit-defaults", false, "answer an MCP server's questions (elicitation) with their schema's defaults without asking; otherwise vq asks with a form on a terminal and declines in a script")
}

// resolve checks the flags before anything is sent.
func (o *MCPOptions) resolve() error {
	if o.LogLevel != "" && !slices.Contains(logLevels, o.LogLevel) {
		return &exitcode.UsageError{Reason: fmt.Sprintf("unknown --log-level %q", o.LogLevel), Hint: "use one of: " + strings.Join(logLevels, ", ")}
	}
	for _, pair := range o.EnvPairs {
		if name, _, ok := strings.Cut(pair, "="); !ok || name == "" || strings.ContainsRune(name, 0) {
			return &exitcode.UsageError{Reason: fmt.Sprintf("--env %q is not KEY=VALUE", pair), Hint: "example: --env ALLOWED_DIR=/tmp"}
		}
	}
	o.headers = nil
	for _, line := range o.HeaderLines {
		name, value, ok := strings.Cut(line, ":")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || !validHeaderName(name) || strings.ContainsAny(value, "\r\n") {
			return &exitcode.UsageError{Reason: fmt.Sprintf("--header %q is not 'Name: value'", line), Hint: "example: --header 'X-Api-Key: secret'"}
		}
		if o.headers == nil {
			o.headers = http.Header{}
		}
		o.headers.Add(name, value)
	}
	return nil
}

// validHeaderName reports an HTTP token (RFC 9110).
func validHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if r > 0x7e || r <= ' ' || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) {
			return false
		}
	}
	return true
}

// elicit answers a server's question (MCP elicitation, form mode). With
// --elicit-defaults it accepts the schema's defaults without asking
// (declining still when a required field has none). Otherwise a person at
// a terminal is asked with a form: inside the TUI while it runs, which
// owns the terminal, else on stderr. A script declines at once, as vq
// does a question it has no form for. Outside the TUI, whose screen says
// it, a notice on stderr tells what the server asked and what was
// answered.
func (f *Factory) elicit(ctx context.Context, e api.Elicitation) (api.ElicitAnswer, error) {
	if !f.Global.MCP.ElicitDefaults && e.Askable() {
		if answer, asked := f.asker.Ask(ctx, e); asked {
			return answer, nil
		}
	}
	var answer api.ElicitAnswer
	var how string
	switch {
	case f.Global.MCP.ElicitDefaults:
		answer = api.DefaultsAnswer(e)
		how = "accepted with its defaults"
		if answer.Action != api.ElicitAccept {
			how = "declined: a required field has no default"
		}
	case !f.canAsk():
		answer = api.ElicitAnswer{Action: api.ElicitDecline}
		how = "declined (on a terminal vq asks; --elicit-defaults accepts the defaults)"
	case !e.Askable():
		answer = api.ElicitAnswer{Action: api.ElicitDecline}
		how = "declined: vq has no form for a field it asks for"
	default:
		answer = f.askOnTerminal(ctx, e)
		how = answer.Outcome()
	}
	if !f.asker.Running() {
		fmt.Fprintf(f.IO.ErrOut, "vq: the server asks: %s: %s\n", textsafe.SanitizeLine(e.Message), how)
	}
	return answer, nil
}

// canAsk reports whether a person can answer a form: stdin and stderr are
// a terminal that draws one.
func (f *Factory) canAsk() bool {
	return f.IO.InTTY && f.IO.ErrTTY && f.Getenv("TERM") != "dumb"
}

// askOnTerminal asks with a form on stderr, one question at a time: the
// server may ask several at once, over concurrent calls.
func (f *Factory) askOnTerminal(ctx context.Context, e api.Elicitation) api.ElicitAnswer {
	f.asking.Lock()
	defer f.asking.Unlock()
	defer f.drawing.hold()()
	return ui.Elicit(ctx, ui.Options{In: f.IO.In, Out: f.IO.ErrOut, NoColor: f.Global.NoColor, Getenv: f.Getenv}, e)
}

// progressViews are the live progress views drawn on stderr.
type progressViews struct {
	mu    sync.Mutex
	views []*ui.JobProgress
}

func (v *progressViews) add(p *ui.JobProgress) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.views = append(v.views, p)
}

func (v *progressViews) remove(p *ui.JobProgress) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.views = slices.DeleteFunc(v.views, func(q *ui.JobProgress) bool { return q == p })
}

// hold stops every view drawing until release.
func (v *progressViews) hold() (release func()) {
	v.mu.Lock()
	defer v.mu.Unlock()
	releases := make([]func(), 0, len(v.views))
	for _, p := range v.views {
		releases = append(releases, p.Hold())
	}
	return func() {
		for _, r := range releases {
			r()
		}
	}
}
