package api

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"

	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/layout"
)

// CI tools answer plain JSON at POST {base}/api/ci/{tool}; CallCI wraps it.

// CI run statuses of get_run_status.
const (
	RunQueued    = "queued"
	RunRunning   = "running"
	RunPassed    = "passed"
	RunFailed    = "failed"
	RunError     = "error"
	RunCancelled = "cancelled"
)

// ParseCIRun reads an ok CI answer's data as a run (layout.RunOf).
func ParseCIRun(r *ToolResponse) (*layout.Checks, bool) {
	if r == nil || !r.OK {
		return nil, false
	}
	return layout.RunOf(r.Data)
}

// RunFailure fails a run that did not pass under its exit's code, data kept.
func RunFailure(r *ToolResponse, run *layout.Checks) *ToolResponse {
	return r.failedAs(exitcode.CodeOf(run.Verdict()), run.Summary())
}

// RunTimeout is a run's watch past its deadline as a recoverable timeout.
func RunTimeout(e *WatchTimeoutError) *ToolResponse {
	msg := fmt.Sprintf("run %s has no verdict yet after %s; it may still finish", e.JobID, e.Timeout)
	return ClientError(ToolRunStatus, CodeTimeout, msg, true)
}

// RunAsJob reads a get_run_status answer as a job status (verdict in the
// progress message) so Watch drives runs; no run keeps data null.
func RunAsJob(r *ToolResponse) *ToolResponse {
	run, ok := ParseCIRun(r)
	if !ok {
		return r.WithData(json.RawMessage("null"))
	}
	job := JobStatus{JobID: run.RunID, Status: run.Status}
	if run.HasRan {
		job.Progress = &JobProgress{Current: float64(run.Ran), Total: float64(run.RanOf)}
	}
	verdict := ""
	switch run.Status {
	case RunPassed:
		job.Status, verdict = JobCompleted, "passed"
	case RunError:
		job.Status, verdict = JobFailed, "error"
	case RunFailed:
		if run.Failed > 0 {
			verdict = run.Sentence("", "changed") // "3 of 12 checks changed", as the run's reports say it
		}
	}
	if verdict != "" {
		job.Progress = cmp.Or(job.Progress, &JobProgress{})
		job.Progress.Message = verdict
	}
	data, _ := json.Marshal(job) // strings and numbers: it always encodes
	return r.WithData(data)
}

type idempotencyKey struct{}

// WithIdempotencyKey has the requests made with ctx carry key as their
// Idempotency-Key (the IETF httpapi draft's field); key is printable ASCII.
func WithIdempotencyKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, idempotencyKey{}, key)
}

// StartKey is the Idempotency-Key of a CI start: a hash of the tool, its
// body (arguments, project, environment) and the CI job's identifiers, so
// the same start sent again from the same job is one start; random when
// job is empty (outside CI).
func (c *Client) StartKey(tool string, args map[string]any, job []string) string {
	if len(job) == 0 {
		return rand.Text()
	}
	canonical, _ := json.Marshal([]any{tool, c.ciBody(args), job}) // decoded JSON always encodes; maps in key order
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:])
}

// CIURL is the CI endpoint of one tool.
func (c *Client) CIURL(tool string) string {
	return c.opts.BaseURL + CIPath + url.PathEscape(tool)
}

// CallCI calls a CI tool with the retry policy (err only when ctx ended).
func (c *Client) CallCI(ctx context.Context, tool string, args map[string]any) (*ToolResponse, error) {
	body := c.ciBody(args)
	call := Call{Tool: tool, Args: args}
	return c.retry(ctx, call, func() bool { return ReadOnlyTool(tool, false) }, func() *ToolResponse { return c.ciAttempt(ctx, tool, body) })
}

// CallCIOnce is one attempt of CallCI, for a watch.
func (c *Client) CallCIOnce(ctx context.Context, tool string, args map[string]any) (*ToolResponse, error) {
	resp := c.ciAttempt(ctx, tool, c.ciBody(args))
	return resp, ctx.Err()
}

func (c *Client) ciAttempt(ctx context.Context, tool string, body map[string]any) *ToolResponse {
	url := c.CIURL(tool)
	status, header, raw, err := c.post(ctx, url, body, nil)
	if err != nil {
		return TransportFailure(tool, url, status, err)
	}
	return ciResponse(tool, url, status, header, raw)
}

// ciBody is args plus the configured project and environment they lack.
func (c *Client) ciBody(args map[string]any) map[string]any {
	body := cloneArgs(args)
	for key, value := range map[string]string{"project": c.opts.Project, "environment": c.opts.Environment} {
		if _, set := body[key]; !set && value != "" {
			body[key] = value
		}
	}
	return body
}

type ciErrorBody struct {
	Error *struct {
		Code         string `json:"code"`
		Message      string `json:"message"`
		Recoverable  *bool  `json:"recoverable"`
		RetryAfterMs int64  `json:"retryAfterMs"`
	} `json:"error"`
	Recoverable  *bool `json:"recoverable"`
	RetryAfterMs int64 `json:"retryAfterMs"`
}

func ciResponse(tool, url string, status int, header http.Header, raw []byte) *ToolResponse {
	if status == http.StatusUnauthorized {
		return Unauthorized(tool, header.Get("WWW-Authenticate"))
	}
	doc, isJSON := jsonDocument(raw)
	if !isJSON {
		return notAToolResponse(tool, url, status, header, raw)
	}
	if status >= 200 && status < 300 {
		r := &ToolResponse{OK: true, Tool: tool, Summary: tool + " answered", Data: doc, Warnings: []string{}, NextActions: []NextAction{}}
		if run, ok := ParseCIRun(r); ok {
			r.Summary = run.Summary()
		}
		return r
	}
	return ciFailure(tool, status, header, raw, doc)
}

// ciFailure is a CI answer of an error status, doc its JSON.
func ciFailure(tool string, status int, header http.Header, raw []byte, doc json.RawMessage) *ToolResponse {
	var body ciErrorBody
	_ = json.Unmarshal(doc, &body) // any JSON is a valid error body; fields are optional
	code, message, recoverable, retryAfterMs := "", "", body.Recoverable, body.RetryAfterMs
	if e := body.Error; e != nil {
		code, message = serversCode(e.Code, e.Message)
		recoverable = cmp.Or(e.Recoverable, recoverable)
		retryAfterMs = max(e.RetryAfterMs, retryAfterMs)
	}
	code = ciCode(status, code)
	if message == "" || code == CodeHTTPError {
		message = httpErrorMessage(status, raw)
	}
	if recoverable == nil {
		recoverable = new(code == CodeRateLimit || code == CodeHTTPError || code == CodeValidation)
	}
	r := ClientError(tool, code, message, *recoverable)
	r.Failure = Failure{Transient: status >= 500, Unanswered: status >= 500}
	r.RetryAfterMs = retryAfterMs
	if r.RetryAfterMs == 0 && code == CodeRateLimit {
		r.RetryAfterMs = retryAfterHeader(header.Get("Retry-After"))
	}
	return r
}

func ciCode(status int, code string) string {
	switch {
	case status == http.StatusTooManyRequests:
		return CodeRateLimit
	case status >= 500:
		// Whatever its code, a 5xx is the unexpected failure retried once.
		return CodeHTTPError
	case code == "" && status == http.StatusNotFound:
		return CodeNotFound
	case code == "":
		return CodeHTTPError
	}
	return code
}

// jsonDocument returns raw, trimmed, when it is exactly one JSON document.
func jsonDocument(raw []byte) (json.RawMessage, bool) {
	doc := bytes.TrimSpace(raw)
	if len(doc) == 0 || !json.Valid(doc) {
		return nil, false
	}
	return json.RawMessage(doc), true
}

// WithFailures adds get_run_failures' answer to failed run r.
func (r *ToolResponse) WithFailures(failures *ToolResponse) *ToolResponse {
	var members map[string]json.RawMessage
	var listed struct {
		Failures json.RawMessage `json:"failures"`
	}
	if json.Unmarshal(r.Data, &members) != nil || members["failures"] != nil ||
		json.Unmarshal(failures.Data, &listed) != nil || listed.Failures == nil {
		return r
	}
	// Appended to the run's own bytes, so its members keep their order.
	object := bytes.TrimSpace(r.Data)
	merged := append(slices.Clip(object[:len(object)-1]), ',')
	if len(members) == 0 {
		merged = merged[:len(merged)-1]
	}
	merged = append(append(append(merged, `"failures":`...), listed.Failures...), '}')
	out := r.WithData(merged)
	out.Warnings = append(slices.Clone(r.Warnings), failures.Warnings...)
	out.NextActions = failures.NextActions
	return out
}
