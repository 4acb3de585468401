package testkit

import (
	"bytes"
	"encoding/json"
)

// The contract's names that the builders and the fakes rely on. api's
// tests check they match api's constants.
const (
	ToolJobStatus = "get_job_status"
	CodeNotFound  = "not_found"
	CodeRateLimit = "rate_limit"
	JobCompleted  = "completed"
)

// response is a ToolResponse being built: its top-level fields in the
// order written.
type response struct {
	keys []string
	vals map[string]any
}

func (r *response) set(key string, v any) {
	if _, ok := r.vals[key]; !ok {
		r.keys = append(r.keys, key)
	}
	r.vals[key] = v
}

// String is the document, fields in the contract's order. A value given as
// json.RawMessage is written as it is, unchecked, so a test can send what
// no encoder would.
func (r *response) String() string {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range r.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(k)
		b.Write(key)
		b.WriteByte(':')
		if raw, ok := r.vals[k].(json.RawMessage); ok {
			b.Write(raw)
			continue
		}
		v, err := json.Marshal(r.vals[k])
		if err != nil {
			panic("testkit: " + err.Error())
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.String()
}

// Option changes a ToolResponse being built.
type Option func(*response)

func build(ok bool, tool, summary string, data any, opts []Option) string {
	r := &response{vals: map[string]any{}}
	r.set("ok", ok)
	r.set("tool", tool)
	r.set("summary", summary)
	r.set("data", data)
	r.set("warnings", []string{})
	r.set("nextActions", []any{})
	for _, o := range opts {
		o(r)
	}
	return r.String()
}

// OK is a successful ToolResponse with empty warnings and next actions.
func OK(tool, summary string, data any, opts ...Option) string {
	return build(true, tool, summary, data, opts)
}

// Failure is a failed ToolResponse: no data, the error's code and message,
// and the message as its summary.
func Failure(tool, code, message string, recoverable bool, opts ...Option) string {
	return build(false, tool, message, nil, append([]Option{Failed(code, message, recoverable)}, opts...))
}

// RateLimit is the rate_limit refusal, recoverable, asking to wait
// retryAfterMs milliseconds.
func RateLimit(tool, message string, retryAfterMs int, opts ...Option) string {
	return Failure(tool, CodeRateLimit, message, true, append([]Option{Set("retryAfterMs", retryAfterMs)}, opts...)...)
}

// Queued is the answer of an asynchronous tool that queued job id.
func Queued(tool, id string, opts ...Option) string {
	return OK(tool, "Job "+id+" queued.", map[string]any{"jobId": id, "status": "queued"}, opts...)
}

// JobStatus is get_job_status's answer for job id in status, with its
// progress (current of total, and message) when total > 0. A completed job
// has the result {"checked": total} unless Result says otherwise.
func JobStatus(id, status string, current, total int, message string, opts ...Option) string {
	data := map[string]any{"jobId": id, "status": status}
	if total > 0 {
		data["progress"] = map[string]any{"current": current, "total": total, "message": message}
	}
	if status == JobCompleted {
		data["result"] = map[string]any{"checked": total}
	}
	return OK(ToolJobStatus, "Job "+id+" "+status+".", data, opts...)
}

// Set sets a top-level field (one the contract may not have).
func Set(key string, v any) Option { return func(r *response) { r.set(key, v) } }

// Summary replaces the summary.
func Summary(s string) Option { return Set("summary", s) }

// Warnings sets the warnings.
func Warnings(w ...string) Option {
	return func(r *response) { r.set("warnings", append([]string{}, w...)) }
}

// NextActions sets the next actions: any values that encode as
// {label, tool, args} (api.NextAction, maps).
func NextActions[A any](actions ...A) Option {
	return func(r *response) { r.set("nextActions", append([]A{}, actions...)) }
}

// Failed makes the response a failure with this error, keeping its data.
func Failed(code, message string, recoverable bool) Option {
	return func(r *response) {
		r.set("ok", false)
		r.set("error", map[string]string{"code": code, "message": message})
		r.set("recoverable", recoverable)
	}
}

// Result sets data.result, when the data is an object built here.
func Result(v any) Option {
	return func(r *response) {
		if data, ok := r.vals["data"].(map[string]any); ok {
			data["result"] = v
		}
	}
}
