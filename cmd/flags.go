package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/visualq/vq/format"
	"github.com/visualq/vq/internal/exitcode"
)

// GlobalOptions are the flags every command shares (persistent on the
// root, so they may stand before the command's name): the connection, the
// consent and the display. Commands that cannot honour a connection flag or
// --yes refuse it (see refuses).
type GlobalOptions struct {
	BaseURL     string
	Profile     string
	Project     string
	Environment string
	Transport   string
	Endpoint    string
	Timeout     time.Duration
	NoRetry     bool
	Debug       bool
	Yes         bool
	NoTUI       bool
	NoColor     bool
	// MCP: --header, --log-level, --save-dir, --elicit-defaults (see
	// mcp_flags.go).
	MCP MCPOptions
	// timeoutGiven: --timeout was on the command line, so it bounds a
	// whole MCP call instead of its idle time.
	timeoutGiven bool
}

// connectionFlags are the global flags that only a command which calls a
// server honours.
var connectionFlags = []string{"base-url", "profile", "project", "environment", "transport", "endpoint", "timeout", "no-retry", "debug", "yes", "header", "log-level", "save-dir", "elicit-defaults"}

func addGlobalFlags(fs *pflag.FlagSet, g *GlobalOptions) {
	fs.StringVar(&g.BaseURL, "base-url", "", "VisualQ server URL (env VQ_BASE_URL)")
	fs.StringVar(&g.Profile, "profile", "", "signed-in server to use, by its login --name or URL (env VQ_PROFILE)")
	fs.StringVar(&g.Project, "project", "", "project sent with every call (env VQ_PROJECT)")
	fs.StringVar(&g.Environment, "environment", "", "environment sent with every call (env VQ_ENVIRONMENT)")
	fs.StringVar(&g.Transport, "transport", "", "endpoint to use: invoke or mcp (env VQ_TRANSPORT; default invoke)")
	fs.StringVar(&g.Endpoint, "endpoint", "", "full URL of an MCP endpoint; implies --transport mcp (env VQ_ENDPOINT)")
	fs.DurationVar(&g.Timeout, "timeout", 60*time.Second, "timeout of each request; over MCP, of a whole call (without it: 60s without an answer or progress)")
	fs.BoolVar(&g.NoRetry, "no-retry", false, "disable automatic retries of rate limits and unexpected errors")
	fs.BoolVar(&g.Debug, "debug", false, "trace HTTP on stderr, credentials redacted (env VQ_DEBUG)")
	fs.BoolVar(&g.Yes, "yes", false, "consent to write tools: send confirm: true")
	fs.BoolVar(&g.NoTUI, "no-tui", false, "plain output even on a terminal (env VQ_NO_TUI)")
	fs.BoolVar(&g.NoColor, "no-color", false, "no colours (env NO_COLOR)")
	addMCPFlags(fs, &g.MCP)
}

// resolve folds in the environment variables that stand in for flags (vq
// help environment), once, so every later test of them is the flag's.
func (g *GlobalOptions) resolve(c *cobra.Command, getenv func(string) string) error {
	g.NoTUI = g.NoTUI || getenv("VQ_NO_TUI") != ""
	g.NoColor = g.NoColor || getenv("NO_COLOR") != ""
	g.Debug = g.Debug || getenv("VQ_DEBUG") != ""
	if g.Timeout <= 0 {
		return exitcode.Usagef("--timeout must be positive, got %s", g.Timeout)
	}
	g.timeoutGiven = c.Flags().Changed("timeout")
	if err := g.MCP.resolve(); err != nil {
		return err
	}
	if names := refusedFlags(c); len(names) > 0 {
		return &exitcode.UsageError{
			Reason: fmt.Sprintf("%s does not apply to %s", strings.Join(names, ", "), c.CommandPath()),
			Hint:   "see: " + c.CommandPath() + " --help",
		}
	}
	return nil
}

// refusedAnnotation lists the global flags a command refuses rather than
// accept and ignore (a command that calls no server cannot honour
// --base-url).
const refusedAnnotation = "vq.refuses"

// refuses marks the global flags c cannot honour.
func refuses(c *cobra.Command, flags ...string) *cobra.Command {
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	c.Annotations[refusedAnnotation] = strings.Join(flags, ",")
	return c
}

// callsNoServer marks c as a command that calls no server: it refuses every
// connection flag.
func callsNoServer(c *cobra.Command) *cobra.Command { return refuses(c, connectionFlags...) }

func refusedFlags(c *cobra.Command) []string {
	var names []string
	for _, name := range strings.Split(c.Annotations[refusedAnnotation], ",") {
		if name != "" && c.Flags().Changed(name) {
			names = append(names, "--"+name)
		}
	}
	return names
}

// OutputOptions are the output flags of a command that prints answers
// for programs as well as people: --json, --format and --jq.
type OutputOptions struct {
	JSON   bool
	Format string
	JQ     string

	query *format.Query
}

// addOutputFlags gives c the output flags; formats are the --format values
// it honours (format.Formats when none are named).
func addOutputFlags(c *cobra.Command, o *OutputOptions, formats ...string) {
	if len(formats) == 0 {
		formats = format.Formats
	}
	fs := c.Flags()
	fs.BoolVar(&o.JSON, "json", false, "print the answer as JSON on stdout (same as --format json)")
	if len(formats) > 1 {
		fs.StringVar(&o.Format, "format", "", "output format: "+strings.Join(formats, ", ")+" (see vq help formats)")
		_ = c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(formats, cobra.ShellCompDirectiveNoFileComp))
	}
	fs.StringVar(&o.JQ, "jq", "", "filter the JSON output with a jq expression")
	c.PreRunE = chainPreRun(c.PreRunE, func(*cobra.Command, []string) error { return o.resolve(formats) })
}

// resolve checks the output flags before anything is sent.
func (o *OutputOptions) resolve(formats []string) error {
	if o.Format != "" && !slices.Contains(formats, o.Format) {
		return &exitcode.UsageError{Reason: fmt.Sprintf("unknown --format %q", o.Format), Hint: "use one of: " + strings.Join(formats, ", ")}
	}
	if o.JQ != "" && format.IsCI(o.Format) {
		return exitcode.Usagef("--jq filters the JSON output; it does not combine with --format %s", o.Format)
	}
	if o.JSON {
		if o.Format != "" && o.Format != "json" {
			return exitcode.Usagef("--json and --format %s contradict each other", o.Format)
		}
		o.Format = "json"
	}
	if o.JQ != "" {
		q, err := format.CompileJQ(o.JQ)
		if err != nil {
			return err
		}
		o.query = q
	}
	return nil
}

// Structured is whether the flags ask for output a program reads (--json,
// --jq, a CI format) rather than text for a person. A nil OutputOptions is
// a command without output flags: text.
func (o *OutputOptions) Structured() bool {
	return o != nil && (o.query != nil || (o.Format != "" && o.Format != "text"))
}

// renderOptions are the format package's view of the flags.
func (o *OutputOptions) renderOptions() format.Options {
	if o == nil {
		return format.Options{Commands: frontingLine}
	}
	return format.Options{Format: o.Format, Query: o.query, Commands: frontingLine}
}

// writeDocument writes v, a JSON document that is no ToolResponse (the
// exit-code table, the version), as the output flags ask.
func (o *OutputOptions) writeDocument(ctx context.Context, io *IOStreams, v any) error {
	doc, err := json.Marshal(v)
	if err != nil {
		return err
	}
	opts := o.renderOptions()
	opts.Indent = io.OutTTY
	io.noteDocument()
	return format.WriteDocument(ctx, io.Out, doc, opts)
}

// asksForJSON reports whether c's flags ask for one JSON document on
// stdout, read from the flags themselves: a failure may come before the
// command checked them.
func asksForJSON(c *cobra.Command) bool {
	flag := func(name string) string {
		if f := c.Flags().Lookup(name); f != nil {
			return f.Value.String()
		}
		return ""
	}
	return flag("json") == "true" || flag("format") == "json"
}

// DefaultWatchTimeout bounds a wait when --wait-timeout is not given: long
// enough for any proof, short enough that a forgotten CI step ends.
const DefaultWatchTimeout = 30 * time.Minute

// WaitOptions are the flags of a command that follows a job or run to its
// end: --wait (where waiting is optional), --interval and --wait-timeout.
type WaitOptions struct {
	Wait     bool
	Interval time.Duration
	Timeout  time.Duration

	// timeoutGiven: --wait-timeout was on the command line.
	timeoutGiven bool
	// legacyTimeout is --timeout when it was given and --wait-timeout was
	// not: for one release it still bounds the whole wait, as it did.
	legacyTimeout time.Duration
}

// addWaitFlags gives c the wait flags; optional adds --wait itself, for a
// command that waits only when asked.
func addWaitFlags(c *cobra.Command, w *WaitOptions, optional bool) {
	fs := c.Flags()
	if optional {
		fs.BoolVar(&w.Wait, "wait", false, "watch the job or run it starts until it ends")
	} else {
		w.Wait = true
	}
	fs.DurationVar(&w.Interval, "interval", 0, "poll interval while waiting (default: adaptive, 1s growing to 10s)")
	fs.DurationVar(&w.Timeout, "wait-timeout", DefaultWatchTimeout, "bound of the whole wait; past it vq exits 5 and prints how to resume")
	c.PreRunE = chainPreRun(c.PreRunE, func(c *cobra.Command, _ []string) error { return w.resolve(c) })
}

func (w *WaitOptions) resolve(c *cobra.Command) error {
	fs := c.Flags()
	if fs.Changed("interval") && w.Interval <= 0 {
		return exitcode.Usagef("--interval must be positive, got %s", w.Interval)
	}
	if w.Timeout <= 0 {
		return exitcode.Usagef("--wait-timeout must be positive, got %s", w.Timeout)
	}
	w.timeoutGiven = fs.Changed("wait-timeout")
	if !w.timeoutGiven && fs.Changed("timeout") {
		w.legacyTimeout, _ = fs.GetDuration("timeout")
	}
	return nil
}

// bound is the whole wait's bound. A --timeout given without --wait-timeout
// still bounds it, as before --wait-timeout existed, with a note saying so.
func (w *WaitOptions) bound(note func(string)) time.Duration {
	if w.legacyTimeout > 0 {
		note("--timeout bounding the whole wait is deprecated; use --wait-timeout " + w.legacyTimeout.String())
		return w.legacyTimeout
	}
	return w.Timeout
}

// chainPreRun runs first, then next: flag helpers add their checks to a
// command's own.
func chainPreRun(first, next func(*cobra.Command, []string) error) func(*cobra.Command, []string) error {
	if first == nil {
		return next
	}
	return func(c *cobra.Command, args []string) error {
		if err := first(c, args); err != nil {
			return err
		}
		return next(c, args)
	}
}
