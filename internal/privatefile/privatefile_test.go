package privatefile

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestAFailedWriteKeepsTheOldFile fails a write halfway, the way
// a full disk does: a child process limited to 1000-byte files writes 64
// KiB. The old file must be untouched and no temporary file left behind.
func TestAFailedWriteKeepsTheOldFile(t *testing.T) {
	if path := os.Getenv("VQ_TEST_ATOMIC_CHILD"); path != "" {
		signal.Ignore(syscall.SIGXFSZ) // make the limit an error, not a kill
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 1000, Max: 1000}); err != nil {
			t.Fatal(err)
		}
		err := Write(path, []byte(strings.Repeat("n", 64<<10)))
		if !errors.Is(err, syscall.EFBIG) {
			t.Fatalf("Write past the file size limit: %v, want EFBIG", err)
		}
		return
	}
	dir := filepath.Join(t.TempDir(), "vq")
	path := filepath.Join(dir, "config.json")
	old := []byte(`{"apiKey":"old"}` + "\n")
	if err := Write(path, old); err != nil {
		t.Fatal(err)
	}
	child := exec.Command(os.Args[0], "-test.run=^TestAFailedWriteKeepsTheOldFile$")
	child.Env = append(os.Environ(), "VQ_TEST_ATOMIC_CHILD="+path)
	if out, err := child.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != string(old) {
		t.Errorf("after a failed write the file holds %q (%v), want the old %q", got, err, old)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the failed write left files behind: %v", entries)
	}
	for p, want := range map[string]os.FileMode{path: 0o600, dir: 0o700 | os.ModeDir} {
		if fi, err := os.Stat(p); err != nil || fi.Mode() != want {
			t.Errorf("%s: mode %v (%v), want %v", p, fi.Mode(), err, want)
		}
	}
}
