//go:build unix

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
	t.Parallel()
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

// A write through a chain of symbolic links replaces the file at its end
// and keeps the links; a target that is no regular file is refused and
// left as it was.
func TestWriteKeepsLinksAndRefusesWhatIsNoFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "real", "config.json")
	os.MkdirAll(filepath.Dir(target), 0o700)
	first, second := filepath.Join(dir, "first"), filepath.Join(dir, "second")
	os.Symlink("real/config.json", second)
	os.Symlink(second, first)
	if err := Write(first, []byte("one\n")); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(target); err != nil || string(got) != "one\n" {
		t.Errorf("target holds %q (%v)", got, err)
	}
	for _, link := range []string{first, second} {
		if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a link: %v %v", link, info.Mode(), err)
		}
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	_, refused := errors.AsType[*RefusedError](Write(fifo, []byte("x")))
	if info, err := os.Lstat(fifo); !refused || err != nil || info.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("writing a FIFO: refused %v; it is now %v (%v)", refused, info.Mode(), err)
	}
	ran := false
	_, refused = errors.AsType[*RefusedError](Update(fifo, func() error { ran = true; return nil }))
	if _, err := os.Lstat(fifo + ".lock"); !refused || ran || err == nil {
		t.Errorf("updating a FIFO: refused %v, ran %v, a lock beside it: %v", refused, ran, err == nil)
	}
	loop := filepath.Join(dir, "loop")
	os.Symlink(loop, loop)
	if _, refused := errors.AsType[*RefusedError](Write(loop, []byte("x"))); !refused {
		t.Error("a link to itself was not refused")
	}
}

// Read refuses what is no regular file before opening it (an open of a
// FIFO waits for a writer), and stops past its limit.
func TestReadIsBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	syscall.Mkfifo(fifo, 0o600)
	big := filepath.Join(dir, "big")
	os.WriteFile(big, make([]byte, 101), 0o600)
	small := filepath.Join(dir, "small")
	os.WriteFile(small, []byte("ok"), 0o600)
	for path, refused := range map[string]bool{fifo: true, "/dev/zero": true, dir: true, big: true, small: false, os.DevNull: false} {
		b, err := Read(path, 100)
		if _, isRefused := errors.AsType[*RefusedError](err); isRefused != refused || len(b) > 100 {
			t.Errorf("Read(%s): %d bytes, %v; want refused %v", path, len(b), err, refused)
		}
	}
}
