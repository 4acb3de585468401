// Package completion holds vq completion, which prints a shell's completion script.
package completion

import (
	"io"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/cmd/cmdutil"
)

// CompletionOptions are the inputs of vq completion.
type CompletionOptions struct {
	Out   io.Writer
	Root  *cobra.Command // the command tree the script completes.
	Shell string
}

// NewCmdCompletion prints a shell's completion script, replacing cobra's default command.
func NewCmdCompletion(f *cmdutil.Factory, runF func(*CompletionOptions) error) *cobra.Command {
	opts := &CompletionOptions{Out: f.IOStreams.Out}
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print the shell completion script",
		Long: `Print the completion script of a shell. Besides commands and flags, it
completes tool names, a tool's argument keys (vq invoke get_diff_stats
sce<TAB> gives scenarioLabel=), recently seen run and job IDs, the scenarios
and viewports of a run's failures, and the values of --transport and
--format. Completion that needs the server gives up after about a second.

Install it once:
  bash:        vq completion bash > ~/.local/share/bash-completion/completions/vq
  zsh:         vq completion zsh > "${fpath[1]}/_vq"
  fish:        vq completion fish > ~/.config/fish/completions/vq.fish
  powershell:  vq completion powershell | Out-String | Invoke-Expression`,
		Example: `  source <(vq completion bash)
  vq completion zsh > "${fpath[1]}/_vq"`,
		ValidArgs: []string{"bash", "zsh", "fish", "powershell"},
		Args:      cobra.MatchAll(cmdutil.ExactArgs(1, "SHELL (bash, zsh, fish or powershell)"), cobra.OnlyValidArgs),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Root, opts.Shell = c.Root(), args[0]
			if runF != nil {
				return runF(opts)
			}
			return completionRun(opts)
		},
	}
}

func completionRun(opts *CompletionOptions) error {
	root := opts.Root
	switch opts.Shell {
	case "bash":
		return root.GenBashCompletionV2(opts.Out, true)
	case "zsh":
		return root.GenZshCompletion(opts.Out)
	case "fish":
		return root.GenFishCompletion(opts.Out, true)
	default:
		return root.GenPowerShellCompletionWithDesc(opts.Out)
	}
}
