package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/api/mcpclient"
	"github.com/visualq/vq/cmd/iostreams"
	"github.com/visualq/vq/completions"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/textsafe"
	"github.com/visualq/vq/ui"
)

// Pipeline is one command's call: connect, consent, send, readiness lock,
// follow, show, exit error; nothing else sends a call or shows an answer.
type Pipeline struct {
	f *Factory
	// Output holds the command's --json/--format/--jq (zero: text).
	Output OutputOptions
	// Wait holds the command's wait flags; Wait.Wait false never waits.
	Wait WaitOptions
	// Reports holds --junit and --exit-status (ReportOptions.finish).
	Reports ReportOptions
	// Resume, when set, resumes a watch stopped early; else vq watch IDS.
	Resume func(ids []string) string
	// Admit is waited on before each request (vq mcp serve's concurrency bound);
	// its error is *api.TurnTimeoutError when the turn deadline passed first.
	Admit func(context.Context) (done func(), err error)

	client   *mcpclient.Client
	settings Settings
	// shown is the answer shown last, which the reports are of.
	shown *api.ToolResponse

	// decide makes display and consentPolicy once, at the first call.
	decide        sync.Once
	display       iostreams.Display
	consentPolicy ui.Consent
}

func NewPipeline(f *Factory) *Pipeline { return &Pipeline{f: f, Admit: admitAtOnce} }

// Terminal is the terminal of the command's factory.
func (p *Pipeline) Terminal() *iostreams.Terminal { return p.f.Terminal() }

// Settings are the settings the command's client was built for (Connect).
func (p *Pipeline) Settings() Settings { return p.settings }

// Finish writes the reports of the answer the command showed last and
// returns the error it exits with (ReportOptions.finish).
func (p *Pipeline) Finish(ctx context.Context, err error) error {
	return p.Reports.finish(ctx, p.f, p.shown, err)
}

func admitAtOnce(context.Context) (func(), error) { return func() {}, nil }

// Connect builds the client once per command.
func (p *Pipeline) Connect(ctx context.Context) (*mcpclient.Client, Settings, error) {
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

// Policies are the command's display and consent: output for a program or
// a file (--json, --format, --jq, --junit) is printed, never the TUI.
func (p *Pipeline) Policies() (iostreams.Display, ui.Consent) {
	p.decide.Do(func() {
		t := p.f.Terminal()
		printed := p.Output.Format != "" || p.Output.query != nil || p.Reports.JUnit != "" || p.f.Global.Save.Dir != ""
		p.display = t.Display(printed)
		p.consentPolicy = t.Consent(p.f.Global.Yes, p.display, p.Output.Structured())
	})
	return p.display, p.consentPolicy
}

// Run sends the call, follows its job with --wait, and shows the answer. On a
// terminal without --wait the TUI opens first, so a slow server shows a spinner.
func (p *Pipeline) Run(ctx context.Context, call api.Call) error {
	if p.opensTUI(call) && !p.Wait.Wait {
		err := p.ShowCall(ctx, call, nil)
		return p.Reports.finish(ctx, p.f, p.shown, err)
	}
	resp, err := p.Call(ctx, call)
	if err != nil {
		return err
	}
	err = p.ShowCall(ctx, call, resp)
	return p.Reports.finish(ctx, p.f, p.shown, err)
}

// Call sends a call (consent, readiness lock) and, with --wait, follows the job
// or MCP token work it started to its final answer or the client-made timeout.
func (p *Pipeline) Call(ctx context.Context, call api.Call) (*api.ToolResponse, error) {
	sendCtx, endProgress := p.f.Terminal().CallProgress(ctx, call.Tool)
	resp, err := p.Send(sendCtx, call)
	endProgress()
	if err != nil {
		return nil, err
	}
	if !p.Wait.Wait {
		return resp, nil
	}
	client, _, _ := p.Connect(ctx)
	if id, poll, ok := client.FollowUp(call, resp); ok {
		outcomes, err := p.Watch().jobs(ctx, []watched{{id: id, poll: poll}})
		if err != nil {
			return nil, err
		}
		resp = api.WorkVerdict(call.Tool, outcomes[0].Resp)
	}
	return resp, nil
}

// opensTUI: the call's answer is shown in the TUI. The TUI is for reads: a
// write command asks at the line prompt, prints its answer and ends.
func (p *Pipeline) opensTUI(call api.Call) bool {
	display, _ := p.Policies()
	return display == iostreams.DisplayTUI && !api.KnownWriteTool(call.Tool)
}

// Send sends one call with consent (asked at the line prompt) and the
// readiness wait; no credential sends nothing.
func (p *Pipeline) Send(ctx context.Context, call api.Call) (*api.ToolResponse, error) {
	return p.consented(ctx, call, p.SendConsented, p.f.Terminal().Prompter(p.Output.Structured()))
}

// consented sends call: with --yes a known write tool goes once with confirm:
// true; else a server's consent request is asked at ask (or --yes) and sent
// once more; declined, nothing more is sent and the error says so.
func (p *Pipeline) consented(ctx context.Context, call api.Call, send func(context.Context, api.Call) (*api.ToolResponse, error), ask iostreams.YesNo) (*api.ToolResponse, error) {
	_, policy := p.Policies()
	if policy == ui.ConsentGiven && api.KnownWriteTool(call.Tool) {
		calls, _, _ := ObtainConsent(ctx, policy, nil, ui.WriteIntent{Calls: []api.Call{call}})
		call = calls[0]
	}
	resp, err := send(ctx, call)
	if err != nil || resp.ErrorCode() != api.CodeConfirmRequired {
		return resp, err
	}
	again := ui.SendAgain(call)
	words := again.Question
	again.Question = func(ctx context.Context) string {
		// The detail lines first, so the answer is typed after the question.
		lines := strings.Split(words(ctx), "\n")
		return strings.Join(append(lines[1:], lines[0]), "\n")
	}
	calls, answer, err := ObtainConsent(ctx, policy, ask, again)
	switch {
	case err != nil:
		return nil, err
	case answer == Declined:
		return nil, p.Declined(call.Tool, true)
	case answer != Consented:
		return resp, nil
	}
	return send(ctx, calls[0])
}

// invoke sends call as it is and adds the hints; no credential sends nothing.
func (p *Pipeline) invoke(ctx context.Context, call api.Call) (*api.ToolResponse, error) {
	client, s, err := p.Connect(ctx)
	if err == nil {
		call, err = s.runOf(call)
	}
	if err != nil {
		return nil, err
	}
	if !s.HasCredential() {
		return WithHint(api.MissingCredential(call.Tool), s), nil
	}
	done, err := p.Admit(ctx)
	var late *api.TurnTimeoutError
	if errors.As(err, &late) {
		return late.Response(call.Tool), nil
	}
	if err != nil {
		return nil, err
	}
	defer done()
	return s.hinted(client.Invoke(ctx, call))
}

// SendConsented sends every consent-settled call: invoke, then the readiness
// lock's refusal, shown and not retried; with --wait, polite waits within bound.
func (p *Pipeline) SendConsented(ctx context.Context, call api.Call) (*api.ToolResponse, error) {
	resp, err := p.invoke(ctx, call)
	if err != nil {
		return nil, err
	}
	if resp.Readiness == nil {
		return resp, nil
	}
	note := func(r *api.ToolResponse, then string) {
		progress := "analysis in progress"
		if state := r.Readiness; state != nil && state.Total != 0 {
			progress = fmt.Sprintf("%d of %d sources analysed", state.Analysed, state.Total)
		}
		p.f.Terminal().Print.Note(fmt.Sprintf("%s: the project's first import is being analysed (%s); %s", textsafe.SanitizeLine(call.Tool), progress, then))
	}
	if !p.Wait.Wait {
		note(resp, "not retried: run it again later, or add --wait")
		return resp, nil
	}
	return api.AwaitReady(ctx, resp, func(ctx context.Context) (*api.ToolResponse, error) { return p.invoke(ctx, call) },
		p.Watch().Options(func(u api.JobUpdate) { note(u.Failure, "asking again in "+u.RetryIn.String()) }))
}

// CICall sends a CI call: (*mcpclient.Client).CallCI, or CallCIOnce.
type CICall func(*mcpclient.Client, context.Context, string, map[string]any) (*api.ToolResponse, error)

// SendCI calls a CI tool: CallCIOnce for a watch's poll (the watch retries),
// else CallCI. No credential sends nothing; CI tools ask no consent.
func (p *Pipeline) SendCI(ctx context.Context, call CICall, tool string, args map[string]any) (*api.ToolResponse, error) {
	client, s, err := p.Connect(ctx)
	if err != nil {
		return nil, err
	}
	// The CI endpoint lives under the base URL (an MCP --endpoint alone
	// does not name it) and takes the API key only (no OAuth token).
	if s.BaseURL == "" {
		return nil, &exitcode.UsageError{Reason: "vq ci needs the VisualQ server", Hint: "set --base-url or VQ_BASE_URL"}
	}
	if s.APIKey == "" && s.OAuth != nil {
		return api.MissingCredential(tool).WithErrorMessage("vq ci needs an API key: the CI endpoint does not take the OAuth sign-in; create a key in VisualQ, then run vq auth login (or set VQ_API_KEY)"), nil
	}
	if s.APIKey == "" {
		return WithHint(api.MissingCredential(tool), s.ci()), nil
	}
	run, err := s.runOf(api.Call{Tool: tool, Args: args})
	if err != nil {
		return nil, err
	}
	return s.ci().hinted(call(client, ctx, tool, run.Args))
}

// Show renders one response as the flags chose; the error carries its exit code.
func (p *Pipeline) Show(ctx context.Context, resp *api.ToolResponse) error {
	p.f.Terminal().Page(ctx)
	print := p.f.Terminal().Print
	if err := saveContent(print, p.f.Global.Save.Dir, p.Output.Structured(), resp); err != nil {
		return err
	}
	saved, err := p.saveDiffImages(ctx, resp)
	if err != nil {
		// The answer is still shown and exits as it would; the report failed.
		print.Error(textsafe.SanitizeLine(err.Error()))
		p.Reports.failed = true
	}
	p.Reports.saved = saved
	opts := p.Output.renderOptions()
	opts.Saved = saved
	err = print.Response(ctx, resp, opts)
	if p.Output.Structured() {
		p.f.IOStreams.Documented = true
	}
	p.Remember(resp)
	if err != nil && !iostreams.ClosedPipe(err) {
		return err
	}
	if resp.ErrorCode() == api.CodeConfirmRequired {
		print.Hint(textsafe.SanitizeLine(resp.Tool) + " writes: to consent, run the command again with --yes")
	}
	// A reader that left early still gets the answer's exit code.
	return ShownError(resp)
}

// Remember records a shown response for the reports and completion's IDs.
func (p *Pipeline) Remember(resp *api.ToolResponse) {
	p.shown = resp
	cache := completions.Open(p.f.Getenv)
	cache.Server = p.settings.Home()
	cache.Remember(resp)
}

// ShownError is the error that carries a shown response's exit code.
func ShownError(resp *api.ToolResponse) error {
	if !resp.OK {
		return exitcode.Shown(resp)
	}
	return nil
}

// ShowCall is Show for call's answer; on a terminal the TUI sends chained calls
// (and call itself when resp is nil); its last answer gives the exit code.
func (p *Pipeline) ShowCall(ctx context.Context, call api.Call, resp *api.ToolResponse) error {
	if !p.opensTUI(call) {
		return p.Show(ctx, resp)
	}
	if resp != nil {
		p.Remember(resp)
	}
	client, s, err := p.Connect(ctx)
	if err != nil {
		return err
	}
	o := p.f.Terminal().TUIOptions()
	o.Server = s.serverName()
	if s.Transport == api.TransportMCP {
		// Over MCP the session is open: its tool annotations mark write
		// actions before the server's confirm gate has to.
		if tools, failed, err := client.ListTools(ctx); err == nil && failed == nil {
			o.WriteTools = api.WriteTools(tools)
		}
	}
	// The TUI's calls are the person's, one at a time on its screens: no
	// readiness wait (a stderr line would tear the frame).
	o.Invoke = func(ctx context.Context, call api.Call) (*api.ToolResponse, error) {
		return p.consented(ctx, call, p.invoke, nil) // the TUI asks in its dialog
	}
	_, o.Consent = p.Policies()
	o.Fetch = func(ctx context.Context, link string, max int64) ([]byte, error) {
		return client.FetchPublic(ctx, s.Home(), link, max)
	}
	last, err := ui.Run(ctx, o, call, resp)
	if err != nil {
		return err
	}
	if last != resp {
		p.Remember(last)
	}
	return ShownError(last)
}

// Follow watches the job or MCP token work an answer started to its final
// response, telling onUpdate and showing nothing (vq mcp serve's progress);
// past the wait's bound it answers the timeout; err only when ctx ended.
func (p *Pipeline) Follow(ctx context.Context, call api.Call, resp *api.ToolResponse, onUpdate func(api.JobUpdate)) (*api.ToolResponse, error) {
	client, _, err := p.Connect(ctx)
	if err != nil {
		return nil, err
	}
	id, poll, ok := client.FollowUp(call, resp)
	if !ok {
		return resp, nil
	}
	admitted := func(ctx context.Context) (*api.ToolResponse, error) {
		done, err := p.Admit(ctx)
		if err != nil {
			return nil, err
		}
		defer done()
		return poll(ctx)
	}
	final, err := api.Watch(ctx, id, admitted, p.Watch().Options(onUpdate))
	if timeout, ok := errors.AsType[*api.WatchTimeoutError](err); ok {
		return timeout.Response(), nil
	}
	if err != nil {
		return nil, err
	}
	return api.WorkVerdict(call.Tool, final), nil
}

// WatchJobs watches jobs (get_job_status polls) to the end of each.
func (p *Pipeline) WatchJobs(ctx context.Context, ids []string) ([]JobOutcome, error) {
	client, s, err := p.Connect(ctx)
	if err != nil {
		return nil, err
	}
	jobs := make([]watched, len(ids))
	for i, id := range ids {
		jobs[i] = watched{id: id, poll: client.JobStatusPoll(id)}
		if !s.HasCredential() {
			jobs[i].poll = func(context.Context) (*api.ToolResponse, error) { return api.MissingCredential(api.ToolJobStatus), nil }
		}
	}
	return p.Watch().jobs(ctx, jobs)
}

// Watch is the command's watch of the jobs it follows.
func (p *Pipeline) Watch() JobWatch {
	return JobWatch{term: p.f.Terminal(), wait: p.Wait, resume: p.Resume, structured: p.Output.Structured(), show: p.Show, settings: p.settings}
}
