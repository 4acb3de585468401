package api

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/layout"
)

// CI tools are routed through POST {base}/api/ci/{tool} and answer plain
// JSON, not ToolResponses. CallCI wraps each answer in a ToolResponse so
// that the rest of vq (rendering, exit codes, retries, watching) handles it
// like any other answer.

// CI run statuses of get_run_status.
const (
	RunQueued    = "queued"
	RunRunning   = "running"
	RunPassed    = "passed"
	RunFailed    = "failed"
	RunError     = "error"
	RunCancelled = "cancelled"
)

// ParseCIRun reads a CI answer's data as a run: vq's one verdict type,
// layout.Checks, read from its top level. ok is false when the answer
// failed, or its data is no object with a runId, a status and counts vq
// can read.
func ParseCIRun(r *ToolResponse) (*layout.Checks, bool) {
	if r == nil || !r.OK {
		return nil, false
	}
	return layout.RunOf(r.Data)
}

// RunFailure is the answer r of a run whose verdict is not a pass as the
// contract's pattern makes of it (as of a failed proof): ok:false with
// error.code the code of its exit (run_failed, run_error, run_cancelled)
// and the run's data kept.
func RunFailure(r *ToolResponse, run *layout.Checks) *ToolResponse {
	return r.failedAs(exitcode.CodeOf(run.Verdict()), run.Summary())
}

// RunTimeout is a run's watch past its deadline as the client-made answer
// a script reads (--json): get_run_status, code timeout, recoverable, no
// data, since the run gave no verdict yet.
func RunTimeout(e *WatchTimeoutError) *ToolResponse {
	msg := fmt.Sprintf("run %s has no verdict yet after %s; it may still finish", e.JobID, e.Timeout)
	return ClientError(ToolRunStatus, CodeTimeout, msg, true)
}

// RunAsJob returns a get_run_status answer as Watch reads a job's status, so
// a run is watched with the job policy and display: runId becomes jobId, a
// passed run completed, failed and error runs failed, and the verdict the
// job word does not say ("passed", "error", "3 of 12 checks changed") rides
// in the progress message. An answer that is no run (a failure, other
// JSON) keeps data null, so Watch retries or ends on it as its error code
// says.
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
		if run.Total > 0 {
			verdict = strconv.Itoa(run.Failed) + " of " + strconv.Itoa(run.Total) + " checks changed"
		}
	}
	if verdict != "" {
		job.Progress = cmp.Or(job.Progress, &JobProgress{})
		job.Progress.Message = verdict
	}
	data, _ := json.Marshal(job) // strings and numbers: it always encodes
	return r.WithData(data)
}

// CIURL is the CI endpoint of one tool.
func (c *Client) CIURL(tool string) string {
	return c.opts.BaseURL + CIPath + url.PathEscape(tool)
}

// CallCI calls a CI tool with args as the body (plus project and
// environment when configured and not in args) and always answers with a
// ToolResponse: ok when the server answered 2xx with JSON, data the JSON it
// sent, summary derived from it; a failure's data is null. Failures get the body's error.code where
// the server sent one; 401 is unauthorized, 404 not_found, 429 rate_limit
// (waited and retried), 5xx and non-JSON bodies http_error (5xx retried
// once), exactly as invoke's answers are. The error is non-nil only when ctx
// ended.
func (c *Client) CallCI(ctx context.Context, tool string, args map[string]any) (*ToolResponse, error) {
	body := c.ciBody(args)
	call := Call{Tool: tool, Args: args}
	return c.retry(ctx, call, func() bool { return ReadOnlyTool(tool, false) }, func() *ToolResponse { return c.ciAttempt(ctx, tool, body) })
}

// CallCIOnce is CallCI without the automatic retries, for a watch, which
// has a retry policy of its own (as InvokeOnce).
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

// ciBody is the body of a CI call: args, plus the project and environment
// when configured and not in args.
func (c *Client) ciBody(args map[string]any) map[string]any {
	body := cloneArgs(args)
	for key, value := range map[string]string{"project": c.opts.Project, "environment": c.opts.Environment} {
		if _, set := body[key]; !set && value != "" {
			body[key] = value
		}
	}
	return body
}

// ciErrorBody is the error shape of the CI endpoint, with the contract's
// optional fields read where a server adds them.
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

// ciResponse wraps one complete CI answer.
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

// ciFailure is a CI answer of an error status, doc its JSON: the body's
// error is all it carries, with a code its status decides where the body
// names none (or the status overrides it).
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

// ciCode is the code of a CI failure of status whose body said code ("" for
// none).
func ciCode(status int, code string) string {
	switch {
	case status == http.StatusTooManyRequests:
		return CodeRateLimit
	case status >= 500:
		// Whatever the server calls it, a 5xx is the unexpected failure
		// the contract retries (and a watch outlasts); the message quotes
		// its body.
		return CodeHTTPError
	case code == "" && status == http.StatusNotFound:
		return CodeNotFound
	case code == "":
		return CodeHTTPError
	}
	return code
}

// jsonDocument reports whether raw is exactly one JSON document, and returns
// it without surrounding whitespace.
func jsonDocument(raw []byte) (json.RawMessage, bool) {
	doc := bytes.TrimSpace(raw)
	if len(doc) == 0 || !json.Valid(doc) {
		return nil, false
	}
	return json.RawMessage(doc), true
}

// WithFailures is a failed CI run's answer (r) with the failing checks of
// its get_run_failures answer nested in data.failures, and that answer's
// warnings and next actions: a script reads the same shape whatever the
// verdict, and a person gets the actions that inspect each check.
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
