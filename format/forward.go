package format

import (
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/layout"
	"github.com/visualq/vq/internal/textsafe"
)

// Forwarders for cmd until it calls the leaf packages itself.
var (
	Sanitize     = textsafe.Sanitize
	SanitizeLine = textsafe.SanitizeLine
	ShellQuote   = textsafe.ShellQuote
	WriteJSON    = textsafe.WriteJSON
)

const (
	ExitOK           = exitcode.OK
	ExitInternal     = exitcode.Internal
	ExitUsage        = exitcode.Usage
	ExitRunFailed    = exitcode.RunFailed
	ExitUnauthorized = exitcode.Unauthorized
	ExitTimeout      = exitcode.Timeout
	ExitRunError     = exitcode.RunError
	ExitRunCancelled = exitcode.RunCancelled
	ExitInterrupted  = exitcode.Interrupted
	ExitTerminated   = exitcode.Terminated
)

type (
	ExitCode   = exitcode.Row
	UsageError = exitcode.UsageError
	ExitError  = exitcode.Error
)

var (
	ExitCodes      = exitcode.Table
	WriteExitCodes = exitcode.WriteTable
	Usagef         = exitcode.Usagef
	ErrTerminated  = exitcode.ErrTerminated
	Exit           = exitcode.Of
	Silent         = exitcode.Silent
)

func ForResponse(r *api.ToolResponse) int { return exitcode.ForCode(r.ErrorCode(), r.IsRecoverable()) }

type ResponseError struct{ Response *api.ToolResponse }

func (e *ResponseError) Error() string { return exitcode.Shown(e.Response).Error() }
func (e *ResponseError) Unwrap() error { return exitcode.Shown(e.Response) }

type Check = layout.Check

func ChecksOf(r *api.ToolResponse) (*layout.Checks, bool) { return layout.ChecksOf(r.Data) }
