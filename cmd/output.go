package cmd

import (
	"bufio"
	"context"
	"fmt"
	"strings"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/format"
	"github.com/visualq/vq/ui"
)

// invoke sends a call and, when the tool asks for consent, asks for it
// (--yes, or a prompt on a terminal) and resends once with confirm: true.
// No credential means nothing is sent.
func (f *Factory) invoke(ctx context.Context, client *api.Client, s Settings, call api.Call) (*api.ToolResponse, error) {
	if !s.hasCredential() {
		return withHint(api.MissingCredential(call.Tool)), nil
	}
	resp, err := client.Invoke(ctx, call)
	if err != nil || resp.ErrorCode() != api.CodeConfirmRequired {
		return withHint(resp), err
	}
	if !f.Global.Yes {
		if f.useTUI() {
			return resp, nil // the TUI's confirm dialog asks instead
		}
		if yes, err := f.promptConfirm(ctx, call, resp); err != nil || !yes {
			return resp, err
		}
	}
	return answerWithHint(client.Invoke(ctx, call.WithConfirm()))
}

// promptConfirm asks on the terminal whether to resend a write call with
// confirm: true. Scripts (no terminal) are never asked: they get the
// confirm_required exit code unless they passed --yes.
func (f *Factory) promptConfirm(ctx context.Context, call api.Call, resp *api.ToolResponse) (bool, error) {
	if !f.IO.InTTY || !f.IO.ErrTTY || f.structuredOutput() {
		return false, nil
	}
	fmt.Fprintf(f.IO.ErrOut, "%s\nSend %s again with confirm: true? [y/N] ",
		format.SanitizeLine(resp.ErrorMessage()), format.SanitizeLine(call.Tool))
	line, err := readLine(ctx, bufio.NewReader(f.IO.In))
	answer := strings.ToLower(line)
	return answer == "y" || answer == "yes", err
}

// show hands one response to the renderer the flags chose and returns the
// error that carries its exit code.
func (f *Factory) show(ctx context.Context, resp *api.ToolResponse) error {
	growPipe(f.IO.Out, len(resp.Raw()))
	var err error
	switch {
	case f.Global.JQ != "":
		var q *format.Query
		if q, err = format.CompileJQ(f.Global.JQ); err == nil {
			err = q.Run(ctx, f.IO.Out, resp)
		}
	case format.IsCI(f.Global.Format):
		err = format.RenderCI(f.IO.Out, f.IO.ErrOut, resp, f.Global.Format, f.Getenv)
	case f.Global.Format == "json":
		err = format.JSON(f.IO.Out, resp, f.IO.OutTTY)
	default:
		err = format.Plain(f.IO.Out, f.IO.ErrOut, resp)
	}
	f.rememberIDs(resp)
	if err != nil {
		return err
	}
	return shownError(resp)
}

// shownError is the error that carries a shown response's exit code.
func shownError(resp *api.ToolResponse) error {
	if !resp.OK {
		return &format.ResponseError{Response: resp}
	}
	return nil
}

// structuredOutput is whether the flags ask for output a program reads
// (--json, --jq, a CI format) rather than text for a person.
func (f *Factory) structuredOutput() bool {
	return f.Global.JQ != "" || (f.Global.Format != "" && f.Global.Format != "text")
}

// useTUI reports whether answers go to the TUI: a person at a terminal
// (stdin and stdout) who asked for no other rendering.
func (f *Factory) useTUI() bool {
	g := f.Global
	return f.IO.InTTY && f.IO.OutTTY && f.Getenv("TERM") != "dumb" &&
		g.Format == "" && g.JQ == "" && !g.NoTUI
}

// showCall is show for the answer to call. On a person's terminal it opens
// the TUI, which sends the calls chained from there through f.invoke; the
// last answer shown gives the exit code. Elsewhere it is show.
func (f *Factory) showCall(ctx context.Context, client *api.Client, s Settings, call api.Call, resp *api.ToolResponse) error {
	if !f.useTUI() {
		return f.show(ctx, resp)
	}
	f.rememberIDs(resp)
	var writeTools func(string) bool
	if s.Transport == api.TransportMCP {
		// Over MCP the session is open: its tool annotations mark write
		// actions before the server's confirm gate has to.
		if tools, failed, err := client.ListTools(ctx); err == nil && failed == nil {
			writeTools = api.WriteTools(tools)
		}
	}
	last, err := ui.Run(ctx, ui.Options{
		In:  f.IO.In,
		Out: f.IO.Out,
		Invoke: func(ctx context.Context, call api.Call) (*api.ToolResponse, error) {
			return f.invoke(ctx, client, s, call)
		},
		NoColor:    f.Global.NoColor,
		Fetch:      client.FetchPublic,
		Getenv:     f.Getenv,
		WriteTools: writeTools,
	}, call, resp)
	if err != nil {
		return err
	}
	if last != resp {
		f.rememberIDs(last)
	}
	return shownError(last)
}

// runCall is the whole life of a simple command: build the client, call,
// show — with --wait, the final answer of the job the tool started.
func (f *Factory) runCall(ctx context.Context, call api.Call) error {
	client, s, resp, err := f.call(ctx, call, f.Global.Wait)
	if err != nil {
		return err
	}
	return f.showCall(ctx, client, s, call, resp)
}

// call sends a tool call through the consent and readiness flows and,
// when watch is set and the tool started a job (or MCP token work),
// watches it: the answer is then the job's final one, or the client-made
// timeout answer past --timeout.
func (f *Factory) call(ctx context.Context, call api.Call, watch bool) (*api.Client, Settings, *api.ToolResponse, error) {
	client, s, err := f.Client()
	if err != nil {
		return nil, s, nil, err
	}
	resp, err := f.invoke(ctx, client, s, call)
	if err == nil {
		resp, err = f.awaitReadiness(ctx, client, s, call, resp)
	}
	if err != nil {
		return nil, s, nil, err
	}
	if id, poll, ok := client.FollowUp(call, resp); ok && watch {
		outcomes, err := f.watchJobs(ctx, []watched{{id: id, poll: poll}})
		if err != nil {
			return nil, s, nil, err
		}
		resp = outcomes[0].resp
	}
	return client, s, resp, nil
}
