package exitcode

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

func TestOfMapsEachKindOfError(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		err  error
		want int
	}{
		{"no error", nil, 0},
		{"usage", fmt.Errorf("parsing: %w", Usagef("bad flag %q", "--x")), 2},
		{"fixed code", &Error{Code: RunFailed, Message: "3 checks changed"}, 3},
		{"recoverable refusal", fmt.Errorf("shown: %w", &ResponseError{Code: "validation_error", Recoverable: true}), 11},
		{"unrecoverable refusal", &ResponseError{Code: "validation_error"}, 31},
		{"a code from a newer server", &ResponseError{Code: "brand_new", Recoverable: true}, 10},
		{"unauthorized, whatever the flag", &ResponseError{Code: "unauthorized", Recoverable: true}, 4},
		{"SIGTERM", fmt.Errorf("watch: %w", ErrTerminated), 143},
		{"Ctrl-C", context.Canceled, 130},
		{"anything else", errors.New("disk full"), 1},
	} {
		if got := Of(tt.err); got != tt.want {
			t.Errorf("%s: Of(%v) = %d, want %d", tt.name, tt.err, got, tt.want)
		}
	}
}

func TestSilentErrorsAreTheOnesAlreadyShown(t *testing.T) {
	t.Parallel()
	if !Silent(&ResponseError{Code: "tool_error"}) || !Silent(&Error{Code: RunFailed}) {
		t.Error("a shown answer and a fixed code without message are silent")
	}
	if Silent(&Error{Code: RunFailed, Message: "say this"}) || Silent(Usagef("say this")) || Silent(errors.New("say this")) {
		t.Error("an error with a message to print is not silent")
	}
}

// Every row has an outcome of the closed set, and only ok passes.
func TestEveryRowHasOneOutcomeAndOnlyOKPasses(t *testing.T) {
	t.Parallel()
	for _, r := range Table() {
		switch r.Outcome {
		case OutcomePassed:
			if r.Exit != OK {
				t.Errorf("exit %d (%s) passes", r.Exit, r.Code)
			}
		case OutcomeFailed, OutcomePending, OutcomeUnknown, OutcomeError:
		default:
			t.Errorf("exit %d (%s) has outcome %q, outside the set", r.Exit, r.Code, r.Outcome)
		}
		if OutcomeOf(r.Exit) != r.Outcome {
			t.Errorf("OutcomeOf(%d) = %q, want %q", r.Exit, OutcomeOf(r.Exit), r.Outcome)
		}
	}
}

// The codes only vq gives are its own rows and http_error; no contract
// code a server sends is among them.
func TestReservedCodesAreTheClientsOwn(t *testing.T) {
	t.Parallel()
	for _, code := range []string{"ok", "usage", "unauthorized", "timeout", "http_error", "no_verdict", "maybe_applied", "job_failed", "interrupted"} {
		if !Reserved(code) {
			t.Errorf("%s is not reserved", code)
		}
	}
	for _, code := range []string{"validation_error", "tool_error", "rate_limit", "proof_failed", "project_not_ready", "brand_new"} {
		if Reserved(code) {
			t.Errorf("%s, a server's code, is reserved", code)
		}
	}
	for code, want := range map[string]int{"job_failed": JobFailed, "job_cancelled": JobCancelled, "no_verdict": NoVerdict, "maybe_applied": MaybeApplied, "usage": Usage} {
		if got := ForCode(code, true); got != want {
			t.Errorf("ForCode(%s) = %d, want %d", code, got, want)
		}
	}
}
