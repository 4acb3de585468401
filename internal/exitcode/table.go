package exitcode

import (
	"fmt"
	"io"
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
	Interrupted  = 130
	Terminated   = 143
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

// The client-side codes of failures that have one exit code whatever their
// recoverable flag says.
const (
	codeUnauthorized = "unauthorized"
	codeTimeout      = "timeout"
	codeServerConfig = "server_config"
	codeOutputSchema = "output_schema"
)

// Row is one row of the exit-code table.
type Row struct {
	Exit        int    `json:"exit"`
	Code        string `json:"code"`
	Recoverable *bool  `json:"recoverable"`
	Meaning     string `json:"meaning"`
}

// Table is the whole table, in exit-code order: what vq exit-codes prints
// and what the README documents.
func Table() []Row {
	yes, no := true, false
	rows := []Row{
		{OK, "ok", nil, "the tool answered ok:true"},
		{Internal, "internal", nil, "vq itself failed (cannot write output, read config, ...)"},
		{Usage, "usage", nil, "bad flags or arguments; nothing was sent"},
		{RunFailed, "run_failed", nil, "a CI run finished with visual changes"},
		{Unauthorized, codeUnauthorized, nil, "no credential, or the server refused it (HTTP 401)"},
		{Timeout, codeTimeout, nil, "a wait ran past its --wait-timeout; the job or run may still finish"},
		{RunError, "run_error", nil, "a CI run ended in error"},
		{RunCancelled, "run_cancelled", nil, "a CI run was cancelled"},
		{Pending, "pending", nil, "a CI run is still queued or running (vq ci status without --wait)"},
		{NoClipboard, "no_clipboard", nil, "--copy found no clipboard to copy to (no tmux, no display, no terminal)"},
	}
	for _, band := range []struct {
		base        int
		recoverable *bool
	}{{recoverableBase, &yes}, {unrecoverableBase, &no}} {
		for offset, c := range contractCodes {
			rows = append(rows, Row{band.base + offset, c.code, band.recoverable, c.meaning})
		}
	}
	return append(rows,
		Row{ServerConfig, codeServerConfig, nil, "a stdio: MCP server cannot be run, or exits before answering (its last stderr lines say why)"},
		Row{OutputSchema, codeOutputSchema, nil, "an MCP tool's answer breaks the outputSchema its server lists (the answer is still in --json)"},
		Row{Interrupted, "interrupted", nil, "interrupted (Ctrl-C)"},
		Row{Terminated, "terminated", nil, "terminated (SIGTERM)"},
	)
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

// WriteTable prints the table as aligned text.
func WriteTable(out io.Writer) error {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "EXIT\tCODE\tRECOVERABLE\tMEANING")
	for _, r := range Table() {
		recoverable := "-"
		if r.Recoverable != nil {
			recoverable = fmt.Sprint(*r.Recoverable)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", r.Exit, r.Code, recoverable, r.Meaning)
	}
	return tw.Flush()
}

// ForCode is the exit code of a tool's answer: code is its error code ("" for
// ok:true) and recoverable its contract flag.
func ForCode(code string, recoverable bool) int {
	switch code {
	case "":
		return OK
	case codeUnauthorized:
		return Unauthorized
	case codeTimeout:
		return Timeout
	case codeServerConfig:
		return ServerConfig
	case codeOutputSchema:
		return OutputSchema
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
