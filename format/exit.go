package format

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/visualq/vq/api"
)

// Exit codes outside the contract's bands. These numbers are released: they
// never change meaning.
const (
	ExitOK           = 0
	ExitInternal     = 1
	ExitUsage        = 2
	ExitRunFailed    = 3
	ExitUnauthorized = 4
	ExitTimeout      = 5
	ExitRunError     = 6
	ExitRunCancelled = 7
	ExitInterrupted  = 130
	ExitTerminated   = 143
)

// A contract error code exits with recoverableBase+offset when the response
// says recoverable:true and with unrecoverableBase+offset otherwise, so
// "retrying with other arguments may succeed" is readable from the number.
const (
	recoverableBase   = 10
	unrecoverableBase = 30
)

// contractCodes gives each contract error code its offset within a band.
// Offset 0 is an error code this table does not know yet.
var contractCodes = []struct {
	code    string
	meaning string
}{
	{"unknown", "an error code this vq does not know (newer server)"},
	{api.CodeValidation, "missing or invalid arguments"},
	{api.CodeConfirmRequired, "write tool called without confirm (use --yes)"},
	{api.CodeScopeDenied, "API key scope insufficient"},
	{api.CodePlanGate, "feature not on the current billing plan"},
	{api.CodeRateLimit, "too many calls; retries ran out"},
	{api.CodeProjectResolution, "project or environment not found"},
	{api.CodeToolError, "executor or downstream failure"},
	{api.CodePipelineBlocked, "FRT scenario pipeline could not complete"},
	{api.CodeSaveFailed, "FRT feature save or compile failed"},
	{api.CodeHTTPError, "no ToolResponse: gateway error, cut connection, timeout"},
	{api.CodeNotFound, "unknown tool name"},
	{api.CodeProofFailed, "the JIRA proof failed (its markdown is still printed)"},
	{api.CodeProjectNotReady, "the project's first import is still being analysed; wait, then call again"},
}

// Client-side codes, for the table.
const (
	CodeUsage        = "usage"
	CodeInternal     = "internal"
	CodeInterrupted  = "interrupted"
	CodeTerminated   = "terminated"
	CodeRunFailed    = "run_failed"
	CodeRunError     = "run_error"
	CodeRunCancelled = "run_cancelled"
)

// ExitCode is one row of the exit-code table.
type ExitCode struct {
	Exit        int    `json:"exit"`
	Code        string `json:"code"`
	Recoverable *bool  `json:"recoverable"`
	Meaning     string `json:"meaning"`
}

// ExitCodes is the whole table, in exit-code order: what vq exit-codes
// prints and what the README documents.
func ExitCodes() []ExitCode {
	yes, no := true, false
	rows := []ExitCode{
		{ExitOK, "ok", nil, "the tool answered ok:true"},
		{ExitInternal, CodeInternal, nil, "vq itself failed (cannot write output, read config, ...)"},
		{ExitUsage, CodeUsage, nil, "bad flags or arguments; nothing was sent"},
		{ExitRunFailed, CodeRunFailed, nil, "a CI run finished with visual changes"},
		{ExitUnauthorized, api.CodeUnauthorized, nil, "no credential, or the server refused it (HTTP 401)"},
		{ExitTimeout, api.CodeTimeout, nil, "a watch ran past its --timeout; the job may still finish"},
		{ExitRunError, CodeRunError, nil, "a CI run ended in error"},
		{ExitRunCancelled, CodeRunCancelled, nil, "a CI run was cancelled"},
	}
	for _, band := range []struct {
		base        int
		recoverable *bool
	}{{recoverableBase, &yes}, {unrecoverableBase, &no}} {
		for offset, c := range contractCodes {
			rows = append(rows, ExitCode{band.base + offset, c.code, band.recoverable, c.meaning})
		}
	}
	return append(rows,
		ExitCode{ExitInterrupted, CodeInterrupted, nil, "interrupted (Ctrl-C)"},
		ExitCode{ExitTerminated, CodeTerminated, nil, "terminated (SIGTERM)"},
	)
}

// WriteExitCodes prints the table: aligned text, or a JSON array of
// {exit, code, recoverable, meaning} for scripts.
func WriteExitCodes(out io.Writer, asJSON bool) error {
	rows := ExitCodes()
	if asJSON {
		b, err := json.MarshalIndent(rows, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(out, "%s\n", b)
		return err
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "EXIT\tCODE\tRECOVERABLE\tMEANING")
	for _, r := range rows {
		recoverable := "-"
		if r.Recoverable != nil {
			recoverable = fmt.Sprint(*r.Recoverable)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", r.Exit, r.Code, recoverable, r.Meaning)
	}
	return tw.Flush()
}

// ForResponse is the exit code of a ToolResponse.
func ForResponse(r *api.ToolResponse) int {
	code := r.ErrorCode()
	switch code {
	case "":
		return ExitOK
	case api.CodeUnauthorized:
		return ExitUnauthorized
	case api.CodeTimeout:
		return ExitTimeout
	}
	offset := 0
	for i, c := range contractCodes {
		if c.code == code {
			offset = i
			break
		}
	}
	if r.IsRecoverable() {
		return recoverableBase + offset
	}
	return unrecoverableBase + offset
}

// UsageError is a mistake in the command line, found before anything is
// sent. Hint, when set, says how to do it right.
type UsageError struct {
	Reason string
	Hint   string
}

func (e *UsageError) Error() string {
	if e.Hint == "" {
		return e.Reason
	}
	return e.Reason + "\n" + e.Hint
}

// Usagef builds a UsageError.
func Usagef(format string, args ...any) *UsageError {
	return &UsageError{Reason: fmt.Sprintf(format, args...)}
}

// ResponseError carries a failed ToolResponse that was already shown, so the
// command can exit with its code without printing it twice.
type ResponseError struct{ Response *api.ToolResponse }

func (e *ResponseError) Error() string {
	return e.Response.ErrorCode() + ": " + e.Response.ErrorMessage()
}

// ExitError ends vq with a fixed code and a message (which may be empty
// when the output already said everything).
type ExitError struct {
	Code    int
	Message string
}

func (e *ExitError) Error() string { return e.Message }

// ErrTerminated is the cause of a context cancelled by SIGTERM.
var ErrTerminated = errors.New("terminated")

// Exit maps an error returned by a command to the process exit code. It is
// the one place where errors become exit codes.
func Exit(err error) int {
	var usage *UsageError
	var resp *ResponseError
	var exit *ExitError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &resp):
		return ForResponse(resp.Response)
	case errors.As(err, &exit):
		return exit.Code
	case errors.As(err, &usage):
		return ExitUsage
	case errors.Is(err, ErrTerminated):
		return ExitTerminated
	case errors.Is(err, context.Canceled):
		return ExitInterrupted
	}
	return ExitInternal
}

// Silent reports errors whose message was already shown to the user.
func Silent(err error) bool {
	var resp *ResponseError
	var exit *ExitError
	if errors.As(err, &resp) {
		return true
	}
	return errors.As(err, &exit) && exit.Message == ""
}
