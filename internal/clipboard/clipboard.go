// Package clipboard puts text where a person can paste it from, and says
// truthfully where: a tmux buffer inside tmux, else the platform's clipboard
// tool (wl-copy, xclip, xsel, pbcopy, clip), else an OSC 52 request, which a
// terminal may ignore silently.
//
// Control characters are stripped first (Printable): pasted into a terminal an
// ESC would be obeyed, and ESC [201~ would end a bracketed paste.
//
// The tools are run, not linked: Go libraries run them without saying which or
// need cgo and X11, which a static binary over SSH cannot count on.
//
// clipboard is a leaf: it imports the standard library only, never a vq
// package.
package clipboard

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// Env decides the way to a clipboard; zero fields take the process's own.
type Env struct {
	Getenv   func(string) string
	GOOS     string
	LookPath func(string) (string, error)
	Terminal func() (io.WriteCloser, error) // Terminal opens the OSC 52 target; nil or an error: none.
}

// Method is one way to a clipboard.
type Method struct {
	Name        string // Name says where the text goes, for a person.
	Unconfirmed bool   // Unconfirmed is true for OSC 52: no terminal says it took it.

	argv   []string // a tool that reads the text on stdin
	env    []string // added to the tool's environment
	encode func(string) []byte
	osc52  func() (io.WriteCloser, error)
}

// UnavailableError is a copy no method could make, with each method's reason.
type UnavailableError struct{ Reasons []string }

func (e *UnavailableError) Error() string {
	return "no clipboard to copy to: " + strings.Join(e.Reasons, "; ")
}

// toolTimeout bounds one clipboard tool: a hung X server must not hang vq.
const toolTimeout = 5 * time.Second

// Candidates are the methods that may work here, best first, and why not the others.
func Candidates(env Env) ([]Method, []string) {
	getenv, lookPath, goos := env.Getenv, env.LookPath, env.GOOS
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	if goos == "" {
		goos = runtime.GOOS
	}
	var methods []Method
	var reasons []string
	// tool adds the first installed of names, told the variable that chose it.
	tool := func(why, variable string, names ...string) {
		for _, name := range names {
			if path, err := lookPath(name); err == nil {
				methods = append(methods, platformTool(name, path, variable, getenv(variable)))
				return
			}
		}
		reasons = append(reasons, why+" but "+strings.Join(names, " or ")+" is not installed")
	}
	if getenv("TMUX") != "" {
		tool("inside tmux", "TMUX", "tmux")
	} else {
		reasons = append(reasons, "not inside tmux ($TMUX unset)")
	}
	switch goos {
	case "darwin":
		tool("on macOS", "", "pbcopy")
	case "windows":
		tool("on Windows", "", "clip")
	default:
		if getenv("WAYLAND_DISPLAY") != "" {
			tool("on Wayland", "WAYLAND_DISPLAY", "wl-copy")
		}
		if getenv("DISPLAY") != "" {
			tool("on X11", "DISPLAY", "xclip", "xsel")
		}
		if getenv("WAYLAND_DISPLAY") == "" && getenv("DISPLAY") == "" {
			reasons = append(reasons, "no desktop display ($WAYLAND_DISPLAY and $DISPLAY unset)")
		}
	}
	if env.Terminal != nil {
		if t, err := env.Terminal(); err == nil {
			t.Close()
			methods = append(methods, Method{Name: "the terminal's clipboard (OSC 52)", Unconfirmed: true, osc52: env.Terminal})
		} else {
			reasons = append(reasons, "no terminal for OSC 52 ("+err.Error()+")")
		}
	} else {
		reasons = append(reasons, "no terminal for OSC 52")
	}
	return methods, reasons
}

// platformTool is the method of one installed tool and the variable that chose it.
func platformTool(name, path, variable, value string) Method {
	m := Method{argv: []string{path}, encode: func(s string) []byte { return []byte(s) }}
	if variable != "" {
		m.env = []string{variable + "=" + value}
	}
	switch name {
	case "tmux":
		// $TMUX is "socket,pid,session": the socket names the server.
		socket, _, _ := strings.Cut(value, ",")
		m.argv = append(m.argv, "-S", socket, "load-buffer", "-w", "-")
		m.Name = "a tmux buffer (tmux load-buffer -w -)"
		return m
	case "xclip":
		m.argv = append(m.argv, "-selection", "clipboard", "-in")
	case "xsel":
		m.argv = append(m.argv, "--clipboard", "--input")
	case "pbcopy":
		// pbcopy reads bytes in the locale's encoding; without one it
		// mangles anything beyond ASCII.
		m.env = append(m.env, "LC_CTYPE=UTF-8")
	case "clip":
		// clip reads the console code page unless the text starts with a
		// UTF-16 byte-order mark.
		m.encode = utf16LE
	}
	m.Name = "the clipboard (" + name + ")"
	return m
}

// Copied is what a copy did: the method, bytes sent, control characters left out.
type Copied struct {
	Method
	Bytes, Dropped int
}

// Report tells a person where what (a noun phrase) went and what was left out;
// it never says "copied" of an OSC 52 copy vq cannot check.
func (c Copied) Report(what string) string {
	verb := " copied to "
	if c.Unconfirmed {
		verb = " sent to "
	}
	report := what + verb + c.Name
	if c.Dropped > 0 {
		report += fmt.Sprintf(", %d control characters left out", c.Dropped)
	}
	if c.Unconfirmed {
		report += "; vq cannot check that the terminal took it: it must allow OSC 52 clipboard writes"
	}
	return report
}

// Copy puts Printable(text) on the first candidate that takes it; else the
// error is an *UnavailableError.
func Copy(ctx context.Context, text string, env Env) (Copied, error) {
	clean, dropped := Printable(text)
	methods, reasons := Candidates(env)
	for _, m := range methods {
		err := m.copy(ctx, clean)
		if err == nil {
			return Copied{Method: m, Bytes: len(clean), Dropped: dropped}, nil
		}
		reasons = append(reasons, m.Name+" failed: "+err.Error())
	}
	return Copied{}, &UnavailableError{Reasons: reasons}
}

// Printable drops C0, C1 and DEL but tab and newline, shows invalid UTF-8 as
// U+FFFD, and counts what it dropped.
func Printable(text string) (clean string, dropped int) {
	isControl := func(r rune) bool {
		return (r < 0x20 && r != '\t' && r != '\n') || (r >= 0x7f && r <= 0x9f)
	}
	if !strings.ContainsFunc(text, isControl) && utf8.ValidString(text) {
		return text, 0
	}
	var b strings.Builder
	b.Grow(len(text))
	for _, r := range text { // invalid UTF-8 comes as U+FFFD
		if isControl(r) {
			dropped++
			continue
		}
		b.WriteRune(r)
	}
	return b.String(), dropped
}

func (m Method) copy(ctx context.Context, text string) error {
	if m.osc52 != nil {
		t, err := m.osc52()
		if err != nil {
			return err
		}
		_, err = io.WriteString(t, OSC52(text))
		return errors.Join(err, t.Close())
	}
	ctx, cancel := context.WithTimeout(ctx, toolTimeout)
	defer cancel()
	c := exec.CommandContext(ctx, m.argv[0], m.argv[1:]...)
	if len(m.env) > 0 {
		c.Env = append(c.Environ(), m.env...)
	}
	c.Stdin = bytes.NewReader(m.encode(text))
	// No pipes on stdout and stderr: xclip and wl-copy fork a child serving
	// the selection, whose inherited pipe would hold Wait.
	c.WaitDelay = time.Second
	if err := c.Run(); err != nil {
		return fmt.Errorf("%s: %w", strings.Join(m.argv[1:], " "), err)
	}
	return nil
}

// OSC52 is the request asking a terminal to put text on its clipboard.
func OSC52(text string) string {
	return "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(text)) + "\a"
}

// utf16LE is text in UTF-16, little-endian, after a byte-order mark.
func utf16LE(text string) []byte {
	units := utf16.Encode([]rune("\ufeff" + text))
	b := make([]byte, 0, 2*len(units))
	for _, u := range units {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}
