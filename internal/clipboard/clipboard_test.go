package clipboard

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const text = "h3. Proof — BN-470 ✓\n|a|{{b}}|  \nno final newline  "

// fakeTools installs shell scripts named like clipboard tools that save
// their stdin (and argv) in dir; failing names exit 1 instead.
func fakeTools(t *testing.T, failing ...string) (Env, string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake tools are shell scripts")
	}
	dir := t.TempDir()
	lookPath := func(name string) (string, error) {
		path := filepath.Join(dir, name)
		script := "#!/bin/sh\necho \"$@\" > \"$0.args\"\ncat > \"$0.in\"\n"
		for _, f := range failing {
			if f == name {
				script = "#!/bin/sh\nexit 1\n"
			}
		}
		return path, os.WriteFile(path, []byte(script), 0o755)
	}
	return Env{LookPath: lookPath, GOOS: "linux"}, dir
}

func getenv(env map[string]string) func(string) string {
	return func(k string) string { return env[k] }
}

type terminal struct{ bytes.Buffer }

func (t *terminal) Close() error { return nil }

func TestCopyPrefersTmuxThenTheDesktopThenTheTerminal(t *testing.T) {
	for _, c := range []struct {
		name    string
		env     map[string]string
		failing []string
		want    string // the tool whose stdin holds the text; "" for OSC 52
		args    string
	}{
		{"tmux", map[string]string{"TMUX": "/tmp/s,1,0", "DISPLAY": ":0"}, nil, "tmux", "-S /tmp/s load-buffer -w -"},
		{"wayland", map[string]string{"WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0"}, nil, "wl-copy", ""},
		{"x11", map[string]string{"DISPLAY": ":0"}, nil, "xclip", "-selection clipboard -in"},
		{"x11 without a working xclip falls back to the terminal", map[string]string{"DISPLAY": ":0"}, []string{"xclip"}, "", ""},
		{"ssh", map[string]string{}, nil, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			env, dir := fakeTools(t, c.failing...)
			env.Getenv = getenv(c.env)
			var tty terminal
			env.Terminal = func() (io.WriteCloser, error) { return &tty, nil }
			m, err := Copy(context.Background(), text, env)
			if err != nil {
				t.Fatal(err)
			}
			if c.want == "" {
				if !m.Unconfirmed || tty.String() != OSC52(text) {
					t.Errorf("method %q, terminal got %q", m.Name, tty.String())
				}
				return
			}
			got, err := os.ReadFile(filepath.Join(dir, c.want+".in"))
			if err != nil || string(got) != text || tty.Len() != 0 || m.Unconfirmed || !strings.Contains(m.Name, c.want) {
				t.Errorf("method %q: %s got %q (%v); terminal %q", m.Name, c.want, got, err, tty.String())
			}
			if args, _ := os.ReadFile(filepath.Join(dir, c.want+".args")); strings.TrimSpace(string(args)) != c.args {
				t.Errorf("%s ran with %q, want %q", c.want, args, c.args)
			}
		})
	}
}

func TestCopyWithNoWayOutSaysWhy(t *testing.T) {
	env, _ := fakeTools(t)
	env.Getenv = getenv(nil)
	env.Terminal = func() (io.WriteCloser, error) { return nil, errors.New("open /dev/tty: no such device") }
	_, err := Copy(context.Background(), text, env)
	var none *UnavailableError
	if !errors.As(err, &none) {
		t.Fatalf("err %v, want an UnavailableError", err)
	}
	want := "no clipboard to copy to: not inside tmux ($TMUX unset); no desktop display ($WAYLAND_DISPLAY and $DISPLAY unset); no terminal for OSC 52 (open /dev/tty: no such device)"
	if err.Error() != want {
		t.Errorf("error %q\nwant  %q", err, want)
	}
}

func TestClipReadsUTF16WithAByteOrderMark(t *testing.T) {
	env, dir := fakeTools(t)
	env.GOOS, env.Getenv = "windows", getenv(nil)
	if _, err := Copy(context.Background(), "é✓", env); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "clip.in"))
	if want := []byte{0xff, 0xfe, 0xe9, 0x00, 0x13, 0x27}; !bytes.Equal(got, want) {
		t.Errorf("clip got % x, want % x", got, want)
	}
}
