package cmd

import (
	"github.com/spf13/cobra"
	"github.com/visualq/vq/cmd/cmdutil"
)

// NewCmdCompletion prints a shell's completion script. It replaces cobra's
// default completion command (a command of the same name suppresses it).
func NewCmdCompletion(f *cmdutil.Factory) *cobra.Command {
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
			root, out := c.Root(), f.IOStreams.Out
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(out, true)
			case "zsh":
				return root.GenZshCompletion(out)
			case "fish":
				return root.GenFishCompletion(out, true)
			default:
				return root.GenPowerShellCompletionWithDesc(out)
			}
		},
	}
}
