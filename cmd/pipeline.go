package cmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/api/mcpclient"
	"github.com/visualq/vq/format"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/textsafe"
	"github.com/visualq/vq/ui"
	"golang.org/x/term"
)

// Pipeline is the life of one command's calls: connect, consent, send,
// the readiness lock, the follow-up watch, show, and the error that
// carries the exit code. Each command that calls a tool builds one with
// its output and wait flags; nothing else sends a call or shows an answer.
type Pipeline struct {
	f *Factory
	// Output holds the command's --json/--format/--jq (zero: text).
	Output OutputOptions
	// Wait holds the command's wait flags; Wait.Wait false never waits.
	Wait WaitOptions
	// Reports holds the command's --junit and --exit-status (see finish).
	Reports ReportOptions
	// Resume, when set, is the command line that resumes the watch of the
	// given jobs, printed when a watch stops early; else vq watch IDS.
	Resume func(ids []string) string

	client   *mcpclient.Client
	settings Settings
	// shown is the answer shown last, which the reports are of.
	shown *api.ToolResponse
}

func newPipeline(f *Factory) *Pipeline { return &Pipeline{f: f} }

// connect builds the client once per command.
func (p *Pipeline) connect(ctx context.Context) (*mcpclient.Client, Settings, error) {
	if p.client != nil {
		return p.client, p.settings, nil
	}
	client, s, err := p.f.Client(ctx)
	if err != nil {
		return nil, s, err
	}
	p.client, p.settings = client, s
	return client, s, nil
}

// Run is the whole life of a simple command: send the call, with --wait
// follow the job it starts, then show the answer. On a person's terminal,
// without --wait (whose progress has a display of its own), the TUI opens
// first and sends the call, so that a slow server shows its spinner.
func (p *Pipeline) Run(ctx context.Context, call api.Call) error {
	if p.useTUI() && !p.Wait.Wait {
		return p.finish(ctx, p.ShowCall(ctx, call, nil))
	}
	resp, err := p.Call(ctx, call)
	if err != nil {
		return err
	}
	return p.finish(ctx, p.ShowCall(ctx, call, resp))
}

// Call sends a call through consent and the readiness lock and, when the
// command waits and the tool started a job (or MCP token work), follows
// it: the answer is then the job's final one, or the client-made timeout
// answer past the wait's bound. The progress an MCP server reports while
// it answers is drawn as a job's is.
func (p *Pipeline) Call(ctx context.Context, call api.Call) (*api.ToolResponse, error) {
	sendCtx, endProgress := p.callProgress(ctx, call.Tool)
	resp, err := p.Send(sendCtx, call)
	endProgress()
	if err != nil {
		return nil, err
	}
	client, _, _ := p.connect(ctx)
	if id, poll, ok := client.FollowUp(call, resp); ok && p.Wait.Wait {
		outcomes, err := p.watchJobs(ctx, []watched{{id: id, poll: poll}})
		if err != nil {
			return nil, err
		}
		resp = outcomes[0].resp
	}
	return resp, nil
}

// Send sends one call with consent and waits out the readiness lock when
// the command waits. No credential means nothing is sent.
func (p *Pipeline) Send(ctx context.Context, call api.Call) (*api.ToolResponse, error) {
	resp, err := p.consented(ctx, call, p.f.Global.Yes)
	if err != nil {
		return nil, err
	}
	return p.awaitReadiness(ctx, call, resp)
}

// consented is the one place consent is given. With --yes a tool known to
// write is sent once with confirm: true; any other call is sent as it is,
// and when the server asks for consent, it is given by --yes or at a
// prompt on a terminal, then the call is sent again once. In the TUI the
// confirm dialog asks instead.
func (p *Pipeline) consented(ctx context.Context, call api.Call, yes bool) (*api.ToolResponse, error) {
	client, s, err := p.connect(ctx)
	if err != nil {
		return nil, err
	}
	if !s.hasCredential() {
		return withHint(api.MissingCredential(call.Tool)), nil
	}
	if yes && api.KnownWriteTool(call.Tool) {
		call = call.WithConfirm()
	}
	resp, err := answerWithHint(client.Invoke(ctx, call))
	if err != nil || resp.ErrorCode() != api.CodeConfirmRequired || call.Args[api.ArgConfirm] == true {
		return resp, err
	}
	if !yes {
		if p.useTUI() {
			return resp, nil
		}
		if agreed, err := p.promptConfirm(ctx, call, resp); err != nil || !agreed {
			return resp, err
		}
	}
	return answerWithHint(client.Invoke(ctx, call.WithConfirm()))
}

// promptConfirm asks on the terminal whether to resend a write call with
// confirm: true. Scripts (no terminal) are never asked: they get the
// confirm_required exit code unless they passed --yes.
func (p *Pipeline) promptConfirm(ctx context.Context, call api.Call, resp *api.ToolResponse) (bool, error) {
	if !p.canPrompt() {
		return false, nil
	}
	return p.askYesNo(ctx, fmt.Sprintf("%s\nSend %s again with confirm: true?",
		textsafe.SanitizeLine(resp.ErrorMessage()), textsafe.SanitizeLine(call.Tool)))
}

// canPrompt reports whether a person can be asked on the terminal.
func (p *Pipeline) canPrompt() bool {
	io := p.f.IO
	return io.InTTY && io.ErrTTY && !p.Output.Structured()
}

// askYesNo asks question on the terminal; only y or yes is a yes.
func (p *Pipeline) askYesNo(ctx context.Context, question string) (bool, error) {
	fmt.Fprint(p.f.IO.ErrOut, question+" [y/N] ")
	line, err := readLine(ctx, bufio.NewReader(p.f.IO.In))
	answer := strings.ToLower(line)
	return answer == "y" || answer == "yes", err
}

// awaitReadiness handles the readiness lock's refusal (a project whose
// first import is still analysed): it is shown as progress and never
// retried; when the command waits, vq waits politely, ever longer, within
// the wait's bound, and says so.
func (p *Pipeline) awaitReadiness(ctx context.Context, call api.Call, resp *api.ToolResponse) (*api.ToolResponse, error) {
	state, locked := api.ReadinessLock(resp)
	if !locked {
		return resp, nil
	}
	errOut := p.f.IO.ErrOut
	tool := textsafe.SanitizeLine(call.Tool)
	if !p.Wait.Wait {
		fmt.Fprintf(errOut, "vq: %s: the project's first import is being analysed (%s); not retried: run it again later, or add --wait\n",
			tool, readinessProgress(state))
		return resp, nil
	}
	ctx, cancel := context.WithTimeout(ctx, p.waitBound())
	defer cancel()
	send := func(ctx context.Context) (*api.ToolResponse, error) { return p.consented(ctx, call, p.f.Global.Yes) }
	resp, err := api.AwaitReady(ctx, resp, send, api.ReadinessOptions{
		Interval: p.Wait.Interval,
		OnWait: func(r api.Readiness, wait time.Duration) {
			fmt.Fprintf(errOut, "vq: %s: the project's first import is being analysed (%s); asking again in %s\n",
				tool, readinessProgress(r), wait)
		},
	})
	if errors.Is(err, context.DeadlineExceeded) {
		// The bound ended the wait, not the user: the last refusal is the
		// answer, shown and exited with as any other.
		return resp, nil
	}
	return resp, err
}

func readinessProgress(r api.Readiness) string {
	if r.Total == 0 {
		return "analysis in progress"
	}
	return fmt.Sprintf("%d of %d sources analysed", r.Analysed, r.Total)
}

// SendCI calls a tool of the CI endpoint. No credential means nothing is
// sent; CI tools ask for no consent.
func (p *Pipeline) SendCI(ctx context.Context, tool string, args map[string]any) (*api.ToolResponse, error) {
	client, s, err := p.connect(ctx)
	if err != nil {
		return nil, err
	}
	// The CI endpoint lives under the base URL (an MCP --endpoint alone
	// does not name it) and takes the API key only (no OAuth token).
	if s.BaseURL == "" {
		return nil, &exitcode.UsageError{Reason: "vq ci needs the VisualQ server", Hint: "set --base-url or VQ_BASE_URL"}
	}
	if s.APIKey == "" {
		return withHint(api.MissingCredential(tool)), nil
	}
	return answerWithHint(client.CallCI(ctx, tool, args))
}

// Show hands one response to the renderer the flags chose and returns the
// error that carries its exit code.
func (p *Pipeline) Show(ctx context.Context, resp *api.ToolResponse) error {
	io := p.f.IO
	if err := p.saveContent(resp); err != nil {
		return err
	}
	io.PrepareOutput(len(resp.Raw()))
	o := p.Output.renderOptions()
	o.Indent, o.Getenv = io.OutTTY, p.f.Getenv
	err := format.Render(ctx, io.Out, io.ErrOut, resp, o)
	if p.Output.Structured() {
		io.noteDocument()
	}
	p.remember(resp)
	if err != nil && !closedPipe(err) {
		return err
	}
	if resp.ErrorCode() == api.CodeConfirmRequired {
		fmt.Fprintf(io.ErrOut, "vq: %s writes: to consent, run the command again with --yes\n", textsafe.SanitizeLine(resp.Tool))
	}
	// A reader that left early still gets the answer's exit code.
	return shownError(resp)
}

// shownError is the error that carries a shown response's exit code.
func shownError(resp *api.ToolResponse) error {
	if !resp.OK {
		return exitcode.Shown(resp)
	}
	return nil
}

// remember records a shown response: for the reports, and its run and job
// IDs for completion.
func (p *Pipeline) remember(resp *api.ToolResponse) {
	p.shown = resp
	p.f.completionCache().Remember(resp)
}

// useTUI reports whether answers go to the TUI: a person at a terminal
// who asked for no other rendering.
func (p *Pipeline) useTUI() bool {
	return p.f.terminalUI() && p.Output.Format == "" && p.Output.query == nil && p.Reports.JUnit == ""
}

// ShowCall is Show for the answer to call. On a person's terminal it opens
// the TUI, which sends the calls chained from there with consent, and the
// call itself when resp is nil; the last answer shown gives the exit code.
func (p *Pipeline) ShowCall(ctx context.Context, call api.Call, resp *api.ToolResponse) error {
	if !p.useTUI() {
		return p.Show(ctx, resp)
	}
	if resp != nil {
		p.remember(resp)
	}
	client, s, err := p.connect(ctx)
	if err != nil {
		return err
	}
	var writeTools func(string) bool
	if s.Transport == api.TransportMCP {
		// Over MCP the session is open: its tool annotations mark write
		// actions before the server's confirm gate has to.
		if tools, failed, err := client.ListTools(ctx); err == nil && failed == nil {
			writeTools = api.WriteTools(tools)
		}
	}
	last, err := ui.Run(ctx, ui.Options{
		In:  p.f.IO.In,
		Out: p.f.IO.Out,
		Invoke: func(ctx context.Context, call api.Call) (*api.ToolResponse, error) {
			return p.consented(ctx, call, p.f.Global.Yes)
		},
		NoColor:    p.f.Global.NoColor,
		Fetch:      client.FetchPublic,
		Getenv:     p.f.Getenv,
		WriteTools: writeTools,
		Probe:      tuiProbe,
		Asker:      &p.f.asker,
	}, call, resp)
	if err != nil {
		return err
	}
	if last != resp {
		p.remember(last)
	}
	return shownError(last)
}

// Follow watches the work an answer started (an async tool's job, or MCP
// token work) until it ends and answers its final response; each change of
// status or progress on the way reaches onUpdate. An answer that started
// nothing is returned as it is. Follow shows nothing: it serves callers
// that report progress their own way (vq mcp serve's progress
// notifications), where Call's --wait draws the progress display. A
// watch past the wait's bound answers the client-made timeout response;
// err is non-nil only when ctx ended.
func (p *Pipeline) Follow(ctx context.Context, call api.Call, resp *api.ToolResponse, onUpdate func(api.JobUpdate)) (*api.ToolResponse, error) {
	client, _, err := p.connect(ctx)
	if err != nil {
		return nil, err
	}
	id, poll, ok := client.FollowUp(call, resp)
	if !ok {
		return resp, nil
	}
	final, err := api.Watch(ctx, id, poll, p.watchOptions(onUpdate))
	var timeout *api.WatchTimeoutError
	if errors.As(err, &timeout) {
		return timeout.Response(), nil
	}
	return final, err
}

// tuiProbe is ui.Options.Probe for the TUIs this process opens: set only
// by tests, to make the TUI fail on cue.
var tuiProbe func(tea.Msg)

// watched is one job to watch: its id and how to ask after it (a
// get_job_status poll, or the call that follows MCP token work).
type watched struct {
	id   string
	poll api.PollFunc
}

// jobOutcome is how the watch of one job ended: its final answer (a
// client-made timeout answer past the deadline). err is Watch's own error,
// read only while the outcomes are collected.
type jobOutcome struct {
	id   string
	resp *api.ToolResponse
	err  error
}

// jobPolls are the get_job_status polls of the given jobs.
func (p *Pipeline) jobPolls(ctx context.Context, ids []string) ([]watched, error) {
	client, s, err := p.connect(ctx)
	if err != nil {
		return nil, err
	}
	jobs := make([]watched, len(ids))
	for i, id := range ids {
		jobs[i] = watched{id: id, poll: client.JobStatusPoll(id)}
		if !s.hasCredential() {
			jobs[i].poll = func(context.Context) (*api.ToolResponse, error) { return api.MissingCredential(api.ToolJobStatus), nil }
		}
	}
	return jobs, nil
}

// watchJobs watches every job at once with the progress display on stderr.
// A job still running at the deadline gets a timeout outcome (exit code
// exitcode.Timeout); Ctrl-C ends the whole watch with ctx's error. Both
// print the command that resumes the watch.
func (p *Pipeline) watchJobs(ctx context.Context, jobs []watched) ([]jobOutcome, error) {
	ids := make([]string, len(jobs))
	for i, j := range jobs {
		ids[i] = j.id
	}
	display, opts := p.watchSetup(ids)
	outcomes := make([]jobOutcome, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Go(func() {
			resp, err := api.Watch(ctx, j.id, hinted(j.poll), opts)
			outcomes[i] = jobOutcome{id: j.id, resp: resp, err: err}
		})
	}
	wg.Wait()
	display.Close()

	var unfinished, interrupted []string
	for i, o := range outcomes {
		var timeout *api.WatchTimeoutError
		switch {
		case errors.As(o.err, &timeout):
			// Shown like any answer (the timeout code, exit 5), so --json
			// still prints a document for the job, which keeps its ID.
			outcomes[i] = jobOutcome{id: o.id, resp: p.withJobHandle(timeout.Response(), o.id, timeout.Last.Status)}
		case o.err != nil:
			interrupted = append(interrupted, o.id)
		case endedShort(o.resp):
			outcomes[i].resp = p.withJobHandle(o.resp, o.id, "")
		}
		if o.err != nil || endedShort(o.resp) {
			unfinished = append(unfinished, o.id)
		}
	}
	if err := ctx.Err(); err != nil {
		p.showInterrupted(ctx, interrupted)
	}
	if len(unfinished) > 0 {
		resume := p.Resume
		if resume == nil {
			resume = watchCommand
		}
		fmt.Fprintf(p.f.IO.ErrOut, "vq: to resume: %s\n", resume(unfinished))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return outcomes, nil
}

// watchCommand is the vq watch command line of the jobs.
func watchCommand(ids []string) string {
	words := []string{"vq", "watch"}
	for _, id := range ids {
		words = append(words, textsafe.ShellQuote(id))
	}
	return strings.Join(words, " ")
}

// waitBound is the bound of the whole wait (--wait-timeout).
func (p *Pipeline) waitBound() time.Duration {
	return p.Wait.bound(func(note string) { fmt.Fprintln(p.f.IO.ErrOut, "vq: "+note) })
}

// callProgress asks for the progress notifications of the calls made with
// the returned context and shows them in the jobs' progress display, under
// the tool's name, from the first one on: a call that reports no progress
// shows nothing. end closes the display.
func (p *Pipeline) callProgress(ctx context.Context, tool string) (_ context.Context, end func()) {
	var mu sync.Mutex
	var display *ui.JobProgress
	ended := false // a notification may come after the answer: dropped
	start := time.Now()
	ctx = api.WithProgress(ctx, func(u api.JobUpdate) {
		mu.Lock()
		defer mu.Unlock()
		if ended {
			return
		}
		if display == nil {
			display = ui.NewJobProgress(p.f.IO.ErrOut, []string{tool}, p.progressOptions())
			p.f.drawing.add(display)
		}
		u.JobID, u.Elapsed = tool, time.Since(start)
		display.Update(u)
	})
	return ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		ended = true
		if display != nil {
			p.f.drawing.remove(display)
			display.Close()
		}
	}
}

// watchSetup starts the progress display for the watched IDs and gives
// the watch options that report to it.
func (p *Pipeline) watchSetup(ids []string) (*ui.JobProgress, api.WatchOptions) {
	display := ui.NewJobProgress(p.f.IO.ErrOut, ids, p.progressOptions())
	return display, p.watchOptions(display.Update)
}

// watchOptions are the options every watch shares, --interval and the
// wait's bound, with the listener of its updates.
func (p *Pipeline) watchOptions(onUpdate func(api.JobUpdate)) api.WatchOptions {
	return api.WatchOptions{Interval: p.Wait.Interval, Timeout: p.waitBound(), OnUpdate: onUpdate}
}

// progressOptions picks the live view for a terminal on stderr (unless
// --no-tui or TERM=dumb) and the colour profile from the environment.
func (p *Pipeline) progressOptions() ui.ProgressOptions {
	f := p.f
	profile := colorprofile.Env(ui.Environ(f.Getenv))
	if f.Global.NoColor {
		profile = min(profile, colorprofile.ASCII)
	}
	o := ui.ProgressOptions{
		Live:    f.IO.ErrTTY && !f.Global.NoTUI && profile > colorprofile.NoTTY,
		Profile: profile,
	}
	if file, ok := f.IO.ErrOut.(*os.File); ok {
		if w, _, err := term.GetSize(int(file.Fd())); err == nil {
			o.Width = w
		}
	}
	return o
}
