// Package clipboard puts text where a person can paste it from, and says
// truthfully where that was: inside tmux a tmux buffer (tmux load-buffer -w,
// which tmux also forwards to the outer terminal's clipboard when its
// set-clipboard option allows), on a desktop the platform's clipboard
// (wl-copy on Wayland, xclip or xsel on X11, pbcopy on macOS, clip on
// Windows), else an OSC 52 request to the terminal, which works over SSH
// but which a terminal may ignore without saying so.
//
// What goes to a clipboard is stripped of control characters first
// (Printable): pasted into a terminal, an ESC would be obeyed, and the end
// of a bracketed paste (ESC [201~) would turn the rest of the paste into
// typed commands.
//
// The platform tools are run rather than linked: the maintained Go
// libraries either run the same tools without saying which (and read the
// environment once, at start-up) or need cgo and an X11 library, which a
// static binary run over SSH cannot count on.
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

// Env is what decides the way to a clipboard. Zero fields take the
// process's own: runtime.GOOS and exec.LookPath.
type Env struct {
	Getenv   func(string) string
	GOOS     string
	LookPath func(string) (string, error)
	// Terminal opens the terminal an OSC 52 request is written to; nil,
	// or an error, means there is none (a pipe, no controlling terminal).
	Terminal func() (io.WriteCloser, error)
}

// Method is one way to a clipboard.
type Method struct {
	// Name says where the text goes, for a person: "tmux buffer (tmux
	// load-buffer -w -)".
	Name string
	// Unconfirmed is true for OSC 52: the request is written, but no
	// terminal answers whether it took it.
	Unconfirmed bool

	argv   []string // a tool that reads the text on stdin
	env    []string // added to the tool's environment
	encode func(string) []byte
	osc52  func() (io.WriteCloser, error)
}

// UnavailableError is a copy that no method could make: each reason says
// why one was left out or failed.
type UnavailableError struct{ Reasons []string }

func (e *UnavailableError) Error() string {
	return "no clipboard to copy to: " + strings.Join(e.Reasons, "; ")
}

// toolTimeout bounds one clipboard tool: they return at once, and one that
// hangs (an X server that does not answer) must not hang vq.
const toolTimeout = 5 * time.Second

// Candidates are the methods that may work here, best first, and the
// reasons the others were left out.
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
	// tool adds the first of names that is installed, or says none is.
	// The tool is told the variable that chose it (the tmux socket, the
	// display) from env, so it reaches what vq decided on.
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

// platformTool is the method of one installed clipboard tool, given the
// environment variable that chose it and its value.
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

// Copied is what a copy did: the method that took the text, how many
// bytes went, and how many control characters were left out of them.
type Copied struct {
	Method
	Bytes, Dropped int
}

// Report is the copy of what (a noun phrase: "the JIRA comment (12
// bytes)") as a person is told it: where it went, what was left out, and,
// for OSC 52, that nothing can confirm it. It never says "copied" of a
// copy vq cannot check.
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

// Copy puts text, its controls left out (Printable), on the first
// candidate that takes it. The error is an *UnavailableError when none
// did.
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

// Printable is text without the C0 and C1 control characters (and DEL)
// other than tab and newline, invalid UTF-8 shown as U+FFFD; dropped
// counts what was left out.
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
	// No pipes on stdout and stderr: xclip and wl-copy fork a child that
	// keeps serving the selection, and a pipe it inherited would hold
	// Wait until that child ends.
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
