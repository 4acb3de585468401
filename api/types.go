package api

import (
	"encoding/json"
)

// ToolResponse is the one shape every VisualQ tool answers with
// (seeds/response-contract.txt). Data stays raw so that a script asking for
// --json gets the server's own bytes and large answers are decoded only by
// the renderer that needs them.
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

	// raw is the server's body when the response came from a server; nil when
	// the client made the response (http_error, unauthorized).
	raw []byte
	// transient marks client-made failures that may pass on their own
	// (5xx, a cut connection): the class the contract retries once.
	transient bool
	// data indexes Data's top-level members when Data is an object that
	// came from a server (see dataMembers).
	data *members
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

// Contract error codes (seed table) plus the proof failure code.
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
// codes. CodeUnauthorized answers HTTP 401 or a missing credential;
// CodeTimeout a watch that ran past its --timeout.
const (
	CodeUnauthorized = "unauthorized"
	CodeTimeout      = "timeout"
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

// Raw is the body the server sent, or nil for a client-made response.
func (r *ToolResponse) Raw() []byte { return r.raw }

// Call is one tool invocation: exactly the body POSTed to the invoke
// endpoint, minus project and environment which the client adds.
type Call struct {
	Tool string         `json:"tool"`
	Args map[string]any `json:"args"`
}

// Call turns a suggested action into the request it describes.
func (a NextAction) Call() Call {
	return Call{Tool: a.Tool, Args: cloneArgs(a.Args)}
}

// WithConfirm returns the call with confirm: true, the consent a write tool
// needs. The original is left untouched.
func (c Call) WithConfirm() Call {
	args := cloneArgs(c.Args)
	args[ArgConfirm] = true
	return Call{Tool: c.Tool, Args: args}
}

func cloneArgs(in map[string]any) map[string]any {
	out := make(map[string]any, len(in)+1)
	for k, v := range in {
		out[k] = v
	}
	return out
}

func boolPtr(b bool) *bool { return &b }

// clientError makes the ToolResponse the client reports for a failure that
// did not come from a tool.
func clientError(tool, code, message string, recoverable bool) *ToolResponse {
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
