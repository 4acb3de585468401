package cmd

import (
	"bufio"
	"context"
	"fmt"
	"strings"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/format"
)

// invoke sends a call and, when the tool asks for consent, asks for it
// (--yes, or a prompt on a terminal) and resends once with confirm: true.
// No credential means nothing is sent.
func (f *Factory) invoke(ctx context.Context, client *api.Client, s Settings, call api.Call) (*api.ToolResponse, error) {
	if s.APIKey == "" {
		return api.MissingCredential(call.Tool), nil
	}
	resp, err := client.Invoke(ctx, call)
	if err != nil || resp.ErrorCode() != api.CodeConfirmRequired {
		return resp, err
	}
	if !f.Global.Yes && !f.promptConfirm(call, resp) {
		return resp, nil
	}
	return client.Invoke(ctx, call.WithConfirm())
}

// promptConfirm asks on the terminal whether to resend a write call with
// confirm: true. Scripts (no terminal) are never asked: they get the
// confirm_required exit code unless they passed --yes.
func (f *Factory) promptConfirm(call api.Call, resp *api.ToolResponse) bool {
	if !f.IO.InTTY || !f.IO.ErrTTY || f.Global.Format == "json" || f.Global.JQ != "" {
		return false
	}
	fmt.Fprintf(f.IO.ErrOut, "%s\nSend %s again with confirm: true? [y/N] ",
		format.SanitizeLine(resp.ErrorMessage()), format.SanitizeLine(call.Tool))
	line, _ := bufio.NewReader(f.IO.In).ReadString('\n')
	answer := strings.ToLower(strings.TrimSpace(line))
	return answer == "y" || answer == "yes"
}

// show hands one response to the renderer the flags chose and returns the
// error that carries its exit code.
func (f *Factory) show(ctx context.Context, resp *api.ToolResponse) error {
	var err error
	switch {
	case f.Global.JQ != "":
		var q *format.Query
		if q, err = format.CompileJQ(f.Global.JQ); err == nil {
			err = q.Run(ctx, f.IO.Out, resp)
		}
	case f.Global.Format == "json":
		err = format.JSON(f.IO.Out, resp, f.IO.OutTTY)
	default:
		err = format.Plain(f.IO.Out, f.IO.ErrOut, resp)
	}
	if err != nil {
		return err
	}
	if !resp.OK {
		return &format.ResponseError{Response: resp}
	}
	return nil
}

// runCall is the whole life of a simple command: build the client, invoke,
// show.
func (f *Factory) runCall(ctx context.Context, call api.Call) error {
	client, s, err := f.Client()
	if err != nil {
		return err
	}
	resp, err := f.invoke(ctx, client, s, call)
	if err != nil {
		return err
	}
	return f.show(ctx, resp)
}
