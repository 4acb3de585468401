package api

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/layout"
)

// Verdicts: vq exits 0 only on an explicit pass; what vq cannot read is none.

// Contradicted is an answer saying ok over a failed transport: unanswered,
// transient.
func Contradicted(tool, transport string, transient bool) *ToolResponse {
	r := ClientError(tool, CodeHTTPError, transport+" carrying an answer that says ok: the two disagree, so it is no success", true)
	r.Failure = Failure{Transient: transient, Unanswered: true}
	return r
}

// fromServer keeps a server's code unless it is vq's own (exitcode.Reserved).
func (r *ToolResponse) fromServer() *ToolResponse {
	if r.OK || r.Error == nil || !exitcode.Reserved(r.Error.Code) {
		return r
	}
	code, msg := serversCode(r.Error.Code, r.ErrorMessage())
	out := r.derive()
	if out.Summary == r.ErrorMessage() {
		out.Summary = msg
	}
	out.Error = &ToolError{Code: code, Message: msg}
	return out
}

// serversCode reads a vq-only code as tool_error, the code kept in the message.
func serversCode(code, message string) (string, string) {
	if !exitcode.Reserved(code) {
		return code, message
	}
	return CodeToolError, fmt.Sprintf("%s (the server's error code %q is one only vq gives: read as %s)", message, code, CodeToolError)
}

// ClaimsToolResponse reports an object with ok and tool (malformed, not foreign).
func ClaimsToolResponse(doc []byte) bool {
	m, err := splitObject(doc)
	return err == nil && slices.Contains(m.Names, "ok") && slices.Contains(m.Names, "tool")
}

// NoVerdict fails an answer whose verdict vq cannot read, its data kept.
func NoVerdict(r *ToolResponse, why string) *ToolResponse {
	out := r.derive()
	out.OK, out.Summary = false, why
	out.Error, out.Recoverable = &ToolError{Code: CodeNoVerdict, Message: why}, boolPtr(false)
	return out
}

var (
	jobStatuses = []string{JobQueued, JobRunning, JobCompleted, JobFailed, JobCancelled}
	runStatuses = []string{RunQueued, RunRunning, RunPassed, RunFailed, RunError, RunCancelled}
)

func unknownStatus(r *ToolResponse, what, status string, known []string) *ToolResponse {
	return NoVerdict(r, fmt.Sprintf("%s answered status %q, which is none of %s", what, status, strings.Join(known, ", ")))
}

// JobVerdict reads a job's answer: ok only with a documented status that
// is not failed or cancelled.
func JobVerdict(r *ToolResponse) *ToolResponse {
	if !r.OK {
		return r
	}
	data, _ := r.dataMembers()
	if data.repeated("status") {
		return NoVerdict(r, "the job status answer gives its status twice")
	}
	s, isStatus := ParseJobStatus(r)
	switch {
	case !isStatus:
		return NoVerdict(r, "the job status answer carries no status")
	case !slices.Contains(jobStatuses, s.Status):
		return unknownStatus(r, "job "+s.JobID, s.Status, jobStatuses)
	case s.Status == JobFailed:
		return r.failedAs(CodeJobFailed, "job "+s.JobID+" failed")
	case s.Status == JobCancelled:
		return r.failedAs(CodeJobCancelled, "job "+s.JobID+" was cancelled")
	}
	return r
}

// failedAs is r, an ok answer whose content says it failed, as a failure.
func (r *ToolResponse) failedAs(code, msg string) *ToolResponse {
	out := r.derive()
	out.OK = false
	out.Error, out.Recoverable = &ToolError{Code: code, Message: msg}, boolPtr(false)
	return out
}

// StartVerdict reads a registry async tool's first answer: ok only when it
// started followable work or already ended well.
func StartVerdict(call Call, r *ToolResponse) *ToolResponse {
	if t, ok := LookupTool(call.Tool); !ok || !t.Async || !r.OK {
		return r
	}
	_, job := AcceptedJob(r)
	if _, token := ParseLongRunning(r); job || token {
		return r
	}
	if _, isStatus := ParseJobStatus(r); !isStatus && call.Tool == ToolProve {
		return ProofVerdict(r)
	}
	return WorkVerdict(call.Tool, JobVerdict(r))
}

// WorkVerdict reads the answer that ends the work a call of tool started.
func WorkVerdict(tool string, r *ToolResponse) *ToolResponse {
	if tool == ToolProve {
		return ProofVerdict(r)
	}
	return r
}

// ProofVerdict: ok only with proofVerdict "proven"; "failed" is proof_failed.
func ProofVerdict(r *ToolResponse) *ToolResponse {
	if !r.OK {
		return r
	}
	raw := r.Data
	if result := layout.Member(r.Data, r.Members, "result"); len(result) > 0 {
		raw = result
	}
	var proof struct {
		Verdict *string `json:"proofVerdict"`
	}
	_ = json.Unmarshal(raw, &proof) // no object: no verdict
	switch {
	case proof.Verdict == nil:
		return NoVerdict(r, "the proof answer carries no proofVerdict")
	case *proof.Verdict == "proven":
		return r
	case *proof.Verdict == "failed":
		return r.failedAs(CodeProofFailed, "the proof failed (its answer said ok)")
	}
	return NoVerdict(r, fmt.Sprintf("the proof answer's proofVerdict %q is neither proven nor failed", *proof.Verdict))
}

// RunVerdict: ok only with one runId, a documented status, agreeing counts.
func RunVerdict(r *ToolResponse) *ToolResponse {
	if !r.OK {
		return r
	}
	m, err := splitObject(r.Data)
	var id struct{ RunID, Status string }
	switch {
	case err != nil:
		return NoVerdict(r, "the run's answer is no JSON object")
	case m.repeated("status"):
		return NoVerdict(r, "the run's answer gives its status twice")
	case m.repeated("runId"):
		return NoVerdict(r, "the run's answer gives its runId twice")
	case m.decodeFields(&id, "runId", "status") != nil:
		return NoVerdict(r, "the run's answer is no run (runId and status are strings)")
	case id.RunID == "":
		return NoVerdict(r, "the run's answer names no runId")
	case id.Status == "":
		return NoVerdict(r, "run "+id.RunID+" has no status in its answer")
	case !slices.Contains(runStatuses, id.Status):
		return unknownStatus(r, "run "+id.RunID, id.Status, runStatuses)
	}
	if run, ok := ParseCIRun(r); !ok {
		return NoVerdict(r, "run "+id.RunID+" has no verdict vq can read: "+run.Unreadable)
	}
	return r
}

// repeated reports a member given more than once: a verdict given twice is none.
func (m members) repeated(name string) bool {
	n := 0
	for _, have := range m.Names {
		if have == name {
			n++
		}
	}
	return n > 1
}
