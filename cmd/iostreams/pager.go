package iostreams

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/visualq/vq/internal/exitcode"
)

// Long terminal stdout goes through a pager, as git's; stderr is held meanwhile
// so it does not tear the screen. ctx's end ends a pager that never reads.

const defaultPager = "less -FRX"

// shellSyntax makes a pager command run by sh -c (never on Windows).
const shellSyntax = "|&;<>()$`\\\"'*?[#~=%{}\n"

// maxHeldErr bounds what stderr holds while the pager runs.
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

// pager runs one command's pager: out goes to it, errOut is held meanwhile.
type pager struct {
	command string
	out     *switchWriter
	errOut  *heldWriter

	cmd   *exec.Cmd
	pipe  io.WriteCloser
	ended context.Context // whose end ends the pager
}

// start starts the pager once; a failure is said once and output goes on as is.
func (p *pager) start(ctx context.Context, terminal io.Writer, getenv func(string) string, warn func(string)) {
	if p.command == "" || p.cmd != nil || ctx.Err() != nil {
		return
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", p.command)
	if fields := strings.Fields(p.command); runtime.GOOS == "windows" || !strings.ContainsAny(p.command, shellSyntax) {
		// Plain words (less -R) run directly, so a missing program is known first.
		cmd = exec.CommandContext(ctx, fields[0], fields[1:]...)
	}
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
	// Ended with vq: its pipe closed (a write blocked on a pager that does
	// not read returns), then SIGTERM, then SIGKILL a second later.
	cmd.Cancel = func() error {
		_ = pipe.Close()
		return cmd.Process.Signal(syscall.SIGTERM)
	}
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		warn(fmt.Sprintf("the pager %q could not start (%v): the output is printed without it", p.command, err))
		p.command = ""
		return
	}
	p.cmd, p.pipe, p.ended = cmd, pipe, ctx
	p.out.set(pagerInput{pipe, ctx})
	p.errOut.hold()
}

// stop waits for the person to leave, then writes held stderr; a shell exit
// 126/127 (program could not run) showed nothing, so it is an error.
func (p *pager) stop(terminal io.Writer) error {
	if p.cmd == nil {
		return nil
	}
	p.out.set(terminal)
	_ = p.pipe.Close()
	err := p.cmd.Wait()
	p.cmd = nil
	p.errOut.release()
	if err := p.ended.Err(); err != nil {
		return err // ended by a signal: vq exits as the signal says
	}
	if exit, ok := errors.AsType[*exec.ExitError](err); ok && (exit.ExitCode() == 126 || exit.ExitCode() == 127) {
		return &exitcode.Error{Code: exitcode.Internal, Message: fmt.Sprintf("the pager %q could not run (%v): the output was not shown (--no-pager prints it as it is)", p.command, err)}
	}
	return nil
}

// pagerInput is the pager's stdin: a write failed by ctx's end returns ctx's
// error, so vq exits as the signal says.
type pagerInput struct {
	io.Writer
	ctx context.Context
}

func (w pagerInput) Write(b []byte) (int, error) {
	n, err := w.Writer.Write(b)
	if err != nil && w.ctx.Err() != nil {
		return n, w.ctx.Err()
	}
	return n, err
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

// heldWriter is stderr, one write at a time so concurrent notices come whole;
// while held, writes wait (up to maxHeldErr).
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
