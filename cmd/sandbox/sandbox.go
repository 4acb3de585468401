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
	vqsandbox "github.com/visualq/vq/sandbox"
)

// SandboxOptions are the inputs of vq sandbox.
type SandboxOptions struct {
	Factory *cmdutil.Factory
	vqsandbox.Options
}

// NewCmdSandbox serves a local VisualQ-compatible server until Ctrl-C.
func NewCmdSandbox(f *cmdutil.Factory, runF func(context.Context, *SandboxOptions) error) *cobra.Command {
	opts := &SandboxOptions{Factory: f}
	c := &cobra.Command{
		Use:   "sandbox [--addr HOST:PORT]",
		Short: "Run a local VisualQ-compatible server with seeded demo data",
		Long: `Run a local VisualQ-compatible server: the invoke endpoint with the
contract's statuses, seeded projects, runs, scenarios, tracking plans and JIRA
tickets, demo API keys, and faults on demand. It prints its base URL and keys;
Ctrl-C stops it.`,
		Example: `  vq sandbox
  vq sandbox --addr 127.0.0.1:8787 --latency 300ms --fail-rate 0.2
  export VQ_BASE_URL=http://127.0.0.1:8787 VQ_API_KEY=vqs_admin; vq failures run_abc`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
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
	return c
}

func sandboxRun(ctx context.Context, opts *SandboxOptions) error {
	srv, err := vqsandbox.Start(opts.Options)
	if err != nil {
		return err
	}
	defer srv.Close()
	print := opts.Factory.Terminal().Print
	keys := make([][2]string, 0, len(vqsandbox.Keys()))
	for _, k := range vqsandbox.Keys() {
		keys = append(keys, [2]string{k.Token, k.Description})
	}
	if err := print.Sandbox(srv.URL(), keys, vqsandbox.KeyAdmin); err != nil {
		return err
	}
	<-ctx.Done()
	print.Note("sandbox stopped")
	return nil
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

// runAs is how to run this vq again: vq, or for a go run build (its
// executable in go's build cache) go run . from a checkout, go run
// MODULE@VERSION otherwise.
func runAs() string {
	exe, err := os.Executable()
	if err != nil {
		return "vq"
	}
	dir := filepath.Dir(exe)
	if filepath.Base(dir) != "exe" || !strings.HasPrefix(filepath.Base(filepath.Dir(filepath.Dir(dir))), "go-build") {
		return "vq"
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Path != "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return "go run " + info.Main.Path + "@" + info.Main.Version
	}
	return "go run ."
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
