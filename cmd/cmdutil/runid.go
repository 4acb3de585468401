package cmdutil

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/completions"
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

// RunID is id, or the ID of the run a web URL on the active server names.
func (p *Pipeline) RunID(ctx context.Context, id string) (string, error) {
	_, s, err := p.Connect(ctx)
	if err != nil {
		return "", err
	}
	call, err := s.runOf(api.Call{Args: map[string]any{"runId": id}})
	run, _ := call.Args["runId"].(string)
	return run, err
}

// pickedRun is the annotation that carries a picked RUN_ID to Thin.
const pickedRun = "vq-picked-run"

// offerRuns lets c's RUN_ID be left out on a terminal: the person picks one
// of the runs vq last started or showed on the active server.
func offerRuns(f *Factory, c *cobra.Command) {
	words := c.Args
	asks := func() bool { return f.Terminal().CanPrompt() && f.Terminal().IsStdinTTY() }
	c.Args = func(c *cobra.Command, args []string) error {
		if len(args) == 0 && asks() {
			return nil
		}
		return words(c, args)
	}
	c.PreRunE = chainPreRun(c.PreRunE, func(c *cobra.Command, args []string) error {
		if len(args) > 0 {
			return nil
		}
		s, err := f.Settings(c.Context())
		if err != nil {
			return err
		}
		cache := completions.Open(f.Getenv)
		cache.Server = s.Home()
		runs := cache.Recent(completions.RunID)
		if len(runs) == 0 {
			return words(c, args)
		}
		id, err := f.Terminal().Choose(c.Context(), "Which run? (seen lately on "+s.server()+")", runs)
		if err != nil {
			return err
		}
		if c.Annotations == nil {
			c.Annotations = map[string]string{}
		}
		c.Annotations[pickedRun] = id
		return nil
	})
}
