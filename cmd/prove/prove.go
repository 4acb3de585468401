// Package prove holds vq prove and vq watch: jobs watched to their end, a
// proof shown headline first, its JIRA comment printed or copied.
//
// It may import cmd/cmdutil, cmd/iostreams, api, format, ui and the
// internal leaves; never cmd nor another command group.
package prove

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/cmd/iostreams"
	"github.com/visualq/vq/format"
	"github.com/visualq/vq/internal/clipboard"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/privatefile"
	"github.com/visualq/vq/internal/textsafe"
)

// ProveOptions are the inputs of vq prove.
type ProveOptions struct {
	Ticket       string
	Copy         bool
	Markdown     bool
	MarkdownFile string // also write the JIRA comment there
	Strict       bool   // a proof with warnings fails
	NoWait       bool
	Job          string // an earlier vq prove's job, to watch instead of starting one
	Pipeline     *cmdutil.Pipeline
}

// NewCmdProve is vq prove; runF is for flag-parsing tests.
func NewCmdProve(f *cmdutil.Factory, runF func(context.Context, *ProveOptions) error) *cobra.Command {
	opts := &ProveOptions{Pipeline: cmdutil.NewPipeline(f)}
	c := cmdutil.TaskRow("prove").Shape(f, &cobra.Command{
		Short: "Prove a JIRA tracking ticket (tracking_prove_jira_ticket)",
		Long: `Prove that the tracking a JIRA ticket asks for fires: start the proof job,
watch it (progress on stderr; --wait-timeout bounds the wait), then show the
headline (OUI/NON) first, the verdict, its reasons and warnings, the JIRA
comment as a block, the next steps as commands to run, the vq prove TICKET
--job JOB_ID --markdown command that prints this proof's comment again
without a new proof, and the headline once more. A job that fails before a
verdict has no headline: its first line says the proof could not run and
why. A watch stopped by Ctrl-C or --wait-timeout prints the vq prove
TICKET --job JOB_ID command that resumes it; vq watch JOB_ID shows a proof
job the same way.

--markdown-file PATH also writes the JIRA comment, byte for byte, to PATH
(replaced whole; nothing is written when the answer has none). --strict
fails a proof that carries any warning (intent-only, a reused audit cache):
proof_failed, its warnings as the reasons.

Two markdowns, two flags:
  --markdown         only the JIRA comment, in JIRA wiki markup, byte for byte
                     as the server wrote it (no newline added): paste it into
                     the ticket. A job that could not run and wrote no comment
                     prints nothing, says why on stderr and exits as without
                     --markdown: with the code of its error. Under GitHub
                     Actions, on stdout that is no regular file (the job's
                     log, a pipe) it stands between ::stop-commands::TOKEN
                     and ::TOKEN:: lines, a fresh random TOKEN each time, so
                     the runner obeys no command in it: > FILE for the
                     comment alone.
  --format markdown  a report of the answer in GitHub markdown, for a pull
                     request or a CI summary; not for JIRA.

--copy puts the JIRA comment on a clipboard and says which way it went:
inside tmux a tmux buffer (tmux load-buffer -w, which tmux forwards to the
outer terminal's clipboard when its set-clipboard option allows), on a
desktop the platform's clipboard (wl-copy, xclip or xsel, pbcopy, clip), else
the terminal's clipboard through OSC 52 (works over SSH when the terminal
allows it; vq cannot check that it did). With none of these (a pipe, no
display, no terminal) vq says so, sends nothing and exits 9 (no_clipboard).

Exit codes: 0 proven; the proof_failed code (see vq exit-codes) when the
proof failed, which still prints everything since its markdown is the
failure comment; a job that could not run exits with the code of its error
(tool_error when the audit broke), with or without --markdown; 9
(no_clipboard) when --copy found no clipboard and the answer was ok.`,
		Example: `  vq prove BN-470
  vq prove BN-470 --markdown-file comment.txt --strict
  vq prove BN-470 --markdown | pbcopy
  vq prove BN-470 --copy
  vq prove BN-470 --no-wait --json`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Ticket = args[0]
			if opts.Markdown && opts.Pipeline.Output.Structured() {
				return exitcode.Usagef("--markdown prints only the JIRA comment: it cannot be combined with --json, --format or --jq (--format markdown is a report for pull requests, not the comment)")
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runProve(c.Context(), f, opts)
		},
	}, "[--copy] [--markdown] [--markdown-file PATH] [--strict] [--no-wait] [--job JOB_ID]")
	c.Flags().BoolVar(&opts.Copy, "copy", false, "copy the JIRA comment to a clipboard (tmux, desktop or OSC 52; says which)")
	c.Flags().BoolVar(&opts.Markdown, "markdown", false, "print only the JIRA comment (JIRA wiki markup), byte for byte")
	c.Flags().StringVar(&opts.MarkdownFile, "markdown-file", "", "also write the JIRA comment, byte for byte, to `PATH`")
	_ = c.MarkFlagFilename("markdown-file")
	c.Flags().BoolVar(&opts.Strict, "strict", false, "fail a proof that carries any warning (proof_failed)")
	c.Flags().BoolVar(&opts.NoWait, "no-wait", false, "print the queued job and exit instead of watching it")
	c.Flags().StringVar(&opts.Job, "job", "", "watch this proof job, started by an earlier vq prove TICKET, instead of starting one")
	c.MarkFlagsMutuallyExclusive("no-wait", "markdown")
	c.MarkFlagsMutuallyExclusive("no-wait", "copy")
	c.MarkFlagsMutuallyExclusive("no-wait", "job")
	c.MarkFlagsMutuallyExclusive("no-wait", "markdown-file")
	c.MarkFlagsMutuallyExclusive("no-wait", "strict")
	cmdutil.AddOutputFlags(c, &opts.Pipeline.Output)
	cmdutil.AddWaitFlags(c, &opts.Pipeline.Wait, false)
	return cmdutil.CallsTools(c, &f.Global)
}

func runProve(ctx context.Context, f *cmdutil.Factory, opts *ProveOptions) error {
	p := opts.Pipeline
	p.Wait.Wait = !opts.NoWait
	p.Resume = func(ids []string) string { return resumeProof(opts, ids[0]) }
	if opts.Copy {
		// Known before the proof runs: a copy that cannot happen is not
		// worth waiting for.
		if methods, reasons := clipboard.Candidates(clipboardEnv(f)); len(methods) == 0 {
			return noClipboard(&clipboard.UnavailableError{Reasons: reasons})
		}
	}
	var resp *api.ToolResponse
	if opts.Job != "" {
		outcomes, err := p.WatchJobs(ctx, []string{opts.Job})
		if err != nil {
			return err
		}
		resp = api.WorkVerdict(api.ToolProve, outcomes[0].Resp)
	} else {
		var err error
		if resp, err = p.Call(ctx, api.Call{Tool: api.ToolProve, Args: map[string]any{"ticket": opts.Ticket}}); err != nil {
			return err
		}
	}
	if opts.NoWait {
		return p.Show(ctx, resp) // the queued job, to watch later
	}
	if opts.Strict {
		resp = strict(resp)
	}
	return showProof(ctx, f, resp, opts)
}

// resumeProof is the vq prove command line that resumes the watch of job.
func resumeProof(opts *ProveOptions, job string) string {
	return jobCommand(opts.Ticket, job, opts.Markdown, opts.Copy)
}

// jobCommand is vq prove TICKET --job JOB with the flags asked.
func jobCommand(ticket, job string, markdown, copy bool) string {
	words := []string{"vq", "prove", textsafe.ShellQuote(ticket), "--job", textsafe.ShellQuote(job)}
	if markdown {
		words = append(words, "--markdown")
	}
	if copy {
		words = append(words, "--copy")
	}
	return strings.Join(words, " ")
}

// strict fails an ok proof that carries warnings, the warnings as its reasons.
func strict(resp *api.ToolResponse) *api.ToolResponse {
	proof, isProof := format.ParseProof(resp)
	if !resp.OK || !isProof || len(proof.Warnings) == 0 {
		return resp
	}
	out := *resp
	out.Summary = "--strict: the proof carries warnings: " + strings.Join(proof.Warnings, "; ")
	out.Raw, out.OK, out.Recoverable = nil, false, new(true)
	out.Error = &api.ToolError{Code: api.CodeProofFailed, Message: out.Summary}
	return &out
}

// showProof shows a finished proof as the flags ask; a failed proof is
// shown in full and still exits with its code.
func showProof(ctx context.Context, f *cmdutil.Factory, resp *api.ToolResponse, opts *ProveOptions) error {
	proof, isProof := format.ProofAnswer(resp, true)
	hasMarkdown := isProof && proof.HasMarkdown
	if job, _ := api.ParseJobStatus(resp); hasMarkdown && job.JobID != "" {
		proof.CommentCommand = jobCommand(opts.Ticket, job.JobID, true, false)
	}
	print := f.Terminal().Print
	var shown error
	switch {
	case opts.Markdown && hasMarkdown:
		if err := print.JIRAComment(proof.Markdown); err != nil && !iostreams.ClosedPipe(err) {
			return err
		}
		shown = errors.Join(format.WriteErrorLine(print.ErrOut, resp), cmdutil.ShownError(resp))
	case opts.Markdown && isProof:
		// No comment: it exits with its error's code, as without
		// --markdown; an ok answer without the comment it owes exits as a
		// failed proof.
		code := exitcode.ForCode(api.CodeProofFailed, resp.IsRecoverable())
		if !resp.OK {
			code = exitcode.ForCode(resp.ErrorCode(), resp.IsRecoverable())
		}
		return &exitcode.Error{Code: code, Message: "no JIRA comment to print: " + textsafe.SanitizeLine(proof.Headline+proof.NotRun)}
	case opts.Markdown:
		if resp.OK {
			return &exitcode.Error{Code: exitcode.Internal, Message: "the proof answer carries no jiraMarkdown"}
		}
		shown = errors.Join(format.WriteErrorLine(print.ErrOut, resp), cmdutil.ShownError(resp))
	default:
		shown = showProofAnswer(ctx, opts.Pipeline, resp, proof, isProof)
	}
	return deliver(ctx, f, opts, proof, hasMarkdown, shown)
}

// deliver writes and copies the comment as the flags ask, after the answer
// was shown; the answer's own failure says more than a delivery's: a
// comment not delivered gets its code after an ok answer only.
func deliver(ctx context.Context, f *cmdutil.Factory, opts *ProveOptions, proof *format.Proof, hasMarkdown bool, shown error) error {
	var delivered []error
	if opts.MarkdownFile != "" {
		delivered = append(delivered, writeComment(f, opts.MarkdownFile, proof, hasMarkdown))
	}
	if opts.Copy {
		delivered = append(delivered, copyComment(ctx, f, proof, hasMarkdown))
	}
	for _, err := range delivered {
		if shown == nil {
			shown = err
		} else if err != nil {
			f.Terminal().Print.Error(err.Error())
		}
	}
	return shown
}

// showProofAnswer shows a proof job's answer as vq prove does, unless the
// flags ask for another rendering or it carries no proof.
func showProofAnswer(ctx context.Context, p *cmdutil.Pipeline, resp *api.ToolResponse, proof *format.Proof, isProof bool) error {
	if !isProof || p.Output.Structured() {
		return p.Show(ctx, resp)
	}
	p.Remember(resp)
	if err := p.Terminal().Print.Proof(resp, proof); err != nil && !iostreams.ClosedPipe(err) {
		return err
	}
	return cmdutil.ShownError(resp)
}

// copyComment puts the JIRA comment on a clipboard and says which way it went.
func copyComment(ctx context.Context, f *cmdutil.Factory, proof *format.Proof, hasMarkdown bool) error {
	print := f.Terminal().Print
	if !hasMarkdown {
		print.Note("nothing copied: the answer carries no JIRA comment")
		return nil
	}
	copied, err := clipboard.Copy(ctx, proof.Markdown, clipboardEnv(f))
	if err != nil {
		return noClipboard(err)
	}
	print.Note(copied.Report(fmt.Sprintf("JIRA comment (%d bytes)", copied.Bytes)))
	return nil
}

// writeComment writes the JIRA comment to path, byte for byte as --markdown prints it.
func writeComment(f *cmdutil.Factory, path string, proof *format.Proof, hasMarkdown bool) error {
	if !hasMarkdown {
		f.Terminal().Print.Note("--markdown-file: nothing written: the answer carries no JIRA comment")
		return nil
	}
	err := privatefile.WriteReport(path, func(w io.Writer) error {
		_, err := io.WriteString(w, proof.Markdown)
		return err
	})
	if err != nil {
		return &exitcode.Error{Code: exitcode.Internal, Message: "--markdown-file: nothing written: " + textsafe.SanitizeLine(err.Error())}
	}
	return nil
}

// noClipboard is the exit of a --copy that had nowhere to copy to.
func noClipboard(err error) error {
	return &exitcode.Error{Code: exitcode.NoClipboard, Message: "--copy: nothing copied: " + err.Error() + " (use --markdown > FILE instead)"}
}

func clipboardEnv(f *cmdutil.Factory) clipboard.Env {
	return clipboard.Env{Getenv: f.Getenv, Terminal: f.Terminal().Clipboard}
}
