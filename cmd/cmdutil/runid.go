package cmdutil

import (
	"maps"
	"slices"
	"strings"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/textsafe"
)

// runOf is call with a run's web URL as its runId read as the run's ID (the
// path segment after /runs/), as people copy runs from the browser. A URL on
// another origin than the active server's is refused before anything is
// sent, so no credential goes where the person did not sign in.
func (s Settings) runOf(call api.Call) (api.Call, error) {
	link, _ := call.Args["runId"].(string)
	u, isURL := textsafe.WebURL(link)
	if !isURL {
		return call, nil
	}
	shown := textsafe.SanitizeLine(textsafe.Clip(link, 200))
	if home, ok := textsafe.WebURL(s.Home()); !ok || !textsafe.SameOrigin(u, home) {
		return call, &exitcode.UsageError{
			Reason: shown + " is not on the active server (" + s.server() + "): nothing was sent",
			Hint:   "give the run's ID, or choose its server with --profile or --base-url",
		}
	}
	segments := strings.Split(u.Path, "/")
	i := slices.Index(segments, "runs")
	if i < 0 || i+1 >= len(segments) || segments[i+1] == "" {
		return call, &exitcode.UsageError{Reason: shown + " is not a run's URL: it has no /runs/RUN_ID", Hint: "give the run's ID"}
	}
	args := maps.Clone(call.Args)
	args["runId"] = segments[i+1]
	return api.Call{Tool: call.Tool, Args: args}, nil
}
