//go:build unix

package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/visualq/vq/internal/exitcode"
	"golang.org/x/sys/unix"
)

// nullDevice is a character device that discards what is written, as
// /dev/null does: /dev/null itself for a user who cannot replace it, and
// for root (who can) a device node of the same number in dir, so that a
// vq that replaced it would not break the machine.
func nullDevice(t *testing.T, dir string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		return os.DevNull
	}
	var null unix.Stat_t
	path := filepath.Join(dir, "null")
	if err := unix.Stat(os.DevNull, &null); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mknod(path, unix.S_IFCHR|0o666, int(null.Rdev)); err != nil {
		t.Skipf("no device node to write to: %v", err)
	}
	return path
}

// --junit and --save-dir write a report through a link to a regular file,
// and never over what is no regular file: a FIFO, a device (/dev/null), a
// link to one (/dev/stdout) stay what they were, the command saying why
// and exiting 1 (it was a regular 0644 file as root).
func TestReportFilesNeverReplaceWhatIsNoFile(t *testing.T) {
	t.Parallel()
	s := newCISandbox(t, time.Millisecond)
	dir := t.TempDir()
	fifo, pipeLink := filepath.Join(dir, "fifo"), filepath.Join(dir, "stdout")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	os.Symlink(fifo, pipeLink)
	null := nullDevice(t, dir)
	for path, kind := range map[string]string{fifo: "a named pipe", pipeLink: "a named pipe", null: "a device"} {
		before, _ := os.Lstat(path)
		_, stderr, exit := runVQ(t, s.Env(), "failures", "run_abc", "--junit", path)
		if want := "error: --junit: " + path + " is not a regular file (" + kind + "): refusing to replace it\n"; exit != exitcode.Internal || !strings.HasSuffix(stderr, want) {
			t.Errorf("--junit %s: exit %d, stderr:\n%s\nwant the line %q", path, exit, stderr, want)
		}
		if after, err := os.Lstat(path); err != nil || after.Mode() != before.Mode() {
			t.Errorf("%s was %v, is now %v (%v)", path, before.Mode(), after.Mode(), err)
		}
	}

	report := filepath.Join(dir, "reports", "vq.xml")
	link := filepath.Join(dir, "vq.xml")
	os.MkdirAll(filepath.Dir(report), 0o755)
	os.WriteFile(report, []byte("old"), 0o600)
	os.Symlink(report, link)
	if _, stderr, exit := runVQ(t, s.Env(), "failures", "run_abc", "--junit", link); exit != 0 {
		t.Fatalf("--junit through a link: exit %d\n%s", exit, stderr)
	}
	got, err := os.ReadFile(report)
	if info, lerr := os.Lstat(link); err != nil || lerr != nil || info.Mode()&os.ModeSymlink == 0 || !strings.Contains(string(got), "<testsuites") {
		t.Errorf("the link was not written through: %v %v\n%.200s", err, lerr, got)
	}
	if info, _ := os.Stat(report); info.Mode().Perm() != 0o644 {
		t.Errorf("the report is %v, want 0644", info.Mode().Perm())
	}
	if entries, _ := os.ReadDir(filepath.Dir(report)); len(entries) != 1 {
		t.Errorf("left beside the report: %v", entries)
	}

	media := newForeignServer(t)
	save := t.TempDir()
	os.Symlink(null, filepath.Join(save, "media-1.png"))
	_, stderr, exit := runVQ(t, nil, "--endpoint", media.URL+"/mcp", "invoke", "media", "--save-dir", save)
	if want := "error: --save-dir: " + filepath.Join(save, "media-1.png") + " is not a regular file (a device): refusing to replace it\n"; exit != exitcode.Internal || !strings.HasSuffix(stderr, want) {
		t.Errorf("--save-dir over a link to a device: exit %d, stderr:\n%s\nwant the line %q", exit, stderr, want)
	}
	if info, err := os.Lstat(filepath.Join(save, "media-1.png")); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("media-1.png is no longer the link: %v", err)
	}
}
