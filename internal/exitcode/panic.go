package exitcode

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// PanicError is a panic that vq recovered from: a bug in vq, which exits
// with the Internal code and a one-line report. The stack is kept for
// --debug; a person without it is not shown a Go stack dump.
type PanicError struct {
	Value any
	Stack []byte
}

// maxPanicText bounds the panic's value in the report: it may quote data.
const maxPanicText = 200

// Recovered makes the PanicError of r, the value recover returned; call it
// in the deferred function itself, so that the stack is the panic's.
func Recovered(r any) *PanicError {
	return &PanicError{Value: r, Stack: debug.Stack()}
}

// Error is one line: the first line of the panic's value, bounded.
func (e *PanicError) Error() string {
	what, _, _ := strings.Cut(fmt.Sprint(e.Value), "\n")
	if len(what) > maxPanicText {
		what = strings.ToValidUTF8(what[:maxPanicText], "") + "…"
	}
	return "internal error: " + what + " (a bug in vq; --debug or VQ_DEBUG=1 shows where)"
}
