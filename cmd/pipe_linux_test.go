package cmd

import (
	"io"
	"os"
	"strings"
	"testing"

	"github.com/visualq/vq/internal/testkit"
	"golang.org/x/sys/unix"
)

// grownPipe is the capacity vq asks of a pipe a large answer goes into.
const grownPipe = 1 << 20

// A large answer printed into a pipe grows the pipe, so the reader is woken
// a few times, not hundreds; a small one, or a pipe already larger, is left
// as it was. Either way every byte arrives.
func TestLargeOutputGrowsThePipe(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		blob   int
		preset int // the pipe's capacity before vq runs; 0: as made
		grows  bool
	}{
		{name: "small answer", blob: 10},
		{name: "large answer", blob: 2 << 20, grows: true},
		{name: "large answer, larger pipe", blob: 2 << 20, preset: 2 * grownPipe},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"ok":true,"tool":"t","summary":"s","data":{"blob":"` + strings.Repeat("a", tc.blob) + `"}}`
			srv := testkit.NewServer(t, testkit.Always(200, body))

			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if tc.preset > 0 {
				if _, err := unix.FcntlInt(w.Fd(), unix.F_SETPIPE_SZ, tc.preset); err != nil {
					t.Skipf("this system will not make a %d-byte pipe: %v", tc.preset, err)
				}
			}
			before, err := unix.FcntlInt(r.Fd(), unix.F_GETPIPE_SZ, 0)
			if err != nil {
				t.Fatal(err)
			}
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
				t.Fatal(err)
			}
			if string(out) != body+"\n" {
				t.Errorf("got %d bytes, want %d", len(out), len(body)+1)
			}
			want := before
			if tc.grows {
				want = max(before, grownPipe)
			}
			if after, err := unix.FcntlInt(r.Fd(), unix.F_GETPIPE_SZ, 0); err != nil || after != want {
				t.Errorf("pipe of %d bytes holds %d after vq (%v), want %d", before, after, err, want)
			}
		})
	}
}
