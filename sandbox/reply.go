package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/visualq/vq/api"
)

// reply is an encoded answer, ready to write. Handlers return replies rather
// than ToolResponses so that a large answer can be encoded once and served
// from a cache.
type reply struct {
	status int
	body   []byte
	header http.Header
}

func (rp reply) write(w http.ResponseWriter) {
	for name, values := range rp.header {
		w.Header()[name] = values
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(rp.body)))
	w.WriteHeader(rp.status)
	w.Write(rp.body) //nolint:errcheck // the client went away; nothing to do.
}

// refusal is a tool's deliberate "no": a contract error code and a message
// that says what would have made the call valid.
type refusal struct {
	code        string
	message     string
	recoverable bool
}

func (r *refusal) Error() string { return r.message }

// recoverableCodes says, per code, whether the same tool may succeed with
// other arguments (the contract's recoverable flag). A key's scope or plan
// and an unknown tool do not change with arguments.
var recoverableCodes = map[string]bool{
	api.CodeValidation:        true,
	api.CodeConfirmRequired:   true,
	api.CodeRateLimit:         true,
	api.CodeProjectResolution: true,
	api.CodeToolError:         true,
	api.CodePipelineBlocked:   true,
	api.CodeSaveFailed:        true,
	api.CodeProofFailed:       true,
	api.CodeScopeDenied:       false,
	api.CodePlanGate:          false,
	api.CodeNotFound:          false,
}

func refuse(code, format string, a ...any) *refusal {
	return &refusal{code: code, message: fmt.Sprintf(format, a...), recoverable: recoverableCodes[code]}
}

// statusFor is the contract's HTTP status mapping (docs/contract.md).
func statusFor(code string) int {
	switch code {
	case "":
		return http.StatusOK
	case api.CodeValidation, api.CodeConfirmRequired:
		return http.StatusBadRequest // validation and the confirm gate
	case api.CodeScopeDenied, api.CodePlanGate:
		return http.StatusForbidden
	case api.CodeNotFound:
		return http.StatusNotFound
	case api.CodeRateLimit:
		return http.StatusTooManyRequests
	default:
		return http.StatusUnprocessableEntity
	}
}

// respond encodes a ToolResponse as the invoke endpoint answers it.
func respond(resp *api.ToolResponse) reply {
	fillContract(resp)
	code := ""
	if !resp.OK {
		code = resp.ErrorCode()
	}
	return reply{status: statusFor(code), body: mustEncode(resp)}
}

// fillContract fills a ToolResponse's always-present fields, as both
// endpoints send them: warnings and nextActions are arrays, data is null
// when unset.
func fillContract(resp *api.ToolResponse) {
	if resp.Warnings == nil {
		resp.Warnings = []string{}
	}
	if resp.NextActions == nil {
		resp.NextActions = []api.NextAction{}
	}
	if len(resp.Data) == 0 {
		resp.Data = json.RawMessage("null")
	}
}

// failure answers err as the ToolResponse of tool: a refusal keeps its code,
// anything else is an unexpected tool_error.
func failure(tool string, err error) reply {
	return respond(refusalResponse(tool, err))
}

func refusalResponse(tool string, err error) *api.ToolResponse {
	ref, ok := err.(*refusal)
	if !ok {
		ref = refuse(api.CodeToolError, "%s", err)
	}
	return &api.ToolResponse{
		Tool:        tool,
		Summary:     ref.message,
		Error:       &api.ToolError{Code: ref.code, Message: ref.message},
		Recoverable: &ref.recoverable,
	}
}

// rateLimited is the 429 refusal: retryAfterMs in the body (top level, as
// the contract says) and Retry-After for generic clients.
func rateLimited(tool string, wait time.Duration) reply {
	ref, header := rateLimit(wait)
	resp := refusalResponse(tool, ref)
	resp.RetryAfterMs = wait.Milliseconds()
	rp := respond(resp)
	rp.header = header
	return rp
}

// rateLimit is the limiter's refusal on either endpoint, and its
// Retry-After header in whole seconds.
func rateLimit(wait time.Duration) (*refusal, http.Header) {
	return refuse(api.CodeRateLimit, "rate limit exceeded for this API key: retry in %d ms", wait.Milliseconds()),
		http.Header{"Retry-After": {strconv.Itoa(int(math.Ceil(wait.Seconds())))}}
}

// unauthorized is the transport-level 401: not a ToolResponse, since no tool
// was reached, but a JSON error and the challenge header.
func unauthorized(message string) reply {
	return reply{
		status: http.StatusUnauthorized,
		body:   mustEncode(map[string]any{"error": map[string]string{"code": api.CodeUnauthorized, "message": message}}),
		header: http.Header{"Www-Authenticate": {`Bearer realm="visualq"`}},
	}
}

// encode is json.Marshal without HTML escaping: proof markdown keeps its
// < > & readable in the raw body.
func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// mustEncode encodes values built only from the sandbox's own types; a
// failure is a programming error (e.g. a NaN), not a runtime condition.
func mustEncode(v any) []byte {
	b, err := encode(v)
	if err != nil {
		panic(fmt.Sprintf("sandbox: encoding %T: %v", v, err))
	}
	return b
}
