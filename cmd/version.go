package cmd

import (
	"cmp"
	"runtime/debug"
	"sync"

	vqversion "github.com/visualq/vq/cmd/version"
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

// versionString is the version line's words, made once.
var versionString = sync.OnceValue(func() string { return vqversion.Format(buildInfo()) })

func buildInfo() (v, c, d string) {
	v, c, d = version, commit, date
	if v != "" && c != "" && d != "" {
		return v, c, d // a release: its build information is not read
	}
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
	return cmp.Or(v, "dev"), cmp.Or(c, "unknown"), cmp.Or(d, "unknown")
}
