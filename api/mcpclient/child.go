package mcpclient

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/internal/textsafe"
)

// A stdio server is ended as the MCP stdio transport orders: stdin closed,
// stdioGrace; SIGTERM to its group, stdioTermGrace; then SIGKILL. What it
// left in its group (a launcher's server) is ended too; the sum bounds it.
const (
	stdioGrace     = 50 * time.Millisecond
	stdioTermGrace = 500 * time.Millisecond
	stdioKillWait  = time.Second
)

// StdioStartError is a stdio server that could not run or ended before answering: a retry would repeat it.
type StdioStartError struct {
	Command string
	Reason  string
	Stderr  []string // the server's last lines of stderr, sanitized and bounded.
}

func (e *StdioStartError) Error() string {
	msg := fmt.Sprintf("the stdio server %s %s", textsafe.SanitizeLine(e.Command), e.Reason)
	if len(e.Stderr) > 0 {
		msg += "; its last lines of stderr: " + strings.Join(e.Stderr, " | ")
	}
	return msg
}

// stdioTransport starts the command on Connect, in its own process group with a minimal environment.
func (c *Client) stdioTransport(argv []string) (*childTransport, error) {
	log := &stderrLog{shown: c.opts.StdioStderr}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, &StdioStartError{Command: argv[0], Reason: "cannot be run: " + err.Error()}
	}
	return &childTransport{command: argv[0], path: path, args: argv[1:], env: childEnv(c.opts.StdioEnv),
		limit: min(c.opts.MaxBodyBytes, stdioMaxLine), recordLimit: c.opts.MaxBodyBytes, log: log}, nil
}

// childEnv is inheritedEnv (as the MCP TypeScript SDK passes it; never vq's tokens), then --env pairs.
func childEnv(extra []string) []string {
	var env []string
	for _, name := range inheritedEnv {
		// "()" starts a shell function.
		if v, ok := os.LookupEnv(name); ok && !strings.HasPrefix(v, "()") {
			env = append(env, name+"="+v)
		}
	}
	return append(env, extra...)
}

// stdioMaxLine caps a stdio message below the HTTP cap: it is read whole, so memory peaks at a multiple of it.
const stdioMaxLine = 64 << 20

// childTransport is the SDK's IOTransport over a child with vq's answer cap (CommandTransport's is smaller).
type childTransport struct {
	command     string // as the endpoint names it
	path        string
	args, env   []string
	limit       int64
	recordLimit int64 // what a call's record keeps of its answers
	log         *stderrLog
	mu          sync.Mutex
	proc        *childProcess // the child Connect started; nil before
	startError  error         // why it could not start
}

func (t *childTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	p, err := startChild(t.path, t.args, t.env, t.log)
	if err != nil {
		err = &StdioStartError{Command: t.command, Reason: "cannot be started: " + err.Error()}
		t.mu.Lock()
		t.startError = err
		t.mu.Unlock()
		return nil, err
	}
	t.mu.Lock()
	t.proc = p
	t.mu.Unlock()
	conn := &recordingConn{limit: t.recordLimit, pending: map[jsonrpc.ID]pendingRequest{}}
	lines := bufio.NewReaderSize(&lineCap{r: p.stdout, limit: t.limit, ended: p.outputEnded}, lineChunk)
	framed := &mcp.IOTransport{
		Reader: io.NopCloser(&answerLines{lines: lines, conn: conn}),
		Writer: p,
		// A backstop: lineCap fails first and says why.
		MaxLineLength: int(min(t.limit+1, math.MaxInt32)),
	}
	if conn.Connection, err = framed.Connect(ctx); err != nil {
		return nil, err
	}
	return conn, nil
}

// lineChunk is the piece a longer stdio line is gathered in.
const lineChunk = 64 << 10

// startFailure is err as a StdioStartError when the child could not start or ended before answering.
func (t *childTransport) startFailure(ctx context.Context, err error) error {
	t.mu.Lock()
	p, startErr := t.proc, t.startError
	t.mu.Unlock()
	switch {
	case startErr != nil:
		return startErr
	case ctx.Err() != nil || p == nil || !p.endedOnItsOwn():
		return err
	}
	_ = p.Close() // its last lines of stderr
	return &StdioStartError{Command: t.command, Reason: p.exitReason(), Stderr: t.log.tail()}
}

// childProcess is a started stdio server. The pipes are vq's own, not
// exec's, so neither Wait nor a grandchild holding one decides when vq stops reading.
type childProcess struct {
	cmd                   *exec.Cmd
	stdin, stdout, stderr *os.File
	exited, stderrRead    chan struct{}
	closing, ended        atomic.Bool // closing: vq has begun to end it; ended: its stdout ended before.
	closeOnce             sync.Once
	closeErr              error
}

func startChild(path string, args, env []string, log *stderrLog) (*childProcess, error) {
	var ends [3][2]*os.File // stdin, stdout, stderr: read and write ends
	for i := range ends {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll(ends[:i])
			return nil, err
		}
		ends[i] = [2]*os.File{r, w}
	}
	cmd := exec.Command(path, args...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = ends[0][0], ends[1][1], ends[2][1]
	inOwnGroup(cmd)
	err := cmd.Start()
	for _, childEnd := range []*os.File{ends[0][0], ends[1][1], ends[2][1]} {
		childEnd.Close()
	}
	if err != nil {
		closeAll([][2]*os.File{{ends[0][1]}, {ends[1][0]}, {ends[2][0]}})
		return nil, err
	}
	p := &childProcess{cmd: cmd, stdin: ends[0][1], stdout: ends[1][0], stderr: ends[2][0],
		exited: make(chan struct{}), stderrRead: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(p.exited)
	}()
	go func() {
		_, _ = io.Copy(log, p.stderr)
		log.end()
		close(p.stderrRead)
	}()
	return p, nil
}

func closeAll(files [][2]*os.File) {
	for _, pair := range files {
		for _, f := range pair {
			if f != nil {
				f.Close()
			}
		}
	}
}

func (p *childProcess) Write(b []byte) (int, error) { return p.stdin.Write(b) }

// Close ends the child (end) once.
func (p *childProcess) Close() error {
	p.closeOnce.Do(func() { p.closeErr = p.end() })
	return p.closeErr
}

// end closes stdin, then signals the group (the bounds above).
func (p *childProcess) end() error {
	p.closing.Store(true)
	defer p.release()
	p.stdin.Close()
	for _, step := range []struct {
		signal syscall.Signal
		wait   time.Duration
	}{{0, stdioGrace}, {syscall.SIGTERM, stdioTermGrace}, {syscall.SIGKILL, stdioKillWait}} {
		if step.signal != 0 {
			_ = signalGroup(p.cmd.Process, step.signal)
		}
		if p.awaitExit(step.wait) {
			p.endGroup()
			return nil
		}
	}
	return errors.New("the stdio server does not exit")
}

// endGroup ends what the exited server left running in its group.
func (p *childProcess) endGroup() {
	if !groupAlive(p.cmd.Process) {
		return
	}
	_ = signalGroup(p.cmd.Process, syscall.SIGTERM)
	for deadline := time.Now().Add(stdioTermGrace); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if !groupAlive(p.cmd.Process) {
			return
		}
	}
	_ = signalGroup(p.cmd.Process, syscall.SIGKILL)
}

func (p *childProcess) awaitExit(d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-p.exited:
		return true
	case <-timer.C:
		return false
	}
}

// stderrDrain bounds reading an exited child's stderr: an escaped grandchild may hold the pipe.
const stderrDrain = 100 * time.Millisecond

// release closes vq's pipe ends so no reader outlives the child.
func (p *childProcess) release() {
	timer := time.NewTimer(stderrDrain)
	defer timer.Stop()
	select {
	case <-p.stderrRead:
	case <-timer.C:
	}
	p.stderr.Close()
	p.stdout.Close()
	<-p.stderrRead
}

func (p *childProcess) outputEnded() {
	if !p.closing.Load() {
		p.ended.Store(true)
	}
}

// endedOnItsOwn reports a child that closed its output or failed: it could not serve.
func (p *childProcess) endedOnItsOwn() bool {
	if p.ended.Load() {
		return true
	}
	select {
	case <-p.exited:
		return p.cmd.ProcessState.ExitCode() > 0
	default:
		return false
	}
}

func (p *childProcess) exitReason() string {
	select {
	case <-p.exited:
		return "exited before answering (" + p.cmd.ProcessState.String() + ")"
	default:
		return "closed its output before answering"
	}
}

// Bounds of a stdio server's stderr: a line, the lines kept, what --debug shows.
const (
	stderrLineMax   = 1000
	stderrTailLines = 10
	stderrShownMax  = 1 << 20
)

const stderrMore = "stdio server: (more on stderr, past what --debug shows)\n"

// stderrLog keeps a stdio server's last stderr lines, sanitized and cut, shown (--debug) within stderrShownMax.
type stderrLog struct {
	shown   io.Writer
	mu      sync.Mutex
	line    []byte
	cut     bool // line went on past stderrLineMax
	lines   []string
	written int
}

func (l *stderrLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			l.add(p)
			break
		}
		l.add(p[:i])
		l.endLine()
		p = p[i+1:]
	}
	return n, nil
}

func (l *stderrLog) add(b []byte) {
	room := stderrLineMax - len(l.line)
	if len(b) > room {
		b, l.cut = b[:room], true
	}
	l.line = append(l.line, b...)
}

func (l *stderrLog) endLine() {
	line := textsafe.SanitizeLine(strings.ToValidUTF8(string(l.line), "\uFFFD"))
	if l.cut {
		line += "…"
	}
	l.line, l.cut = l.line[:0], false
	if len(l.lines) == stderrTailLines {
		l.lines = l.lines[1:]
	}
	l.lines = append(l.lines, line)
	if l.shown == nil || l.written >= stderrShownMax {
		return
	}
	out := "stdio server: " + line + "\n"
	if l.written+len(out)+len(stderrMore) > stderrShownMax {
		out = stderrMore
		l.written = stderrShownMax
	} else {
		l.written += len(out)
	}
	_, _ = io.WriteString(l.shown, out)
}

// end keeps the last line when it had no newline.
func (l *stderrLog) end() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.line) > 0 || l.cut {
		l.endLine()
	}
}

func (l *stderrLog) tail() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}
