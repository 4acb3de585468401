package exitcode

import (
	"context"
	"errors"
	"fmt"
)

// UsageError is a mistake in the command line, found before anything is sent.
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

// Answer is what the exit code reads of a failed tool answer.
type Answer interface {
	ErrorCode() string
	IsRecoverable() bool
	ErrorMessage() string
}

// ResponseError is a failed tool answer already shown.
type ResponseError struct {
	Code        string
	Recoverable bool
	Message     string
}

// Shown is the ResponseError of an answer that was shown.
func Shown(a Answer) *ResponseError {
	return &ResponseError{Code: a.ErrorCode(), Recoverable: a.IsRecoverable(), Message: a.ErrorMessage()}
}

func (e *ResponseError) Error() string { return e.Code + ": " + e.Message }

// Error ends vq with a fixed code and a message ("" when already shown).
type Error struct {
	Code    int
	Message string
}

func (e *Error) Error() string { return e.Message }

// ErrTerminated is the cause of a context cancelled by SIGTERM.
var ErrTerminated = errors.New("terminated")

// Of maps an error returned by a command to the process exit code.
func Of(err error) int {
	var usage *UsageError
	var resp *ResponseError
	var exit *Error
	switch {
	case err == nil:
		return OK
	case errors.As(err, &resp):
		return ForCode(resp.Code, resp.Recoverable)
	case errors.As(err, &exit):
		return exit.Code
	case errors.As(err, &usage):
		return Usage
	case errors.Is(err, ErrTerminated):
		return Terminated
	case errors.Is(err, context.Canceled):
		return Interrupted
	}
	return Internal
}

// Silent reports errors whose message was already shown to the user.
func Silent(err error) bool {
	var resp *ResponseError
	var exit *Error
	if errors.As(err, &resp) {
		return true
	}
	return errors.As(err, &exit) && exit.Message == ""
}
