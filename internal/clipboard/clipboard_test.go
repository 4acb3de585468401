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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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

// What goes to a clipboard loses the C0 and C1 controls but tab and
// newline, whichever way it goes: pasted into a terminal, ESC [201~ would
// end a bracketed paste and type the rest as commands.
func TestCopyLeavesControlsOut(t *testing.T) {
	t.Parallel()
	const hostile = "h3. ok\t✓\r\n\x1b]0;pwned\x07{code}\x1b[201~rm -rf ~\n\u009b31m\x7f\x00end\xff"
	const want = "h3. ok\t✓\n]0;pwned{code}[201~rm -rf ~\n31mend\ufffd"
	if got, dropped := Printable(hostile); got != want || dropped != 7 {
		t.Errorf("Printable = %q, %d dropped\nwant %q, 7", got, dropped, want)
	}
	if got, dropped := Printable(text); got != text || dropped != 0 {
		t.Errorf("Printable changed plain text: %q, %d", got, dropped)
	}
	for name, env := range map[string]map[string]string{"tmux": {"TMUX": "/tmp/s,1,0"}, "terminal": {}} {
		t.Run(name, func(t *testing.T) {
			e, dir := fakeTools(t)
			e.Getenv = getenv(env)
			var tty terminal
			e.Terminal = func() (io.WriteCloser, error) { return &tty, nil }
			c, err := Copy(context.Background(), hostile, e)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(filepath.Join(dir, "tmux.in"))
			if name == "terminal" {
				got = tty.Bytes()
				want := OSC52(want)
				if string(got) != want {
					t.Errorf("terminal got %q, want %q", got, want)
				}
			} else if string(got) != want {
				t.Errorf("tmux got %q, want %q", got, want)
			}
			if c.Bytes != len(want) || c.Dropped != 7 {
				t.Errorf("copied %d bytes, %d dropped", c.Bytes, c.Dropped)
			}
		})
	}
}

// A report says "copied" only of a copy some tool confirmed; of OSC 52,
// that it was sent and cannot be checked.
func TestReportNeverSaysCopiedOfOSC52(t *testing.T) {
	t.Parallel()
	tmux := Copied{Method: Method{Name: "a tmux buffer (tmux load-buffer -w -)"}, Bytes: 3}
	if got := tmux.Report("the link"); got != "the link copied to a tmux buffer (tmux load-buffer -w -)" {
		t.Errorf("tmux: %q", got)
	}
	tmux.Dropped = 2
	if got := tmux.Report("the link"); got != "the link copied to a tmux buffer (tmux load-buffer -w -), 2 control characters left out" {
		t.Errorf("tmux, controls dropped: %q", got)
	}
	osc := Copied{Method: Method{Name: "the terminal's clipboard (OSC 52)", Unconfirmed: true}}
	if got := osc.Report("the link"); got != "the link sent to the terminal's clipboard (OSC 52); vq cannot check that the terminal took it: it must allow OSC 52 clipboard writes" {
		t.Errorf("OSC 52: %q", got)
	}
}
