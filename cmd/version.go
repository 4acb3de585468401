package cmd

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/cmd/cmdutil"
)

// Stamped by the release build (-ldflags -X); otherwise read from the
// module's build information.
var (
	version = ""
	commit  = ""
	date    = ""
)

// Version is vq's release version ("dev" for a development build).
func Version() string {
	v, _, _ := buildInfo()
	return v
}

func versionString() string {
	v, c, d := buildInfo()
	return fmt.Sprintf("%s (commit %s, built %s)", v, c, d)
}

func buildInfo() (v, c, d string) {
	v, c, d = version, commit, date
	if info, ok := debug.ReadBuildInfo(); ok {
		if v == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			v = info.Main.Version
		}
		for _, s := range info.Settings {
			switch {
			case s.Key == "vcs.revision" && c == "":
				c = s.Value[:min(12, len(s.Value))]
			case s.Key == "vcs.time" && d == "":
				d = s.Value
			}
		}
	}
	if v == "" {
		v = "dev"
	}
	if c == "" {
		c = "unknown"
	}
	if d == "" {
		d = "unknown"
	}
	return v, c, d
}

// NewCmdVersion prints the version, commit and build date.
func NewCmdVersion(f *cmdutil.Factory) *cobra.Command {
	var out cmdutil.OutputOptions
	c := &cobra.Command{
		Use:     "version",
		Short:   "Print vq's version, commit and build date",
		Example: "  vq version\n  vq --version\n  vq version --jq .version",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if out.Structured() {
				v, commit, date := buildInfo()
				return cmdutil.ShowDocument(c.Context(), f, &out, map[string]string{"version": v, "commit": commit, "date": date})
			}
			return f.Terminal().Print.Text("vq " + versionString())
		},
	}
	cmdutil.AddOutputFlags(c, &out, "text", "json")
	return c
}
