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

// Outcome is how a command ended, the outcome of its exit code's row:
// whatever the path, an exit 0 says passed and nothing else does.
type Outcome string

const (
	OutcomePassed  Outcome = "passed"  // an explicit pass
	OutcomeFailed  Outcome = "failed"  // a verdict that is not a pass
	OutcomePending Outcome = "pending" // no verdict yet
	OutcomeUnknown Outcome = "unknown" // vq cannot tell what happened
	OutcomeError   Outcome = "error"   // a failure, named by its code
)

// A contract error code exits in the band of its recoverable flag, so
// "retrying with other arguments may succeed" is readable from the number.
const (
	recoverableBase   = 10
	unrecoverableBase = 30
)

// contractCodes gives each contract error code its offset within a band;
// 0 is one this table does not know yet.
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

// codeHTTPError is the contract's code of an answer that was no ToolResponse.
const codeHTTPError = "http_error"

// fixedRows are the client's own failures and verdicts, one exit code
// each; no server's error code exits with one (Reserved).
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

// Table is the whole table, in exit-code order.
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

// CodeOf is the code of an exit status's row ("usage", "internal", ...).
func CodeOf(exit int) string { return rowOf(exit).Code }

// OutcomeOf is the outcome of an exit status's row.
func OutcomeOf(exit int) Outcome { return rowOf(exit).Outcome }

// rowOf is exit's row, the internal row when none is.
func rowOf(exit int) Row {
	rows := Table()
	if i := slices.IndexFunc(rows, func(r Row) bool { return r.Exit == exit }); i >= 0 {
		return rows[i]
	}
	return Row{Exit: Internal, Code: "internal", Outcome: OutcomeError}
}

// Reserved reports the error codes only vq itself may give a failure. A
// server that answers with one passes for the client; its answer is read
// as the tool's failure instead.
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

// ForCode is the exit code of a tool's answer ("" is ok:true).
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

// RecoverableText is the recoverable flag as error lines print it.
func RecoverableText(recoverable bool) string {
	if recoverable {
		return "recoverable"
	}
	return "not recoverable"
}
