// Package task builds the grouped task commands (vq scenario create|find,
// vq tracking plan|run) from their rows of cmdutil.TaskCommands.
package task

import (
	"context"
	"strings"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/cmd/cmdutil"
)

type helpText struct{ Short, Long, Example string }

// help is the help of the groups and their commands, by path; a row whose
// path is here is built.
var help = map[string]helpText{
	"scenario": {Short: "Find and create functional-test (FRT) scenarios"},
	"scenario create": {
		Short: "Create an FRT scenario from a goal (write)",
		Long: `Create a functional-test scenario from a plain-language goal
(create_frt_scenario). An existing scenario that matches is reused rather than
duplicated. This writes: consent with --yes or at the prompt.`,
		Example: `  vq scenario create --goal "add a product to the cart" --start-path /products --yes`,
	},
	"scenario find": {Short: "Find FRT scenarios (frt_find_scenarios)", Example: `  vq scenario find "checkout"`},
	"tracking":      {Short: "Tracking plans and tracking runs"},
	"tracking plan": {Short: "Show the tracking plan of a scenario (tracking_get_plan)", Example: "  vq tracking plan --scenario scn_add_to_cart"},
	"tracking run": {
		Short:   "Run tracking verification (async; --wait to watch it) (run_tracking)",
		Example: "  vq tracking run --scenario scn_add_to_cart",
	},
}

// Groups are the names of the group commands.
func Groups() []string {
	var names []string
	for path := range help {
		if !strings.Contains(path, " ") {
			names = append(names, path)
		}
	}
	return names
}

// NewCmdTasks builds the group commands; runF is for flag-parsing tests.
func NewCmdTasks(f *cmdutil.Factory, runF func(context.Context, *cmdutil.TaskOptions) error) []*cobra.Command {
	var groups []*cobra.Command
	byName := map[string]*cobra.Command{}
	for _, row := range cmdutil.TaskCommands {
		name, _, grouped := strings.Cut(row.Path, " ")
		h, built := help[row.Path]
		if !grouped || !built {
			continue
		}
		g := byName[name]
		if g == nil {
			g = &cobra.Command{Use: name, Short: help[name].Short}
			byName[name], groups = g, append(groups, g)
		}
		g.AddCommand(cmdutil.TaskCmd(f, row.Path, &cobra.Command{Short: h.Short, Long: h.Long, Example: h.Example}, "", runF))
	}
	return groups
}
