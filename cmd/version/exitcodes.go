package version

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/internal/exitcode"
)

// NewCmdExitCodes prints the exit-code table, from the constants vq exits with.
func NewCmdExitCodes(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{Factory: f}
	c := &cobra.Command{
		Use:   "exit-codes",
		Short: "Print the exit-code table (what each exit status means)",
		Long: `Print the exit-code table. Every contract error code has two exit codes at
the same offset: 10+n when the server said recoverable (other arguments may
succeed) and 30+n when it did not. The table never changes meaning.`,
		Example: "  vq exit-codes\n  vq exit-codes --json | jq '.[] | select(.code==\"rate_limit\")'\n  vq exit-codes --jq '.[] | select(.exit==8) | .meaning'",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return exitCodesRun(c.Context(), opts)
		},
	}
	cmdutil.AddOutputFlags(c, &opts.Output, "text", "json")
	return c
}

func exitCodesRun(ctx context.Context, opts *Options) error {
	if opts.Output.Structured() {
		return cmdutil.ShowDocument(ctx, opts.Factory, &opts.Output, exitcode.Table())
	}
	return exitcode.WriteTable(opts.Factory.Terminal().Print.Out)
}

// ExitCodeSummary is vq --help's exit-code paragraph, in order, from the
// constants vq exits with.
func ExitCodeSummary() string {
	return fmt.Sprintf(`Exit codes: %d ok; %d vq failed; %d usage; %d CI run failed; %d unauthorized;
%d wait timed out; %d-%d other CI run ends, no clipboard; 10+n a contract error
the server called recoverable, 30+n one it did not; %d-%d MCP server, job, no
verdict, may have been applied; %d interrupted; %d terminated.
The full table: vq exit-codes`,
		exitcode.OK, exitcode.Internal, exitcode.Usage, exitcode.RunFailed, exitcode.Unauthorized, exitcode.Timeout,
		exitcode.RunError, exitcode.NoClipboard, exitcode.ServerConfig, exitcode.MaybeApplied, exitcode.Interrupted, exitcode.Terminated)
}
