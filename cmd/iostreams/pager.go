package iostreams

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
)

// Long output on a terminal goes through a pager, as git's and gh's do:
// VQ_PAGER, else PAGER, else less -FRX (which leaves at once when the
// output fits the screen, keeps colours and leaves the text on the
// screen). The pager is part of the Display policy: only stdout that is
// a terminal is ever paged (never a pipe or a file), never the TUI, and
// --no-pager, or a pager of cat, turns it off. While it runs, vq's lines
// on stderr are held and written after it, so that they follow the
// output instead of tearing the pager's screen.

// defaultPager is the pager without VQ_PAGER or PAGER.
const defaultPager = "less -FRX"

// maxHeldErr bounds what stderr holds while the pager runs; past it, the
// rest is written at once.
const maxHeldErr = 1 << 20

// pagerCommand is the pager to use: "" for none.
func pagerCommand(getenv func(string) string, noPager, stdoutTerminal bool) string {
	if noPager || !stdoutTerminal {
		return ""
	}
	command := strings.TrimSpace(getenv("VQ_PAGER"))
	if command == "" {
		command = strings.TrimSpace(getenv("PAGER"))
	}
	if command == "" {
		command = defaultPager
	}
	if command == "cat" {
		return ""
	}
	return command
}

// pager runs the pager for one command: out is stdout as vq writes it,
// to the pager while it runs; errOut is stderr, held meanwhile.
type pager struct {
	command string
	out     *switchWriter
	errOut  *heldWriter

	cmd  *exec.Cmd
	pipe io.WriteCloser
}

// start starts the pager, once; without a pager, or when it cannot
// start, the output goes to the terminal as it is.
func (p *pager) start(terminal io.Writer, getenv func(string) string) {
	if p.command == "" || p.cmd != nil {
		return
	}
	name, args := "sh", []string{"-c", p.command}
	if runtime.GOOS == "windows" {
		fields := strings.Fields(p.command)
		name, args = fields[0], fields[1:]
	}
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = terminal, p.errOut.target()
	cmd.Env = os.Environ()
	if getenv("LESS") == "" {
		cmd.Env = append(cmd.Env, "LESS=FRX")
	}
	if getenv("LV") == "" {
		cmd.Env = append(cmd.Env, "LV=-c")
	}
	pipe, err := cmd.StdinPipe()
	if err != nil {
		return
	}
	if err := cmd.Start(); err != nil {
		return
	}
	p.cmd, p.pipe = cmd, pipe
	p.out.set(pipe)
	p.errOut.hold()
}

// stop ends the output to the pager and waits for the person to leave
// it; then stderr's held lines are written.
func (p *pager) stop(terminal io.Writer) {
	if p.cmd == nil {
		return
	}
	p.out.set(terminal)
	_ = p.pipe.Close()
	_ = p.cmd.Wait() // a pager quit early, or one that failed, ends the paging all the same
	p.cmd = nil
	p.errOut.release()
}

// switchWriter writes to the writer set last.
type switchWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *switchWriter) set(w io.Writer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.w = w
}

func (s *switchWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	w := s.w
	s.mu.Unlock()
	return w.Write(b)
}

// heldWriter is stderr as vq's lines reach it: one write at a time, so
// that the notices of calls sent at once (a batch's, an agent's) come
// whole, one after the other; while it is held (the pager runs), what is
// written waits (up to maxHeldErr).
type heldWriter struct {
	mu   sync.Mutex
	w    io.Writer
	held *bytes.Buffer
}

func (h *heldWriter) target() io.Writer { return h.w }

func (h *heldWriter) hold() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.held = &bytes.Buffer{}
}

// release writes what was held, and what comes after as it comes.
func (h *heldWriter) release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.held != nil {
		_, _ = h.w.Write(h.held.Bytes())
		h.held = nil
	}
}

func (h *heldWriter) Write(b []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.held != nil && h.held.Len()+len(b) <= maxHeldErr {
		return h.held.Write(b)
	}
	return h.w.Write(b)
}
