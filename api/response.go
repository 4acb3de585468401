package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/visualq/vq/internal/layout"
)

// ToolResponse is the one shape every VisualQ tool answers with (the
// contract of the invoke endpoint), plus what vq learnt as it read the
// answer, in fields of its own that no document shows. Data stays raw so
// that a script asking for --json gets the server's own bytes and large
// answers are decoded only by the renderer that needs them.
//
// A response made from another with other data or words comes from
// WithData, WithNextActions or WithErrorMessage, which leave Raw and
// Members behind: assigning Data of a response read from a server would
// leave both describing the old data.
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

	// Raw is the server's body when the response was read from a server as
	// it stands; nil when the client made or derived the response.
	Raw []byte `json:"-"`
	// Members are Data's top-level members when Data is an object read
	// from a server, found in the same pass as the read; nil otherwise.
	Members *layout.Members `json:"-"`
	// Failure is what vq knows of how the call failed beyond the answer's
	// words.
	Failure Failure `json:"-"`
	// Readiness is set on the readiness lock's refusal (ReadinessLock),
	// and Job and Token on an answer that started work vq can follow (a
	// job, MCP token work: FollowUp): all three read by Invoke.
	Readiness *Readiness `json:"-"`
	Job       string     `json:"-"`
	Token     string     `json:"-"`
	// Content is the result of a general MCP server, block by block; nil
	// for any other answer (a ToolResponse, a client-made failure, data vq
	// derived).
	Content *Content `json:"-"`
}

// Failure is what vq knows of a failed call beyond the answer's words: for
// the retry policy, and to say what the user can do. The zero value
// knows nothing more.
type Failure struct {
	// NotSent: the request provably never reached the server (refused,
	// DNS, TLS, no session, no credential): it may go again whatever the
	// tool. Unanswered: it may have reached it, with no answer vq can read
	// of what became of it (a cut, a 5xx, an unreadable answer): a call
	// that may change something is not sent again (MayHaveBeenApplied).
	NotSent, Unanswered bool
	// Transient: it may pass on its own (5xx, a cut connection), the class
	// the contract retries once. RepeatUnsafe: the tool may have changed
	// something before failing, or would only refuse the same way: it is
	// not sent twice although the contract would retry its code.
	Transient, RepeatUnsafe bool
	// TimedOut: the request ran past its timeout (Options.Timeout).
	TimedOut bool
	// NoCredential: nothing was sent, as no credential is configured.
	NoCredential bool
	// CredentialRefused: HTTP 401, whose challenge named ResourceMetadata
	// (protected-resource metadata) where the server offers a sign-in.
	CredentialRefused bool
	ResourceMetadata  string
	// ScopeDenied: HTTP 403 insufficient_scope, asking for Scope ("" when
	// it named none).
	ScopeDenied bool
	Scope       string
	// NotServed is the URL of an HTTP 404 that carried no ToolResponse:
	// most often a base URL that is not the server's root.
	NotServed string
	// Origin is where a refusal came from (the server a call went to and
	// the credential it carried), which its error line shows after the
	// message; the document --json prints leaves it out.
	Origin string
}

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

// ShowsSummary reports whether a rendering of r shows its summary line:
// not when it only repeats the error message shown with the error.
func (r *ToolResponse) ShowsSummary() bool {
	return r.Summary != "" && (r.OK || r.Summary != r.ErrorMessage())
}

// IsRecoverable reports the contract's recoverable flag; a missing flag
// counts as not recoverable, the answer that never invites a useless retry.
func (r *ToolResponse) IsRecoverable() bool {
	return r.Recoverable != nil && *r.Recoverable
}

// derive is the one way to make a response from another: a copy that
// keeps everything the answer said and leaves behind what described its
// bytes, the server's body and the data index. The error is copied, so
// changing the copy's leaves r's as it was.
func (r *ToolResponse) derive() *ToolResponse {
	out := *r
	out.Raw, out.Members = nil, nil
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
	out.Data, out.Content = data, nil
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
	resp.Raw = raw
	resp.Data = top.get("data")
	if len(resp.Data) == 0 {
		resp.Data = json.RawMessage("null")
	}
	if dataIndex != nil {
		data := layout.Members(dataIndex.in(raw))
		resp.Members = &data
	}
	if resp.Warnings == nil {
		resp.Warnings = []string{}
	}
	if resp.NextActions == nil {
		resp.NextActions = []NextAction{}
	}
	return resp.fromServer(), nil
}
