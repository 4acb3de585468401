package privatefile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"testing"
)

// /dev/stdout is a link to /proc/self/fd/1, itself a link the kernel
// follows to a pipe but which names none (pipe:[N]): a report to it is
// refused as the pipe it is, not written beside a name that is none.
func TestWriteReportRefusesAPipeBehindAProcLink(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	path := fmt.Sprintf("/proc/self/fd/%d", w.Fd())
	err = WriteReport(path, func(w io.Writer) error { _, err := io.WriteString(w, "<testsuites/>"); return err })
	if refused, ok := errors.AsType[*RefusedError](err); !ok || refused.Error() != path+" is not a regular file (a named pipe): refusing to replace it" {
		t.Errorf("a pipe behind %s: %v", path, err)
	}
}
