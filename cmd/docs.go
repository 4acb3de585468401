package cmd

import (
	"github.com/spf13/cobra"
)

// NewCmdEnvironment is the help topic "vq help environment" (no RunE: a
// topic cobra lists under "Additional help topics").
func NewCmdEnvironment() *cobra.Command {
	return &cobra.Command{
		Use:   "environment",
		Short: "Environment variables, the config file and the cache",
		Long: `Settings are resolved flag > environment variable > config file.

VisualQ
  VQ_BASE_URL      the VisualQ server, e.g. https://visualq.example.com
                   (--base-url); the key stored for it is used
  VQ_PROFILE       a signed-in server by its vq auth login --name or URL
                   (--profile). The server is --base-url, else --profile,
                   else VQ_BASE_URL, else VQ_PROFILE, else the active one
                   (vq auth switch)
  VQ_API_KEY       the API key of the server picked; never a flag, so it
                   never shows in ps. When unset, the key vq auth login
                   stored for that server, and no other, is used
  VQ_PROJECT       project sent with every call (--project)
  VQ_ENVIRONMENT   environment sent with every call (--environment)
  VQ_TRANSPORT     invoke (default) or mcp (--transport)
  VQ_ENDPOINT      full URL of an MCP endpoint; implies mcp (--endpoint)

Behaviour
  VQ_NO_TUI        any value: plain output even on a terminal (--no-tui)
  VQ_PAGER         the pager long output on a terminal goes through, run by
                   the shell when it is a command line (default: PAGER,
                   else less -FRX); cat, or --no-pager, for none. A pipe
                   or a file is never paged
  VQ_DEBUG         any value: trace HTTP on stderr, credentials redacted (--debug)
  VQ_CONFIG        path of the config file, instead of the default below
  VQ_NO_KEYRING    any value: keep the API key in the config file, never in
                   the OS keyring (for machines without one)
  VQ_NO_UPDATE_NOTIFIER
                   any value: never say that a newer vq is out (the notice
                   is off in CI and when stderr is no terminal anyway)
  VQ_UPDATE_URL    where the update notice reads the latest release
                   (default: GitHub's releases API of visualq/vq)

Colour
  NO_COLOR         any value: no colours (--no-color); bold and reverse stay
  CLICOLOR_FORCE   1: colours in the TUI and progress display even where the
                   terminal looks unable (TERM=dumb). It never turns the TUI
                   on for a pipe; plain text, JSON and the CI formats never
                   hold colour codes

Network
  HTTPS_PROXY, HTTP_PROXY   proxy for https:// and http:// servers (also lower case)
  NO_PROXY                  hosts reached directly, comma-separated; loopback
                            addresses (the sandbox) are never proxied

CI (GitHub Actions sets these)
  GITHUB_ACTIONS        true: vq ci run-vrt, run-perf and status write the
                        github format when no --format, --json or --jq says
                        otherwise; server text on stdout and stderr (unless
                        a regular file) forms no workflow command: a line's
                        leading :: is written :\:, a [ after ## \u005b
  GITHUB_OUTPUT         vq ci run-vrt, run-perf and status append the step
                        outputs run-id, url, status, failed, total and
                        exit-code to this file, whatever the format; a file
                        that cannot be written is a warning
  GITHUB_STEP_SUMMARY   with --format github, the Markdown report is appended
                        to this file

Files
  XDG_CONFIG_HOME   the config file is $XDG_CONFIG_HOME/vq/config.json
                    (default ~/.config/vq/config.json; on macOS
                    ~/Library/Application Support/vq, on Windows %AppData%\vq).
                    It holds an entry per server signed in to (name,
                    project, environment, transport, endpoint, and apiKey
                    only where no keyring exists) and the active one; it is
                    written with mode 0600. A file of the old single
                    baseUrl/apiKey shape is read as one entry
  XDG_CACHE_HOME    completion's cache is $XDG_CACHE_HOME/vq (default
                    ~/.cache/vq): recently seen run and job IDs and the
                    server's tool list (trusted for 10 minutes). Deleting it
                    is always safe

Flags
  The flags above and these are shared by the commands that call a server
  (--no-tui, --no-color and --no-pager by every command). A command takes those it
  acts on and refuses another; its --help shows the few most used. Each
  may also stand before the command's name: vq --profile prod failures RUN.
  These have no variable:
  --timeout DUR       bound of each request; over MCP, of a whole call
                      (without it: 60s without an answer or progress)
  --no-retry          no automatic retries of rate limits and unexpected
                      errors
  --yes               consent to write tools: sends confirm: true
  --header 'N: V'     MCP: a header sent with every request (repeatable)
  --log-level LEVEL   MCP: ask the server to log at LEVEL and above
  --env KEY=VALUE     MCP: set in a stdio: server's environment
                      (repeatable); it gets only HOME, LOGNAME, PATH, SHELL,
                      TERM and USER of vq's
  --save-dir DIR      save the diff images of an answer's failed checks
                      (and an MCP answer's images, audio and binary
                      resources) into DIR
  --save-max-images N, --save-max-mb MB
                      with --save-dir: at most N diff images, MB in all
                      (50 and 50)
  --elicit-defaults   MCP: answer a server's questions with their schema's
                      defaults instead of asking (a script declines them)`,
		Example: `  VQ_BASE_URL=https://visualq.example.com VQ_API_KEY="$VISUALQ_KEY" vq failures run_abc
  VQ_PROFILE=prod vq failures run_abc
  NO_COLOR=1 vq demo
  HTTPS_PROXY=http://proxy.internal:3128 vq failures run_abc`,
	}
}

// NewCmdFormats is the help topic "vq help formats": what each --format
// writes and which answers it fits.
func NewCmdFormats() *cobra.Command {
	return &cobra.Command{
		Use:   "formats",
		Short: "Output formats for people, scripts and CI (--format)",
		Long: `--format chooses how an answer is written on stdout. The exit code is the
same in every format (vq exit-codes).

  text       the TUI on a terminal, plain text otherwise (the default)
  json       the ToolResponse as one JSON document (--json is short for it)
  markdown   a report to paste into a pull request: the verdict on its
             first line, a scenario | viewport | mismatch table with a link
             to each diff when the answer holds check results (its fields
             otherwise), the largest diffs as images, warnings, and the next
             steps as vq commands; @mentions in server text notify no one.
             Not vq prove --markdown, which prints the JIRA comment itself
  junit      JUnit XML with one test case per check, for CI test reports.
             It fits answers that hold check results: get_run_failures (vq
             failures), get_diff_stats (vq diff), a CI run (vq ci ... --wait)
             and jobs whose result lists checks. A failed check's <failure>
             names its diff image and run. A run that ended in error or was
             cancelled is an <error> case, with a <skipped> case for each
             check that did not run; one still pending is skipped: never
             "0 failures" for a run that did not pass. A failed call is one
             errored case; any other answer is one passing case. Reports
             are valid against the Jenkins JUnit schema (junit-10.xsd).
             --junit PATH (vq failures, vq ci) writes it to a file beside
             what stdout shows
  github     GitHub Actions workflow commands: ::error for the 10 worst
             failed checks (GitHub shows no more per step), each with its
             diff and run links, then one ::notice saying how many more and
             where; ::error for an errored run, ::warning for a cancelled or
             pending one. With GITHUB_STEP_SUMMARY set, the markdown report
             is appended to that file, cut below GitHub's 1 MiB with a line
             saying so

markdown, junit, github and json also write the error line of a failed call
on stderr. Server text is sanitized in every format and escaped for Markdown,
XML or workflow commands.`,
		Example: `  vq failures run_abc --format junit > vq-junit.xml
  vq failures run_abc --format markdown >> pr-comment.md
  vq failures run_abc --format github
  vq failures run_abc --format github --junit vq-junit.xml`,
	}
}
