package exitcode

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
)

// Exit codes outside the contract's bands. These numbers are released: they
// never change meaning.
const (
	OK           = 0
	Internal     = 1
	Usage        = 2
	RunFailed    = 3
	Unauthorized = 4
	Timeout      = 5
	RunError     = 6
	RunCancelled = 7
	Pending      = 8
	NoClipboard  = 9
	ServerConfig = 50
	OutputSchema = 51
	JobFailed    = 52
	JobCancelled = 53
	NoVerdict    = 54
	MaybeApplied = 55
	Interrupted  = 130
	Terminated   = 143
)

// Outcome is how a command ended: every command ends in one value of this
// closed set, the outcome of the row its exit code is, so that whatever
// the path (one call, a batch, a watch, a CI run) an exit 0 says passed
// and nothing else does.
type Outcome string

const (
	// OutcomePassed: an explicit pass (ok:true, a job completed, a run
	// passed, a proof proven).
	OutcomePassed Outcome = "passed"
	// OutcomeFailed: a verdict that is not a pass (a run with changes, a
	// failed proof, a failed or cancelled job).
	OutcomeFailed Outcome = "failed"
	// OutcomePending: no verdict yet; the work may still finish.
	OutcomePending Outcome = "pending"
	// OutcomeUnknown: vq cannot tell what happened (no verdict it can
	// read, a write whose answer was lost).
	OutcomeUnknown Outcome = "unknown"
	// OutcomeError: a failure, named by its code.
	OutcomeError Outcome = "error"
)

// A contract error code exits with recoverableBase+offset when the answer
// says recoverable:true and with unrecoverableBase+offset otherwise, so
// "retrying with other arguments may succeed" is readable from the number.
const (
	recoverableBase   = 10
	unrecoverableBase = 30
)

// contractCodes gives each contract error code its offset within a band.
// Offset 0 is an error code this table does not know yet.
var contractCodes = []struct{ code, meaning string }{
	{"unknown", "an error code this vq does not know (newer server)"},
	{"validation_error", "missing or invalid arguments"},
	{"confirm_required", "write tool called without confirm (use --yes)"},
	{"scope_denied", "API key scope insufficient"},
	{"plan_gate", "feature not on the current billing plan"},
	{"rate_limit", "too many calls; retries ran out"},
	{"project_resolution_error", "project or environment not found"},
	{"tool_error", "executor or downstream failure"},
	{"pipeline_blocked", "FRT scenario pipeline could not complete"},
	{"save_failed", "FRT feature save or compile failed"},
	{"http_error", "no ToolResponse: gateway error, cut connection, timeout"},
	{"not_found", "unknown tool name"},
	{"proof_failed", "the JIRA proof failed (its markdown is still printed)"},
	{"project_not_ready", "the project's first import is still being analysed; wait, then call again"},
}

// codeHTTPError is the contract's code of a failure only a client makes:
// an answer that was no ToolResponse.
const codeHTTPError = "http_error"

// fixedRows are the codes with one exit code whatever their recoverable
// flag says: the client's own failures and verdicts. No server's error
// code ever exits with one of them (see Reserved).
var fixedRows = []Row{
	{OK, "ok", nil, OutcomePassed, "the tool answered ok:true"},
	{Internal, "internal", nil, OutcomeError, "vq itself failed (cannot write output, read config, ...)"},
	{Usage, "usage", nil, OutcomeError, "bad flags or arguments; nothing was sent"},
	{RunFailed, "run_failed", nil, OutcomeFailed, "a CI run finished with visual changes"},
	{Unauthorized, "unauthorized", nil, OutcomeError, "no credential, or the server refused it (HTTP 401)"},
	{Timeout, "timeout", nil, OutcomePending, "a wait ran past its --wait-timeout; the job or run may still finish"},
	{RunError, "run_error", nil, OutcomeError, "a CI run ended in error"},
	{RunCancelled, "run_cancelled", nil, OutcomeFailed, "a CI run was cancelled"},
	{Pending, "pending", nil, OutcomePending, "a CI run is still queued or running (vq ci status without --wait)"},
	{NoClipboard, "no_clipboard", nil, OutcomeError, "--copy found no clipboard to copy to (no tmux, no display, no terminal)"},
	{ServerConfig, "server_config", nil, OutcomeError, "a stdio: MCP server cannot be run, or exits before answering (its last stderr lines say why)"},
	{OutputSchema, "output_schema", nil, OutcomeError, "an MCP tool's answer breaks the outputSchema its server lists (the answer is still in --json)"},
	{JobFailed, "job_failed", nil, OutcomeFailed, "a job ended failed, although its answer said ok"},
	{JobCancelled, "job_cancelled", nil, OutcomeFailed, "a job was cancelled, although its answer said ok"},
	{NoVerdict, "no_verdict", nil, OutcomeUnknown, "the answer carries no verdict vq can read (none, two, or a status outside the documented set): nothing says it passed"},
	{MaybeApplied, "maybe_applied", nil, OutcomeUnknown, "a call that may change something got no answer vq can read after it was sent; not sent again: check before sending it again"},
	{Interrupted, "interrupted", nil, OutcomeError, "interrupted (Ctrl-C)"},
	{Terminated, "terminated", nil, OutcomeError, "terminated (SIGTERM)"},
}

// Row is one row of the exit-code table.
type Row struct {
	Exit        int     `json:"exit"`
	Code        string  `json:"code"`
	Recoverable *bool   `json:"recoverable"`
	Outcome     Outcome `json:"outcome"`
	Meaning     string  `json:"meaning"`
}

// Table is the whole table, in exit-code order: what vq exit-codes prints
// and what the README documents.
func Table() []Row {
	yes, no := true, false
	var rows []Row
	for _, band := range []struct {
		base        int
		recoverable *bool
	}{{recoverableBase, &yes}, {unrecoverableBase, &no}} {
		for offset, c := range contractCodes {
			outcome := OutcomeError
			if c.code == "proof_failed" {
				outcome = OutcomeFailed
			}
			rows = append(rows, Row{band.base + offset, c.code, band.recoverable, outcome, c.meaning})
		}
	}
	rows = append(rows, fixedRows...)
	slices.SortFunc(rows, func(a, b Row) int { return a.Exit - b.Exit })
	return rows
}

// CodeOf is the code of an exit status's row: the name a client-made
// answer gives a failure of vq's own ("usage", "internal", ...).
func CodeOf(exit int) string {
	for _, r := range Table() {
		if r.Exit == exit {
			return r.Code
		}
	}
	return "internal"
}

// OutcomeOf is the outcome of an exit status's row.
func OutcomeOf(exit int) Outcome {
	for _, r := range Table() {
		if r.Exit == exit {
			return r.Outcome
		}
	}
	return OutcomeError
}

// Reserved reports the error codes only vq itself may give a failure: the
// rows of its own failures and verdicts, and http_error, the contract's
// code of an answer that was no ToolResponse. A server that answers with
// one of them passes for the client; its answer is read as the tool's
// failure instead (api keeps the server's code in the message).
func Reserved(code string) bool {
	return code == codeHTTPError || slices.ContainsFunc(fixedRows, func(r Row) bool { return r.Code == code })
}

// WriteTable prints the table as aligned text.
func WriteTable(out io.Writer) error {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "EXIT\tCODE\tRECOVERABLE\tOUTCOME\tMEANING")
	for _, r := range Table() {
		recoverable := "-"
		if r.Recoverable != nil {
			recoverable = fmt.Sprint(*r.Recoverable)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", r.Exit, r.Code, recoverable, r.Outcome, r.Meaning)
	}
	return tw.Flush()
}

// ForCode is the exit code of a tool's answer: code is its error code ("" for
// ok:true) and recoverable its contract flag.
func ForCode(code string, recoverable bool) int {
	if code == "" {
		return OK
	}
	if i := slices.IndexFunc(fixedRows, func(r Row) bool { return r.Code == code }); i >= 0 && code != "ok" {
		return fixedRows[i].Exit
	}
	offset := 0
	for i, c := range contractCodes {
		if c.code == code {
			offset = i
			break
		}
	}
	if recoverable {
		return recoverableBase + offset
	}
	return unrecoverableBase + offset
}

// RecoverableText says whether trying other arguments may help, as error
// lines print the flag next to the exit code.
func RecoverableText(recoverable bool) string {
	if recoverable {
		return "recoverable"
	}
	return "not recoverable"
}
