//go:build unix

package cmd

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/sandbox"
)

// runBuiltVQ runs the built vq with env only (and PATH), its heap bounded
// (RLIMIT_DATA; the address space Go reserves is far larger): a vq that tried to read a hostile config whole would die
// at the bound (or the time limit) instead of taking the machine's memory.
func runBuiltVQ(t *testing.T, env map[string]string, args ...string) (stdout, stderr string, exit int) {
	t.Helper()
	c := exec.Command("/bin/sh", append([]string{"-c", `ulimit -d 1048576 && exec "$0" "$@"`, vqBinary(t)}, args...)...)
	c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "VQ_NO_KEYRING=1"}
	for k, v := range env {
		c.Env = append(c.Env, k+"="+v)
	}
	var out, errOut bytes.Buffer
	c.Stdout, c.Stderr = &out, &errOut
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	p := &vqProcess{cmd: c}
	exit = p.wait(t, 20*time.Second)
	return out.String(), errOut.String(), exit
}

// hostileConfigs are config files vq must refuse at once, by the name
// VQ_CONFIG gives and the reason, in one line each.
func hostileConfigs(t *testing.T) map[string]string {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(dir, "huge.json")
	if err := os.WriteFile(huge, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	os.Truncate(huge, 300<<20) // sparse: 300 MB to read, none on disk
	justOver := filepath.Join(dir, "over.json")
	os.WriteFile(justOver, append([]byte(`{"servers":{}}`), bytes.Repeat([]byte(" "), 1<<20)...), 0o600)
	malformed := filepath.Join(dir, "malformed.json")
	os.WriteFile(malformed, []byte(`{"servers": {"x": `), 0o600)
	linkToZero := filepath.Join(dir, "zero-link.json")
	os.Symlink("/dev/zero", linkToZero)
	directory := filepath.Join(dir, "config.d")
	os.Mkdir(directory, 0o700)
	return map[string]string{
		"/dev/zero":                   "config file /dev/zero is not a regular file (a device)",
		linkToZero:                    "config file " + linkToZero + " is not a regular file (a device)",
		fifo:                          "config file " + fifo + " is not a regular file (a named pipe)",
		dir:                           "config file " + dir + " is not a regular file (a directory)",
		huge:                          "config file " + huge + " is larger than 1 MiB",
		justOver:                      "config file " + justOver + " is larger than 1 MiB",
		malformed:                     "config file " + malformed + " is not valid JSON: unexpected end of JSON input",
		"/dev/null":                   "",
		"/nonexistent/vq/config.json": "",
	}
}

// A config file vq cannot use is named in one line and ends vq at once
// (never a read of /dev/zero's endless bytes, a FIFO's wait for a writer,
// or 300 MB); a call whose server and key the flags and environment give
// goes on without it, with a warning that says so.
func TestHostileConfigFilesEndAtOnceAndBreakOnlyWhatNeedsThem(t *testing.T) {
	t.Parallel()
	ts := startLoggedSandbox(t)
	for path, reason := range hostileConfigs(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			env := map[string]string{"VQ_CONFIG": path}
			start := time.Now()
			_, stderr, exit := runBuiltVQ(t, env, "auth", "status")
			if reason == "" {
				// No file, or /dev/null: no settings, and nothing wrong.
				if exit != exitcode.Unauthorized || strings.Contains(stderr, "config file") {
					t.Errorf("auth status: exit %d: %s", exit, stderr)
				}
				return
			}
			if exit != exitcode.Internal || !strings.HasPrefix(stderr, "error: "+reason) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("auth status: exit %d, stderr %q; want exit %d and one line starting %q", exit, stderr, exitcode.Internal, "error: "+reason)
			}
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("refusing the config took %s", took)
			}
			ts.took()
			stdout, stderr, exit := runBuiltVQ(t, with(env, "VQ_API_KEY", sandbox.KeyAdmin), "failures", "run_abc", "--base-url", ts.URL, "--json")
			want := "warning: " + reason
			if exit != 0 || !strings.HasPrefix(stderr, want) || !strings.Contains(stderr, "not used: the server and its key come from the flags and the environment") || !strings.Contains(stdout, `"ok":true`) {
				t.Errorf("a call with --base-url and VQ_API_KEY: exit %d, stderr %q, stdout %.80q", exit, stderr, stdout)
			}
			if got := ts.took(); len(got) != 1 || got[0] != sandbox.KeyAdmin {
				t.Errorf("the server got %q, want the call with VQ_API_KEY", got)
			}
			// A call that needs the file (its key, its active server) fails
			// naming it, and sends nothing.
			if _, stderr, exit := runBuiltVQ(t, env, "failures", "run_abc", "--base-url", ts.URL); exit != exitcode.Internal || !strings.HasPrefix(stderr, "error: "+reason) {
				t.Errorf("a call that needs the config's key: exit %d, stderr %q", exit, stderr)
			}
			if got := ts.took(); len(got) != 0 {
				t.Errorf("the server got %q from a call without its config", got)
			}
		})
	}
}

// A config file owned by another user is warned about; a sticky directory
// (/tmp) is no risk. Files and directories others may write are cmd/auth's
// config_others_may_change script.
func TestConfigOthersMayChangeIsWarnedAbout(t *testing.T) {
	t.Parallel()
	ts := startLoggedSandbox(t)
	for _, c := range []struct {
		name              string
		fileMode, dirMode os.FileMode
		owner             int // -1: the user's
		want              string
	}{
		{"sticky dir", 0o600, 0o777 | os.ModeSticky, -1, ""},
		{"file of another user", 0o600, 0o700, 4242, "{file} is owned by another user (uid 4242): they can change where your key is sent"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "vq")
			file := filepath.Join(dir, "config.json")
			env := map[string]string{"VQ_CONFIG": file}
			login(t, env, sandbox.KeyAdmin, "--base-url", ts.URL)
			if c.owner >= 0 {
				if err := os.Chown(file, c.owner, c.owner); err != nil {
					t.Skipf("cannot give the file to another user: %v", err)
				}
			}
			os.Chmod(file, c.fileMode)
			os.Chmod(dir, c.dirMode)
			t.Cleanup(func() { os.Chmod(dir, 0o700) })
			_, stderr, exit := runVQ(t, env, "failures", "run_abc")
			want := strings.NewReplacer("{file}", file, "{dir}", dir).Replace(c.want)
			if exit != 0 || (want == "") == strings.Contains(stderr, "warning: "+want) {
				t.Errorf("exit %d, stderr %q; want the warning %q", exit, stderr, want)
			}
		})
	}
}

// A config file that links to what is no regular file (a FIFO) is refused
// with why, and left as it is. Links vq writes through are cmd/auth's
// config_symlink script.
func TestConfigLinkToAFIFOIsRefused(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "fifo")
	syscall.Mkfifo(fifo, 0o600)
	toFIFO := filepath.Join(t.TempDir(), "config.json")
	os.Symlink(fifo, toFIFO)
	_, stderr, exit := runBuiltVQ(t, map[string]string{"VQ_CONFIG": toFIFO}, "auth", "switch", "one")
	if exit != exitcode.Internal || !strings.Contains(stderr, "error: config file "+toFIFO+" is not a regular file (a named pipe)") {
		t.Errorf("a link to a FIFO: exit %d: %s", exit, stderr)
	}
	if info, err := os.Lstat(fifo); err != nil || info.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO is now %v (%v)", info.Mode(), err)
	}
}
