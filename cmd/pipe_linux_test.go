package cmd

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// A large answer printed into a pipe grows the pipe, so the reader is woken
// a few times, not hundreds; a small one leaves it as the shell made it.
// Either way every byte arrives.
func TestLargeOutputGrowsThePipe(t *testing.T) {
	for _, tc := range []struct {
		blob     int
		wantSize int
	}{
		{blob: 10, wantSize: 64 << 10},
		{blob: 2 << 20, wantSize: 1 << 20},
	} {
		body := `{"ok":true,"tool":"t","summary":"s","data":{"blob":"` + strings.Repeat("a", tc.blob) + `"}}`
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, body)
		}))
		defer srv.Close()

		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		cmd := vqCommand(t, srv.URL, "invoke", "t", "--json")
		cmd.Stdout = w
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		w.Close()
		out, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("blob of %d: %v", tc.blob, err)
		}
		if string(out) != body+"\n" {
			t.Errorf("blob of %d: got %d bytes, want %d", tc.blob, len(out), len(body)+1)
		}
		size, err := unix.FcntlInt(r.Fd(), unix.F_GETPIPE_SZ, 0)
		if err != nil || size != tc.wantSize {
			t.Errorf("blob of %d: pipe holds %d bytes (%v), want %d", tc.blob, size, err, tc.wantSize)
		}
	}
}
