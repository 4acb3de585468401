package exitcode

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

func TestOfMapsEachKindOfError(t *testing.T) {
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
	if !Silent(&ResponseError{Code: "tool_error"}) || !Silent(&Error{Code: RunFailed}) {
		t.Error("a shown answer and a fixed code without message are silent")
	}
	if Silent(&Error{Code: RunFailed, Message: "say this"}) || Silent(Usagef("say this")) || Silent(errors.New("say this")) {
		t.Error("an error with a message to print is not silent")
	}
}
