package cmdutil

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/visualq/vq/format"
	"github.com/visualq/vq/internal/exitcode"
)

// GlobalOptions are the flags many commands share: which server, what
// every call carries, how vq talks to the server, the consent and the
// display. Each command takes the sets it acts on (CallsServer,
// CallsTools, TakesFlags); the display flags are every command's
// (persistent on the root). A group takes them all, so that they may
// stand before a command's name (vq --profile prod failures run_abc); a
// command given one it does not take refuses it (flagError).
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
	NoPager     bool
	// MCP: --header, --log-level, --save-dir, --elicit-defaults (see
	// mcp_flags.go).
	MCP MCPOptions
	// timeoutGiven: --timeout was on the command line, so it bounds a
	// whole MCP call instead of its idle time.
	timeoutGiven bool
	// defined are each set's flags, defined once per tree: the commands
	// that take a set share its flags, which only the command that runs
	// parses.
	defined [sharedSets]*pflag.FlagSet
}

// SharedSet is one set of the shared flags.
type SharedSet int

const (
	// ServerFlags name the VisualQ server a command calls.
	ServerFlags SharedSet = iota
	// EndpointFlags name an MCP endpoint instead (any MCP server).
	EndpointFlags
	// ScopeFlags are what every call carries.
	ScopeFlags
	// ConnectionFlags say how vq talks to a server: bounds, retries and
	// trace.
	ConnectionFlags
	// TransportFlags pick the endpoint of VisualQ's tools: invoke or MCP.
	TransportFlags
	// MCPFlags are what an MCP server gets and may ask: they act only on
	// calls that go over MCP.
	MCPFlags
	// ConsentFlags give the consent of a command that sends tool calls.
	ConsentFlags
	// DisplayFlags are every command's, persistent on the root.
	DisplayFlags
	sharedSets
)

// defineShared defines each set's flags on fs, bound to g.
var defineShared = [sharedSets]func(fs *pflag.FlagSet, g *GlobalOptions){
	ServerFlags: func(fs *pflag.FlagSet, g *GlobalOptions) {
		fs.StringVar(&g.BaseURL, "base-url", "", "VisualQ server URL (env VQ_BASE_URL)")
		fs.StringVar(&g.Profile, "profile", "", "signed-in server to use, by its login --name or URL (env VQ_PROFILE)")
	},
	EndpointFlags: func(fs *pflag.FlagSet, g *GlobalOptions) {
		fs.StringVar(&g.Endpoint, "endpoint", "", "full URL of an MCP endpoint; implies --transport mcp (env VQ_ENDPOINT)")
	},
	ScopeFlags: func(fs *pflag.FlagSet, g *GlobalOptions) {
		fs.StringVar(&g.Project, "project", "", "project sent with every call (env VQ_PROJECT)")
		fs.StringVar(&g.Environment, "environment", "", "environment sent with every call (env VQ_ENVIRONMENT)")
	},
	ConnectionFlags: func(fs *pflag.FlagSet, g *GlobalOptions) {
		fs.DurationVar(&g.Timeout, "timeout", 60*time.Second, "timeout of each request; over MCP, of a whole call (without it: 60s without an answer or progress)")
		fs.BoolVar(&g.NoRetry, "no-retry", false, "disable automatic retries of rate limits and unexpected errors")
		fs.BoolVar(&g.Debug, "debug", false, "trace HTTP on stderr, credentials redacted (env VQ_DEBUG)")
	},
	TransportFlags: func(fs *pflag.FlagSet, g *GlobalOptions) {
		fs.StringVar(&g.Transport, "transport", "", "endpoint to use: invoke or mcp (env VQ_TRANSPORT; default invoke)")
	},
	MCPFlags: func(fs *pflag.FlagSet, g *GlobalOptions) { addMCPFlags(fs, &g.MCP) },
	ConsentFlags: func(fs *pflag.FlagSet, g *GlobalOptions) {
		fs.BoolVar(&g.Yes, "yes", false, "consent to write tools: send confirm: true")
	},
	DisplayFlags: func(fs *pflag.FlagSet, g *GlobalOptions) {
		fs.BoolVar(&g.NoTUI, "no-tui", false, "plain output even on a terminal (env VQ_NO_TUI)")
		fs.BoolVar(&g.NoColor, "no-color", false, "no colours (env NO_COLOR)")
		fs.BoolVar(&g.NoPager, "no-pager", false, "no pager for long output on a terminal (env VQ_PAGER=cat)")
	},
}

// sharedAnnotation marks a flag as one of the shared ones, which help
// lists apart from a command's own.
const sharedAnnotation = "vq.shared"

// FlagsOf is the flag set of the shared flags of set, bound to g, each
// marked shared.
func (g *GlobalOptions) FlagsOf(set SharedSet) *pflag.FlagSet {
	if g.defined[set] == nil {
		fs := pflag.NewFlagSet("shared", pflag.ContinueOnError)
		defineShared[set](fs, g)
		fs.VisitAll(func(f *pflag.Flag) { f.Annotations = map[string][]string{sharedAnnotation: nil} })
		g.defined[set] = fs
	}
	return g.defined[set]
}

// TakesFlags gives c the shared flags of sets, bound to g.
func TakesFlags(c *cobra.Command, g *GlobalOptions, sets ...SharedSet) *cobra.Command {
	for _, set := range sets {
		c.Flags().AddFlagSet(g.FlagsOf(set))
	}
	if _, done := c.GetFlagCompletionFunc("transport"); !done && c.Flags().Lookup("transport") != nil {
		_ = c.RegisterFlagCompletionFunc("transport", cobra.FixedCompletions([]string{"invoke", "mcp"}, cobra.ShellCompDirectiveNoFileComp))
	}
	return c
}

// CallsServer gives c the flags of a command that calls a server: which
// server, what every call carries, and how vq talks to it.
func CallsServer(c *cobra.Command, g *GlobalOptions) *cobra.Command {
	return TakesFlags(c, g, ServerFlags, EndpointFlags, ScopeFlags, ConnectionFlags, TransportFlags, MCPFlags)
}

// CallsTools gives c the flags of a command that sends tool calls through
// the pipeline: CallsServer's, and --yes, the consent a write needs.
func CallsTools(c *cobra.Command, g *GlobalOptions) *cobra.Command {
	return TakesFlags(c, g, ServerFlags, EndpointFlags, ScopeFlags, ConnectionFlags, TransportFlags, MCPFlags, ConsentFlags)
}

// CallsMCP gives c the flags of a command that speaks MCP whatever the
// transport setting says (its methods have no invoke counterpart): no
// --transport.
func CallsMCP(c *cobra.Command, g *GlobalOptions) *cobra.Command {
	return TakesFlags(c, g, ServerFlags, EndpointFlags, ScopeFlags, ConnectionFlags, MCPFlags)
}

// CallsCI gives c the flags of a command that calls the VisualQ server's
// CI endpoint, which is under the base URL and speaks neither invoke nor
// MCP: no --endpoint, --transport or MCP flags.
func CallsCI(c *cobra.Command, g *GlobalOptions) *cobra.Command {
	return TakesFlags(c, g, ServerFlags, ScopeFlags, ConnectionFlags)
}

// IsShared reports one of the shared flags.
func IsShared(f *pflag.Flag) bool {
	_, shared := f.Annotations[sharedAnnotation]
	return shared
}

// Resolve folds in the environment variables that stand in for flags (vq
// help environment), once, so every later test of them is the flag's.
func (g *GlobalOptions) Resolve(c *cobra.Command, getenv func(string) string) error {
	g.NoTUI = g.NoTUI || getenv("VQ_NO_TUI") != ""
	g.NoColor = g.NoColor || getenv("NO_COLOR") != ""
	g.Debug = g.Debug || getenv("VQ_DEBUG") != ""
	if c.Flags().Lookup("timeout") != nil && g.Timeout <= 0 {
		return exitcode.Usagef("--timeout must be positive, got %s", g.Timeout)
	}
	g.timeoutGiven = c.Flags().Changed("timeout")
	return g.MCP.resolve()
}

// OutputOptions are the output flags of a command that prints answers
// for programs as well as people: --json, --format and --jq.
type OutputOptions struct {
	JSON   bool
	Format string
	JQ     string

	query *format.Query
}

// AddOutputFlags gives c the output flags; formats are the --format values
// it honours (format.Formats when none are named).
func AddOutputFlags(c *cobra.Command, o *OutputOptions, formats ...string) {
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
		return format.Options{Commands: FrontingLine}
	}
	return format.Options{Format: o.Format, Query: o.query, Commands: FrontingLine}
}

// AsksForJSON reports whether c's flags ask for one JSON document on
// stdout, read from the flags themselves, or from the words given (args)
// when a flag error stopped their parsing: a failure may come before the
// command checked them.
func AsksForJSON(c *cobra.Command, args []string) bool {
	flag := func(name string) string {
		if f := c.Flags().Lookup(name); f != nil {
			return f.Value.String()
		}
		return ""
	}
	if c.Flags().Lookup("json") == nil {
		return false
	}
	if flag("json") == "true" || flag("format") == "json" {
		return true
	}
	if end := slices.Index(args, "--"); end >= 0 {
		args = args[:end]
	}
	for i, word := range args {
		if word == "--json" || word == "--format=json" || word == "--format" && i+1 < len(args) && args[i+1] == "json" {
			return true
		}
	}
	return false
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

// AddWaitFlags gives c the wait flags; optional adds --wait itself, for a
// command that waits only when asked.
func AddWaitFlags(c *cobra.Command, w *WaitOptions, optional bool) {
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

// featuredFlags are the shared flags a command's help shows, the first
// maxFeaturedFlags of them it takes in this order; it names the others,
// which vq help environment lists with their variables.
var featuredFlags = []string{"yes", "base-url", "profile", "project", "environment", "debug", "no-tui", "endpoint", "transport", "timeout", "no-color"}

const maxFeaturedFlags = 6

// Usage writes c's usage as cobra does (usage line, aliases, examples,
// subcommands, flags, help topics), with its own flags first and of the
// shared ones only the featured.
func Usage(c *cobra.Command) error {
	var b strings.Builder
	b.WriteString("Usage:")
	if c.Runnable() {
		b.WriteString("\n  " + c.UseLine())
	}
	if c.HasAvailableSubCommands() {
		b.WriteString("\n  " + c.CommandPath() + " [command]")
	}
	if len(c.Aliases) > 0 {
		b.WriteString("\n\nAliases:\n  " + c.NameAndAliases())
	}
	if c.HasExample() {
		b.WriteString("\n\nExamples:\n" + c.Example)
	}
	if c.HasAvailableSubCommands() {
		b.WriteString("\n\nAvailable Commands:")
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() || sub.Name() == "help" {
				fmt.Fprintf(&b, "\n  %-*s %s", sub.NamePadding(), sub.Name(), sub.Short)
			}
		}
	}
	writeFlagUsages(&b, c)
	if c.HasHelpSubCommands() {
		b.WriteString("\n\nAdditional help topics:")
		for _, sub := range c.Commands() {
			if sub.IsAdditionalHelpTopicCommand() {
				fmt.Fprintf(&b, "\n  %-*s %s", sub.CommandPathPadding(), sub.CommandPath(), sub.Short)
			}
		}
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(&b, "\n\nUse \"%s [command] --help\" for more information about a command.", c.CommandPath())
	}
	b.WriteString("\n")
	_, err := io.WriteString(c.OutOrStderr(), b.String())
	return err
}

// writeFlagUsages writes c's own flags, then the featured shared flags it
// takes and the names of the others.
func writeFlagUsages(b *strings.Builder, c *cobra.Command) {
	own := pflag.NewFlagSet("own", pflag.ContinueOnError)
	c.LocalFlags().VisitAll(func(f *pflag.Flag) {
		if !IsShared(f) {
			own.AddFlag(f)
		}
	})
	if own.HasAvailableFlags() {
		b.WriteString("\n\nFlags:\n" + strings.TrimRight(own.FlagUsages(), " \n"))
	}
	shown := featuredOf(c)
	featured := pflag.NewFlagSet("featured", pflag.ContinueOnError)
	var others []string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		switch {
		case !IsShared(f) || f.Hidden:
		case slices.Contains(shown, f.Name):
			featured.AddFlag(f)
		default:
			others = append(others, "--"+f.Name)
		}
	})
	if featured.HasAvailableFlags() {
		b.WriteString("\n\nGlobal Flags:\n" + strings.TrimRight(featured.FlagUsages(), " \n"))
	}
	if len(others) > 0 {
		words := strings.Fields("More global flags (vq help environment): " + strings.Join(others, ", "))
		b.WriteString("\n" + wrap(words, 78, "  "))
	}
}

// featuredOf are the shared flags c's help shows: the first
// maxFeaturedFlags of featuredFlags that c takes.
func featuredOf(c *cobra.Command) []string {
	var names []string
	for _, name := range featuredFlags {
		if f := c.Flags().Lookup(name); f != nil && IsShared(f) && len(names) < maxFeaturedFlags {
			names = append(names, name)
		}
	}
	return names
}

// wrap joins words into lines of at most width bytes (a longer word
// stands alone), each starting with indent.
func wrap(words []string, width int, indent string) string {
	var b strings.Builder
	line := indent
	for _, word := range words {
		if line != indent && len(line)+1+len(word) > width {
			b.WriteString(line + "\n")
			line = indent
		}
		if line != indent {
			line += " "
		}
		line += word
	}
	b.WriteString(line)
	return b.String()
}
