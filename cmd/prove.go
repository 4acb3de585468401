package cmd

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/format"
	"github.com/visualq/vq/internal/exitcode"
)

// ProveOptions are the inputs of vq prove.
type ProveOptions struct {
	Ticket   string
	Copy     bool
	Markdown bool
	NoWait   bool
	Pipeline *Pipeline
}

// NewCmdProve proves a JIRA tracking ticket and shows the verdict and the
// comment to paste. runF replaces the behaviour in tests of flag parsing.
func NewCmdProve(f *Factory, runF func(context.Context, *ProveOptions) error) *cobra.Command {
	opts := &ProveOptions{Pipeline: newPipeline(f)}
	c := &cobra.Command{
		Use:   "prove TICKET [--copy] [--markdown] [--no-wait]",
		Short: "Prove a JIRA tracking ticket (tracking_prove_jira_ticket)",
		Long: `Prove that the tracking a JIRA ticket asks for fires: start the proof job,
watch it (progress on stderr; --wait-timeout bounds the wait), then show the headline (OUI/NON), the verdict,
its reasons and warnings, the JIRA comment in markdown and the next actions as
commands to run.

--markdown prints only the JIRA comment, byte for byte as the server wrote it,
so a pipe to the clipboard is exact. --copy puts it on the clipboard through
the terminal (OSC 52, which works over SSH and in tmux). A failed proof still
prints everything, since its markdown is the failure comment, and exits with
the proof_failed code (see vq exit-codes).`,
		Example: `  vq prove BN-470
  vq prove BN-470 --markdown | pbcopy
  vq prove BN-470 --copy
  vq prove BN-470 --no-wait --json`,
		Args: exactArgs(1, "TICKET"),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Ticket = args[0]
			if opts.Markdown && opts.Pipeline.Output.Structured() {
				return exitcode.Usagef("--markdown prints only the markdown: it cannot be combined with --json, --format or --jq")
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runProve(c.Context(), f, opts)
		},
	}
	c.Flags().BoolVar(&opts.Copy, "copy", false, "copy the JIRA markdown to the clipboard (OSC 52)")
	c.Flags().BoolVar(&opts.Markdown, "markdown", false, "print only the JIRA markdown, byte for byte")
	c.Flags().BoolVar(&opts.NoWait, "no-wait", false, "print the queued job and exit instead of watching it")
	c.MarkFlagsMutuallyExclusive("no-wait", "markdown")
	c.MarkFlagsMutuallyExclusive("no-wait", "copy")
	addOutputFlags(c, &opts.Pipeline.Output)
	addWaitFlags(c, &opts.Pipeline.Wait, false)
	return c
}

func runProve(ctx context.Context, f *Factory, opts *ProveOptions) error {
	p := opts.Pipeline
	p.Wait.Wait = !opts.NoWait
	resp, err := p.Call(ctx, api.Call{Tool: api.ToolProve, Args: map[string]any{"ticket": opts.Ticket}})
	if err != nil {
		return err
	}
	if opts.NoWait {
		return p.Show(ctx, resp) // the queued job, to watch later
	}
	return showProof(ctx, f, resp, opts)
}

// showProof shows a finished proof as the flags ask; a failed proof is
// shown in full and still exits with its code.
func showProof(ctx context.Context, f *Factory, resp *api.ToolResponse, opts *ProveOptions) error {
	proof, isProof := format.ParseProof(resp)
	hasMarkdown := isProof && proof.HasMarkdown
	var err error
	switch {
	case opts.Markdown && !hasMarkdown:
		if resp.OK {
			return &exitcode.Error{Code: exitcode.Internal, Message: "the proof answer carries no jiraMarkdown"}
		}
		err = format.WriteErrorLine(f.IO.ErrOut, resp)
	case opts.Markdown:
		// Byte for byte: no sanitizing and no added newline, so a pipe to
		// the clipboard gets exactly the comment the server wrote.
		if _, err := io.WriteString(f.IO.Out, proof.Markdown); err != nil {
			return err
		}
		err = format.WriteErrorLine(f.IO.ErrOut, resp)
	case !isProof || opts.Pipeline.Output.Structured():
		err = opts.Pipeline.Show(ctx, resp)
	default:
		err = format.WriteProof(f.IO.Out, f.IO.ErrOut, resp, proof)
	}
	if opts.Copy {
		markdown := ""
		if hasMarkdown {
			markdown = proof.Markdown
		}
		copyToClipboard(f, markdown, hasMarkdown)
	}
	if err == nil {
		err = shownError(resp)
	}
	return err
}

// copyToClipboard sends the proof's markdown to the terminal's clipboard
// with OSC 52: through stderr when it is the terminal, else /dev/tty. ok is
// false when the answer had no markdown to copy.
func copyToClipboard(f *Factory, markdown string, ok bool) {
	if !ok {
		fmt.Fprintln(f.IO.ErrOut, "vq: nothing copied: the answer carries no jiraMarkdown")
		return
	}
	w := f.IO.ErrOut
	if !f.IO.ErrTTY {
		tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0)
		if err != nil {
			fmt.Fprintln(f.IO.ErrOut, "vq: could not copy: no terminal to send the clipboard to (try --markdown | pbcopy)")
			return
		}
		defer tty.Close()
		w = tty
	}
	if _, err := io.WriteString(w, format.ClipboardSequence(markdown, f.Getenv("TMUX") != "")); err != nil {
		fmt.Fprintln(f.IO.ErrOut, "vq: could not copy: "+err.Error())
		return
	}
	fmt.Fprintf(f.IO.ErrOut, "vq: JIRA markdown copied to the clipboard (%d bytes, OSC 52; the terminal must allow clipboard access)\n", len(markdown))
}
