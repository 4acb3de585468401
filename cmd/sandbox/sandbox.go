// Package sandbox holds vq sandbox, which serves the local
// VisualQ-compatible server, and vq demo, which shows a failed run of one.
package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/internal/exitcode"
	vqsandbox "github.com/visualq/vq/sandbox"
)

// SandboxOptions are the inputs of vq sandbox.
type SandboxOptions struct {
	Factory *cmdutil.Factory
	vqsandbox.Options
	Record, Upstream, Replay string // a recording proxy in front of Upstream, or a recording served back
}

// NewCmdSandbox serves a local VisualQ-compatible server until Ctrl-C.
func NewCmdSandbox(f *cmdutil.Factory, runF func(context.Context, *SandboxOptions) error) *cobra.Command {
	opts := &SandboxOptions{Factory: f}
	c := &cobra.Command{
		Use:   "sandbox [--addr HOST:PORT] [--record DIR --upstream URL | --replay DIR]",
		Short: "Run a local VisualQ-compatible server with seeded demo data",
		Long: `Run a local VisualQ-compatible server: the invoke endpoint with the
contract's statuses, seeded projects, runs, scenarios, tracking plans and JIRA
tickets, demo API keys, and faults on demand. It prints its base URL and keys;
Ctrl-C stops it.

With --record DIR --upstream URL it is a proxy in front of a real VisualQ
server instead, writing each exchange to DIR (never a credential); with
--replay DIR it answers from that recording alone, to any API key.`,
		Example: `  vq sandbox
  vq sandbox --addr 127.0.0.1:8787 --latency 300ms --fail-rate 0.2
  export VQ_BASE_URL=http://127.0.0.1:8787 VQ_API_KEY=vqs_admin; vq failures run_abc
  vq sandbox --record testdata/visualq --upstream http://127.0.0.1:9000
  vq sandbox --replay testdata/visualq`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := checkProxyFlags(c, opts); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return sandboxRun(c.Context(), opts)
		},
	}
	fl := c.Flags()
	fl.StringVar(&opts.Addr, "addr", DefaultAddr, "address to listen on")
	fl.DurationVar(&opts.Latency, "latency", 0, "delay added to every request")
	fl.Float64Var(&opts.FailRate, "fail-rate", 0, "fraction (0..1) of requests answered 502 with an HTML body")
	fl.Float64Var(&opts.Rate, "rate", 0, "requests per second per key before 429 (default 20; negative: no limit)")
	fl.DurationVar(&opts.JobStep, "job-step", 0, "duration of each async job step (default 700ms)")
	fl.StringVar(&opts.Record, "record", "", "proxy --upstream and write each exchange to `DIR`")
	fl.StringVar(&opts.Upstream, "upstream", "", "the VisualQ server --record stands in front of")
	fl.StringVar(&opts.Replay, "replay", "", "answer from the recording in `DIR` alone")
	return c
}

// checkProxyFlags refuses what --record and --replay cannot be given with.
func checkProxyFlags(c *cobra.Command, opts *SandboxOptions) error {
	usage := func(reason string) error {
		return &exitcode.UsageError{Reason: reason, Hint: "record with --record DIR --upstream URL, then serve it with --replay DIR"}
	}
	switch {
	case opts.Record != "" && opts.Replay != "":
		return usage("--record and --replay cannot be used together")
	case opts.Record != "" && opts.Upstream == "":
		return usage("--record needs --upstream URL: the server to record")
	case opts.Record == "" && opts.Upstream != "":
		return usage("--upstream is the server --record records: give --record DIR too")
	case (opts.Record != "" || opts.Replay != "") && (c.Flags().Changed("rate") || c.Flags().Changed("job-step")):
		return usage("--rate and --job-step tune the seeded sandbox: they do not apply to --record or --replay")
	case opts.Record != "":
		return cmdutil.CheckServerURL("--upstream", opts.Upstream)
	}
	return nil
}

func sandboxRun(ctx context.Context, opts *SandboxOptions) error {
	srv, err := startSandbox(opts)
	if err != nil {
		return err
	}
	defer srv.Close()
	if err := banner(opts, srv.URL()); err != nil {
		return err
	}
	<-ctx.Done()
	opts.Factory.Terminal().Print.Note("sandbox stopped")
	return nil
}

func startSandbox(opts *SandboxOptions) (*vqsandbox.Server, error) {
	switch {
	case opts.Record != "":
		return vqsandbox.Record(opts.Options, opts.Record, opts.Upstream, opts.Factory.Terminal().Print.Warning)
	case opts.Replay != "":
		return vqsandbox.Replay(opts.Options, opts.Replay)
	}
	return vqsandbox.Start(opts.Options)
}

// banner says where the sandbox listens, and what it answers with.
func banner(opts *SandboxOptions, url string) error {
	about := ""
	switch {
	case opts.Record != "":
		about = "Recording " + opts.Upstream + " into " + opts.Record + ", each exchange as it completes, no credential.\nPoint vq at it, with your API key for that server:"
	case opts.Replay != "":
		about = "Replaying " + opts.Replay + ": any API key is accepted; a request it does not hold is refused.\nPoint vq at it:"
	default:
		keys := make([][2]string, 0, len(vqsandbox.Keys()))
		for _, k := range vqsandbox.Keys() {
			keys = append(keys, [2]string{k.Token, k.Description})
		}
		return opts.Factory.Terminal().Print.Sandbox(url, keys, vqsandbox.KeyAdmin)
	}
	_, err := fmt.Fprintf(opts.Factory.IOStreams.Out, "VisualQ sandbox listening on %s\n\n%s\n  export VQ_BASE_URL=%s\n\nCtrl-C stops the sandbox.\n", url, about, url)
	return err
}

// DefaultAddr is where vq sandbox listens without --addr.
const DefaultAddr = "127.0.0.1:8787"

// demoRunID is the failed run vq demo opens.
const demoRunID = "run_abc"

// DemoOptions are the inputs of vq demo.
type DemoOptions struct {
	Factory *cmdutil.Factory
}

// NewCmdDemo starts an in-process sandbox and shows a failed run from it.
func NewCmdDemo(f *cmdutil.Factory, runF func(context.Context, *DemoOptions) error) *cobra.Command {
	opts := &DemoOptions{Factory: f}
	return cmdutil.TakesFlags(&cobra.Command{
		Use:   "demo",
		Short: "Try vq with no account: an embedded sandbox and a failed run",
		Long: `Start the sandbox on a free loopback port and show the failures of one of
its runs: the TUI on a terminal (chain into a diff with Enter, back with Esc,
quit with q), plain output in a pipe.`,
		Example: "  vq demo\n  vq demo | cat",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return demoRun(c.Context(), opts)
		},
	}, &f.Global, cmdutil.ScopeFlags, cmdutil.ConnectionFlags, cmdutil.TransportFlags, cmdutil.MCPFlags, cmdutil.ConsentFlags)
}

func demoRun(ctx context.Context, opts *DemoOptions) error {
	f := opts.Factory
	srv, err := vqsandbox.Start(vqsandbox.Options{Addr: "127.0.0.1:0"})
	if err != nil {
		return err
	}
	defer srv.Close()
	f.Terminal().Print.Note(fmt.Sprintf("vq demo: sandbox at %s (key %s); vq failures %s", srv.URL(), vqsandbox.KeyAdmin, demoRunID))
	// The user's flags with the sandbox's server, none of the user's settings.
	demo := &cmdutil.Factory{IOStreams: f.IOStreams, Getenv: demoEnv(f.Getenv, vqsandbox.KeyAdmin), OpenURL: f.OpenURL, AppVersion: f.AppVersion, Global: f.Global}
	demo.Global.BaseURL = srv.URL()
	defer demo.CloseClients()
	err = cmdutil.NewPipeline(demo).Run(ctx, api.RunFailuresCall(demoRunID))
	// Its next actions need a server after the demo's is gone, and a vq.
	vq := runAs()
	hint := "the demo's sandbox stops with it: to run the commands it showed, start one with " + vq + " sandbox\n" +
		"and export VQ_BASE_URL=http://" + DefaultAddr + " VQ_API_KEY=" + vqsandbox.KeyAdmin
	if vq != "vq" {
		hint += "\nthis vq runs through go run: write " + vq + " where they say vq, or " + strings.Replace(vq, "run", "install", 1) + " to run them as printed"
	}
	f.Terminal().Print.Hint(hint)
	return err
}

// runAs is how to run this vq again: vq, or for a go run build go run .
// from a checkout, go run MODULE@VERSION otherwise.
func runAs() string {
	exe, err := os.Executable()
	if err != nil || !builtByGoRun(exe) {
		return "vq"
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Path != "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return "go run " + info.Main.Path + "@" + info.Main.Version
	}
	return "go run ."
}

// builtByGoRun reports an executable go run made: linked in a temporary
// go-build directory (…/go-buildN/b001/exe/vq) or, run again, kept in the
// build cache (GOCACHE/dd/dd…-d/vq, the directory named by a 64-digit
// hash, under its first two digits).
func builtByGoRun(exe string) bool {
	dir := filepath.Dir(exe)
	if filepath.Base(dir) == "exe" && strings.HasPrefix(filepath.Base(filepath.Dir(filepath.Dir(dir))), "go-build") {
		return true
	}
	hash, cached := strings.CutSuffix(filepath.Base(dir), "-d")
	return cached && len(hash) == 64 && strings.Trim(hash, "0123456789abcdef") == "" && filepath.Base(filepath.Dir(dir)) == hash[:2]
}

// demoEnv hides the user's key, settings and config file (a real server's) from the demo.
func demoEnv(getenv func(string) string, key string) func(string) string {
	return func(name string) string {
		switch name {
		case "VQ_API_KEY":
			return key
		case "VQ_PROJECT", "VQ_ENVIRONMENT", "VQ_TRANSPORT", "VQ_ENDPOINT":
			return ""
		case "VQ_NO_KEYRING":
			return "1"
		case "VQ_CONFIG":
			// The user's config file names their server and endpoint.
			return os.DevNull
		}
		return getenv(name)
	}
}
