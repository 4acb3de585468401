// Package version holds vq version and vq exit-codes.
package version

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/cmd/cmdutil"
)

// Options are the inputs of vq version and vq exit-codes.
type Options struct {
	Factory *cmdutil.Factory
	Output  cmdutil.OutputOptions
}

// NewCmdVersion prints the version, commit and build date from the factory's AppVersion.
func NewCmdVersion(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{Factory: f}
	c := &cobra.Command{
		Use:     "version",
		Short:   "Print vq's version, commit and build date",
		Example: "  vq version\n  vq --version\n  vq version --jq .version",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return versionRun(c.Context(), opts)
		},
	}
	cmdutil.AddOutputFlags(c, &opts.Output, "text", "json")
	return c
}

func versionRun(ctx context.Context, opts *Options) error {
	f := opts.Factory
	if opts.Output.Structured() {
		v, commit, date := parts(f.AppVersion)
		return cmdutil.ShowDocument(ctx, f, &opts.Output, map[string]string{"version": v, "commit": commit, "date": date})
	}
	return f.Terminal().Print.Text("vq " + f.AppVersion)
}

// Format is vq's version as --version, vq version and the User-Agent name it.
func Format(version, commit, date string) string {
	return fmt.Sprintf("%s (commit %s, built %s)", version, commit, date)
}

// parts splits what Format made.
func parts(s string) (version, commit, date string) {
	version, rest, _ := strings.Cut(s, " (commit ")
	commit, date, _ = strings.Cut(strings.TrimSuffix(rest, ")"), ", built ")
	return version, commit, date
}
