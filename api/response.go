package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/visualq/vq/internal/layout"
)

// ToolResponse is the invoke contract's answer plus what vq learnt reading it;
// Data stays raw (--json prints the server's bytes). Derive copies via With*.
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

	// Raw (server body) and Members (Data's index) are nil once derived.
	Raw     []byte          `json:"-"`
	Members *layout.Members `json:"-"`
	Failure Failure         `json:"-"`
	// Readiness: the readiness lock's refusal; Job/Token: work to follow.
	Readiness *Readiness `json:"-"`
	Job       string     `json:"-"`
	Token     string     `json:"-"`
	// Content is a general MCP server's result; nil otherwise.
	Content *Content `json:"-"`
}

// Failure is what vq knows of a failed call beyond the answer's words, for
// the retry policy and the hint; the zero value knows nothing more.
type Failure struct {
	// NotSent: provably never reached the server, so any tool may go again.
	// Unanswered: may have reached it; a changing call is not resent.
	NotSent, Unanswered bool
	// Transient: retried once per contract, unless RepeatUnsafe (the tool may
	// have changed something, or would refuse the same way).
	Transient, RepeatUnsafe bool
	TimedOut                bool
	NoCredential            bool
	// CredentialRefused: HTTP 401; ResourceMetadata is its sign-in pointer.
	CredentialRefused bool
	ResourceMetadata  string
	// ScopeDenied: HTTP 403 insufficient_scope for Scope.
	ScopeDenied bool
	Scope       string
	// NotServed is the URL of a 404 without a ToolResponse (a wrong base URL).
	NotServed string
	// Origin (server and credential) follows a refusal's message; not in --json.
	Origin string
}

// NextAction is a suggested follow-up call, sent back exactly as described.
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

// Client-side codes of responses vq makes itself; no server answer may carry
// one (Reserved).
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

// ErrorMessage is a failure's message, else its summary.
func (r *ToolResponse) ErrorMessage() string {
	if r.Error != nil && r.Error.Message != "" {
		return r.Error.Message
	}
	return r.Summary
}

// ShowsSummary reports whether r's summary adds to its error message.
func (r *ToolResponse) ShowsSummary() bool {
	return r.Summary != "" && (r.OK || r.Summary != r.ErrorMessage())
}

// IsRecoverable is the contract's flag; missing means no (no useless retry).
func (r *ToolResponse) IsRecoverable() bool {
	return r.Recoverable != nil && *r.Recoverable
}

// derive copies r without Raw and Members (they describe the old bytes), with
// its own Error.
func (r *ToolResponse) derive() *ToolResponse {
	out := *r
	out.Raw, out.Members = nil, nil
	if r.Error != nil {
		e := *r.Error
		out.Error = &e
	}
	return &out
}

// WithData is r with data vq made, which --json prints instead of the server's.
func (r *ToolResponse) WithData(data json.RawMessage) *ToolResponse {
	out := r.derive()
	out.Data, out.Content = data, nil
	return out
}

// WithNextActions is r with the next actions vq passes on.
func (r *ToolResponse) WithNextActions(actions []NextAction) *ToolResponse {
	out := r.derive()
	out.NextActions = actions
	return out
}

// WithErrorMessage is failure r with message msg; a summary that repeated the
// old message repeats msg.
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

// ClientError is a failure vq reports itself, in the one answer shape.
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

// DecodeToolResponse parses a JSON object with a boolean "ok" (so HTML or a
// truncated body is no answer); Data points into raw, not a copy (~8 MB saved).
func DecodeToolResponse(raw []byte) (*ToolResponse, error) {
	top, data, err := indexObject(bytes.NewBuffer(raw), "data")
	if err != nil {
		return nil, fmt.Errorf("not a ToolResponse: %w", err)
	}
	return toolResponseOf(raw, top, data)
}

// toolResponseOf builds the response from raw once indexed.
func toolResponseOf(raw []byte, index objectIndex, dataIndex *objectIndex) (*ToolResponse, error) {
	top := index.in(raw)
	// All but data is small; UseNumber so next actions go back as sent.
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
