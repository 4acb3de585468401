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

// GlobalOptions are the shared flags. A command takes its sets (TakesFlags); a group
// takes all, so they may precede the command name, which refuses ones it lacks.
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
	MCP         MCPOptions
	Save        SaveOptions
	// timeoutGiven: --timeout bounds a whole MCP call instead of its idle time.
	timeoutGiven bool
	// defined are each set's flags, defined once per tree; only the running command parses them.
	defined [sharedSets]*pflag.FlagSet
}

// SharedSet is one set of the shared flags.
type SharedSet int

// The shared sets; DisplayFlags are persistent on the root.
const (
	ServerFlags SharedSet = iota
	EndpointFlags
	ScopeFlags
	ConnectionFlags
	TransportFlags
	MCPFlags // act only on calls over MCP
	SaveFlags
	ConsentFlags
	DisplayFlags
	sharedSets
)

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
	SaveFlags: func(fs *pflag.FlagSet, g *GlobalOptions) {
		fs.StringVar(&g.Save.Dir, "save-dir", "", "save the answer's images into `DIR`: the diff images of its failed checks, and an MCP answer's images, audio and binary resources")
		fs.IntVar(&g.Save.MaxImages, "save-max-images", 50, "with --save-dir: save at most N diff images")
		fs.IntVar(&g.Save.MaxMB, "save-max-mb", 50, "with --save-dir: save at most this many MB of diff images")
	},
	ConsentFlags: func(fs *pflag.FlagSet, g *GlobalOptions) {
		fs.BoolVar(&g.Yes, "yes", false, "consent to write tools: send confirm: true")
	},
	DisplayFlags: func(fs *pflag.FlagSet, g *GlobalOptions) {
		fs.BoolVar(&g.NoTUI, "no-tui", false, "plain output even on a terminal (env VQ_NO_TUI)")
		fs.BoolVar(&g.NoColor, "no-color", false, "no colours (env NO_COLOR)")
		fs.BoolVar(&g.NoPager, "no-pager", false, "no pager for long output on a terminal (env VQ_PAGER=cat)")
	},
}

// sharedAnnotation marks a shared flag, which help lists apart.
const sharedAnnotation = "vq.shared"

// FlagsOf is the flag set of set, bound to g.
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

// CallsServer gives c the flags of a command that calls a server.
func CallsServer(c *cobra.Command, g *GlobalOptions) *cobra.Command {
	return TakesFlags(c, g, ServerFlags, EndpointFlags, ScopeFlags, ConnectionFlags, TransportFlags, MCPFlags, SaveFlags)
}

// CallsTools is CallsServer with --yes, for commands that send tool calls.
func CallsTools(c *cobra.Command, g *GlobalOptions) *cobra.Command {
	return TakesFlags(c, g, ServerFlags, EndpointFlags, ScopeFlags, ConnectionFlags, TransportFlags, MCPFlags, SaveFlags, ConsentFlags)
}

// CallsMCP is CallsServer without --transport, for MCP-only methods.
func CallsMCP(c *cobra.Command, g *GlobalOptions) *cobra.Command {
	return TakesFlags(c, g, ServerFlags, EndpointFlags, ScopeFlags, ConnectionFlags, MCPFlags, SaveFlags)
}

// CallsCI gives c the flags of a command calling the CI endpoint (no invoke, no MCP).
func CallsCI(c *cobra.Command, g *GlobalOptions) *cobra.Command {
	return TakesFlags(c, g, ServerFlags, ScopeFlags, ConnectionFlags)
}

// IsShared reports one of the shared flags.
func IsShared(f *pflag.Flag) bool {
	_, shared := f.Annotations[sharedAnnotation]
	return shared
}

// Resolve folds in the environment variables that stand in for flags, once.
func (g *GlobalOptions) Resolve(c *cobra.Command, getenv func(string) string) error {
	g.NoTUI = g.NoTUI || getenv("VQ_NO_TUI") != ""
	g.NoColor = g.NoColor || getenv("NO_COLOR") != ""
	g.Debug = g.Debug || getenv("VQ_DEBUG") != ""
	if c.Flags().Lookup("timeout") != nil && g.Timeout <= 0 {
		return exitcode.Usagef("--timeout must be positive, got %s", g.Timeout)
	}
	g.timeoutGiven = c.Flags().Changed("timeout")
	if err := g.Save.resolve(c); err != nil {
		return err
	}
	return g.MCP.resolve()
}

// OutputOptions are --json, --format and --jq.
type OutputOptions struct {
	JSON   bool
	Format string
	JQ     string

	query *format.Query
}

// AddOutputFlags gives c the output flags; formats are its --format values
// (format.Formats when none).
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

// Structured is whether the flags ask for output a program reads (nil: text).
func (o *OutputOptions) Structured() bool {
	return o != nil && (o.query != nil || (o.Format != "" && o.Format != "text"))
}

func (o *OutputOptions) renderOptions() format.Options {
	if o == nil {
		return format.Options{Commands: FrontingLine}
	}
	return format.Options{Format: o.Format, Query: o.query, Commands: FrontingLine}
}

// AsksForJSON reports c's flags asking for JSON, read from args too (parsing may have stopped).
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

// WaitOptions are --wait, --interval and --wait-timeout.
type WaitOptions struct {
	Wait     bool
	Interval time.Duration
	Timeout  time.Duration

	timeoutGiven bool
	// legacyTimeout is --timeout without --wait-timeout: for one release it bounds the wait.
	legacyTimeout time.Duration
}

// AddWaitFlags gives c the wait flags; optional adds --wait itself.
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

// WaitsOutReadiness says what --wait does for c, a write that starts no job:
// it waits out the readiness lock, then writes.
func WaitsOutReadiness(c *cobra.Command) {
	c.Flags().Lookup("wait").Usage = "while the project's first import is analysed (writes refused), wait for it, then write"
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

// bound is the whole wait's bound, noting a deprecated --timeout.
func (w *WaitOptions) bound(note func(string)) time.Duration {
	if w.legacyTimeout > 0 {
		note("--timeout bounding the whole wait is deprecated; use --wait-timeout " + w.legacyTimeout.String())
		return w.legacyTimeout
	}
	return w.Timeout
}

// chainPreRun runs first, then next.
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

// featuredFlags are the shared flags help shows: the first maxFeaturedFlags, others named.
var featuredFlags = []string{"yes", "base-url", "profile", "project", "environment", "debug", "no-tui", "endpoint", "transport", "timeout", "no-color"}

const maxFeaturedFlags = 6

// Usage writes c's usage as cobra does: its own flags first, then the featured shared ones.
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
	var shown []string
	for _, name := range featuredFlags {
		if f := c.Flags().Lookup(name); f != nil && IsShared(f) && len(shown) < maxFeaturedFlags {
			shown = append(shown, name)
		}
	}
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

// wrap joins words into indented lines of at most width bytes (a long word stands alone).
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
