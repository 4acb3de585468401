package exitcode

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// PanicError is a recovered panic: a bug in vq, reported in one line. The
// stack is kept for --debug only.
type PanicError struct {
	Value any
	Stack []byte
}

// maxPanicText bounds the panic's value in the report: it may quote data.
const maxPanicText = 200

// Recovered makes the PanicError of r; call it in the deferred function
// itself, so that the stack is the panic's.
func Recovered(r any) *PanicError {
	return &PanicError{Value: r, Stack: debug.Stack()}
}

func (e *PanicError) Error() string {
	what, _, _ := strings.Cut(fmt.Sprint(e.Value), "\n")
	if len(what) > maxPanicText {
		what = strings.ToValidUTF8(what[:maxPanicText], "") + "…"
	}
	return "internal error: " + what + " (a bug in vq; --debug or VQ_DEBUG=1 shows where)"
}
