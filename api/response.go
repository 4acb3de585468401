package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// ToolResponse is the one shape every VisualQ tool answers with (the
// contract of the invoke endpoint). Data stays raw so that a script asking
// for --json gets the server's own bytes and large answers are decoded only
// by the renderer that needs them.
//
// A response is a value: one made from another (a run read as a job, new
// data, an amended message) comes from WithData or WithErrorMessage, which
// leave the server's bytes and the data index behind. Assigning Data of a
// response read from a server would leave both describing the old data.
type ToolResponse struct {
	OK          bool            `json:"ok"`
	Tool        string          `json:"tool"`
	Summary     string          `json:"summary"`
	Data        json.RawMessage `json:"data"`
	Warnings    []string        `json:"warnings"`
	NextActions []NextAction    `json:"nextActions"`
	Error       *ToolError      `json:"error,omitempty"`
	// Recoverable is nil when the server left it out.
	Recoverable *bool `json:"recoverable,omitempty"`
	// RetryAfterMs accompanies rate_limit refusals (HTTP 429).
	RetryAfterMs int64 `json:"retryAfterMs,omitempty"`

	// raw is the server's body when the response was read from a server as
	// it stands; nil when the client made or derived the response.
	raw []byte
	// data indexes Data's top-level members when Data is an object read
	// from a server: made in the same pass as the read, and valid because
	// only derive makes a response with other data, and derive drops it.
	data *members
	// transient marks client-made failures that may pass on their own
	// (5xx, a cut connection): the class the contract retries once.
	transient bool
	// notSent marks a client-made failure of a request that provably
	// never reached the server (refused, DNS, TLS, no session): sending it
	// again is safe whatever the tool. unanswered marks one whose request
	// may have reached it, with no answer vq can read of what became of
	// it (a cut, a 5xx, an unreadable or self-contradicting answer): the
	// call may have been carried out (MayHaveBeenApplied).
	notSent, unanswered bool
	// cause says why the client made a failure itself, resourceMetadata is
	// a 401 challenge's protected-resource metadata, and url the address
	// that served nothing: what a caller needs to say what the user can do.
	cause            failureCause
	resourceMetadata string
	url              string
	// content is the result of a general MCP server, block by block (see
	// Content); nil for a ToolResponse.
	content *Content
	// scope is the OAuth scope a 403 insufficient_scope asked for.
	scope string
	// repeatUnsafe marks a tool failure the contract would retry but the
	// tool may have changed something before failing: a general MCP
	// server's error from a tool it does not say is read-only or idempotent.
	repeatUnsafe bool
	// origin says where a refusal came from, for the person reading it
	// (WithOrigin); no part of the document.
	origin string
}

// failureCause is why the client made a failed response itself, where the
// error code alone does not say.
type failureCause int

const (
	causeOther             failureCause = iota
	causeNoCredential                   // nothing was sent: no credential is configured
	causeCredentialRefused              // the server answered HTTP 401
	causeTimedOut                       // the request ran past its timeout
	causeNotServed                      // HTTP 404 and no ToolResponse: nothing is served at url
)

// NextAction is a suggested follow-up call. It is sent back as exactly the
// request it describes, so chaining needs no translation.
type NextAction struct {
	Label string         `json:"label"`
	Tool  string         `json:"tool"`
	Args  map[string]any `json:"args,omitempty"`
}

// ToolError is the error object of a failed ToolResponse.
type ToolError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// The contract's error codes, plus the proof failure code.
const (
	CodeValidation        = "validation_error"
	CodeConfirmRequired   = "confirm_required"
	CodeScopeDenied       = "scope_denied"
	CodePlanGate          = "plan_gate"
	CodeRateLimit         = "rate_limit"
	CodeProjectResolution = "project_resolution_error"
	CodeToolError         = "tool_error"
	CodePipelineBlocked   = "pipeline_blocked"
	CodeSaveFailed        = "save_failed"
	CodeHTTPError         = "http_error"
	CodeNotFound          = "not_found"
	CodeProofFailed       = "proof_failed"
)

// Client-side codes of responses vq makes itself; they are not contract
// codes, and no server's answer carries one (Reserved). CodeUnauthorized
// answers HTTP 401 or a missing credential; CodeTimeout a watch that ran
// past its --wait-timeout, or a call that waited for its turn past its
// --timeout (TurnTimeoutError); CodeServerConfig a stdio server that cannot
// start; CodeOutputSchema a tool's answer that breaks the outputSchema the
// server lists for it; CodeJobFailed and CodeJobCancelled a job that ended
// so although its answer said ok; CodeNoVerdict an answer whose verdict vq
// cannot read; CodeMaybeApplied a call that may have changed something and
// got no answer vq can read after it was sent.
const (
	CodeUnauthorized = "unauthorized"
	CodeTimeout      = "timeout"
	CodeServerConfig = "server_config"
	CodeOutputSchema = "output_schema"
	CodeJobFailed    = "job_failed"
	CodeJobCancelled = "job_cancelled"
	CodeNoVerdict    = "no_verdict"
	CodeMaybeApplied = "maybe_applied"
)

// ErrorCode is the error code of a failed response, "" for a success.
func (r *ToolResponse) ErrorCode() string {
	if r == nil || r.OK {
		return ""
	}
	if r.Error == nil || r.Error.Code == "" {
		return CodeToolError
	}
	return r.Error.Code
}

// ErrorMessage is the human explanation of a failure, falling back to the
// summary when the server gave no message.
func (r *ToolResponse) ErrorMessage() string {
	if r.Error != nil && r.Error.Message != "" {
		return r.Error.Message
	}
	return r.Summary
}

// IsRecoverable reports the contract's recoverable flag; a missing flag
// counts as not recoverable, the answer that never invites a useless retry.
func (r *ToolResponse) IsRecoverable() bool {
	return r.Recoverable != nil && *r.Recoverable
}

// Raw is the body the server sent, or nil for a client-made or derived
// response.
func (r *ToolResponse) Raw() []byte { return r.raw }

// derive is the one way to make a response from another: a copy that
// keeps everything the answer said and leaves behind what described its
// bytes, the server's body and the data index. The error is copied, so
// changing the copy's leaves r's as it was.
func (r *ToolResponse) derive() *ToolResponse {
	out := *r
	out.raw, out.data = nil, nil
	if r.Error != nil {
		e := *r.Error
		out.Error = &e
	}
	return &out
}

// WithData is r with other data: what vq made of the answer (a run read as
// a job status), which --json then prints instead of the server's bytes.
func (r *ToolResponse) WithData(data json.RawMessage) *ToolResponse {
	out := r.derive()
	out.Data, out.content = data, nil
	return out
}

// WithNextActions is r with other next actions: those of the server's
// that vq passes on (vq mcp serve leaves out what an agent must not be
// handed).
func (r *ToolResponse) WithNextActions(actions []NextAction) *ToolResponse {
	out := r.derive()
	out.NextActions = actions
	return out
}

// WithErrorMessage is the failure r with the message msg, for a caller that
// adds what to do about it. A summary that only repeated the message
// repeats the new one, so no rendering shows the old one beside it.
func (r *ToolResponse) WithErrorMessage(msg string) *ToolResponse {
	out := r.derive()
	if out.Summary == r.ErrorMessage() {
		out.Summary = msg
	}
	if out.Error == nil {
		out.Error = &ToolError{Code: r.ErrorCode()}
	}
	out.Error.Message = msg
	return out
}

// WithOrigin is r with where it came from (the server a call went to and
// the credential it carried), which its error line shows after the
// message. Unlike WithErrorMessage it keeps the server's bytes: the
// document --json prints is the answer as it was, the origin is the
// client's to tell.
func (r *ToolResponse) WithOrigin(origin string) *ToolResponse {
	out := *r
	out.origin = origin
	return &out
}

// Origin is what WithOrigin set, "" when nothing did.
func (r *ToolResponse) Origin() string { return r.origin }

// NotRepeatable is the failure r marked as one the contract's retry must
// not send again, although it would retry its code: the tool may have
// changed something before it failed, or would only refuse the same way.
func (r *ToolResponse) NotRepeatable() *ToolResponse {
	out := r.derive()
	out.repeatUnsafe = true
	return out
}

// NotSent is the client-made failure r marked as one whose request never
// reached the server, so that it may go again whatever the tool.
func (r *ToolResponse) NotSent() *ToolResponse {
	out := r.derive()
	out.notSent, out.unanswered = true, false
	return out
}

// Unanswered is the client-made failure r marked as one whose request may
// have reached the server with no answer vq can read: a call that may
// change something is then never sent again (MayHaveBeenApplied).
func (r *ToolResponse) Unanswered() *ToolResponse {
	out := r.derive()
	out.unanswered, out.notSent = true, false
	return out
}

// CredentialMissing reports the client-made failure of a call that was
// never sent because no credential is configured (MissingCredential).
func (r *ToolResponse) CredentialMissing() bool { return r.cause == causeNoCredential }

// CredentialRefused reports the client-made failure of a call the server
// answered with HTTP 401. resourceMetadata is the protected-resource
// metadata its challenge named, where the server offers an OAuth sign-in,
// or "".
func (r *ToolResponse) CredentialRefused() (resourceMetadata string, refused bool) {
	return r.resourceMetadata, r.cause == causeCredentialRefused
}

// TimedOut reports the client-made failure of a request that ran past its
// timeout (Options.Timeout) before a complete answer arrived.
func (r *ToolResponse) TimedOut() bool { return r.cause == causeTimedOut }

// NotServed reports the client-made failure of a request whose URL the
// server does not serve (HTTP 404 without a ToolResponse): most often a
// base URL that is not the server's root. url is the address tried.
func (r *ToolResponse) NotServed() (url string, notServed bool) {
	return r.url, r.cause == causeNotServed
}

func boolPtr(b bool) *bool { return &b }

// ClientError makes the ToolResponse the client reports for a failure that
// did not come from a tool: one answer shape, even for a mistake found
// before anything was sent.
func ClientError(tool, code, message string, recoverable bool) *ToolResponse {
	return &ToolResponse{
		OK:          false,
		Tool:        tool,
		Summary:     message,
		Data:        json.RawMessage("null"),
		Warnings:    []string{},
		NextActions: []NextAction{},
		Error:       &ToolError{Code: code, Message: message},
		Recoverable: boolPtr(recoverable),
	}
}

// DecodeToolResponse parses a body as a ToolResponse. It fails for anything
// that is not a JSON object carrying a boolean "ok", so a gateway's HTML or a
// truncated body is never mistaken for an answer. The response keeps raw:
// its Data points into it rather than holding a copy, which for a large
// answer (100k failures, ~8 MB) is most of the memory a call takes.
func DecodeToolResponse(raw []byte) (*ToolResponse, error) {
	top, data, err := indexObject(bytes.NewBuffer(raw), "data")
	if err != nil {
		return nil, fmt.Errorf("not a ToolResponse: %w", err)
	}
	return toolResponseOf(raw, top, data)
}

// toolResponseOf is DecodeToolResponse's second half: the response from
// raw, once raw has been indexed (top) with its data (data, when an object).
func toolResponseOf(raw []byte, index objectIndex, dataIndex *objectIndex) (*ToolResponse, error) {
	top := index.in(raw)
	// Everything but data is small: decode it the ordinary way, numbers kept
	// exact so next actions go back to the server as sent. data stays a view
	// into raw, indexed once for the questions asked of it later.
	var probe struct {
		OK *bool `json:"ok"`
		ToolResponse
	}
	dec := json.NewDecoder(bytes.NewReader(top.without("data")))
	dec.UseNumber()
	if err := dec.Decode(&probe); err != nil {
		return nil, fmt.Errorf("not a ToolResponse: %w", err)
	}
	switch {
	case probe.OK == nil:
		return nil, errors.New(`not a ToolResponse: no boolean "ok"`)
	case top.repeated("ok"):
		// Which one a decoder keeps is its choice: the answer has none.
		return nil, errors.New(`not a ToolResponse: "ok" given twice`)
	case *probe.OK && probe.Error != nil:
		return nil, errors.New(`not a ToolResponse: "ok": true with an error`)
	}
	resp := &probe.ToolResponse
	resp.OK = *probe.OK
	resp.raw = raw
	resp.Data = top.get("data")
	if len(resp.Data) == 0 {
		resp.Data = json.RawMessage("null")
	}
	if dataIndex != nil {
		data := dataIndex.in(raw)
		resp.data = &data
	}
	if resp.Warnings == nil {
		resp.Warnings = []string{}
	}
	if resp.NextActions == nil {
		resp.NextActions = []NextAction{}
	}
	return resp.fromServer(), nil
}
