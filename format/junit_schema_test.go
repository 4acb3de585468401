package format

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/fixture"
	"github.com/visualq/vq/internal/testkit"
)

// Every JUnit report vq writes is valid against the Jenkins schema
// (junit-10.xsd), whatever the verdict and whatever the server wrote: no
// skipped count on <testsuites>, no <properties> in a case.
func TestJUnitIsValidAgainstTheJenkinsSchema(t *testing.T) {
	t.Parallel()
	hundredK, err := api.DecodeToolResponse(fixture.RunFailures(100_000))
	if err != nil {
		t.Fatal(err)
	}
	timeout := api.ClientError(api.ToolRunStatus, api.CodeTimeout, "run run_9 has no verdict yet after 1s; it may still finish", true).
		WithData(json.RawMessage(`{"runId":"run_9","status":"running","url":"http://127.0.0.1:8787/runs/run_9","failed":0,"total":12}`))
	for name, r := range map[string]*api.ToolResponse{
		"passed":            runStatus(t, "passed", 12, 0),
		"failed":            linkedFailures(t),
		"failed, unlinked":  failuresResponse(t),
		"error":             runStatus(t, "error", 6, 0),
		"cancelled":         runStatus(t, "cancelled", 3, 1),
		"running":           runStatus(t, "running", 3, 0),
		"queued":            decodeResponse(t, `{"ok":true,"tool":"run_vrt","summary":"run run_1 queued","data":{"runId":"run_1","status":"queued","url":"http://127.0.0.1:8787/runs/run_1"}}`),
		"timeout":           timeout,
		"empty run":         decodeResponse(t, `{"ok":true,"tool":"get_run_status","summary":"s","data":{"runId":"run_0","status":"passed","failed":0,"total":0}}`),
		"failed call":       api.ClientError("get_run_failures", "not_found", "no run run_x", false),
		"no checks":         decodeResponse(t, `{"ok":true,"tool":"approve_vrt_results","summary":"approved","data":{"approved":3}}`),
		"passed diff":       decodeResponse(t, `{"ok":true,"tool":"get_diff_stats","summary":"s","data":{"runId":"r","scenarioLabel":"Home","viewport":"desktop","mismatchPercent":0,"threshold":0.1,"diffImageUrl":"http://127.0.0.1:8787/d.png"}}`),
		"counted, unnamed":  decodeResponse(t, `{"ok":true,"tool":"get_run_failures","summary":"s","data":{"runId":"r","failed":200000,"total":300000}}`),
		"hostile text":      decodeResponse(t, `{"ok":true,"tool":"get_run_failures","summary":"]]> <x> & \u0001\u0007 \ufffe","warnings":["<w>&]]>"],"data":{"runId":"r<&>\"","failed":1,"total":1,"failures":[{"scenarioLabel":"a]]>b\u0000","viewport":"<v>","mismatchPercent":1}]}}`),
		"run_100k failures": hundredK,
	} {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			if err := JUnit(&out, r, nil); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(out.String(), "<testsuites") && strings.Contains(strings.SplitN(out.String(), "\n", 3)[1], "skipped=") {
				t.Errorf("<testsuites> counts skipped: %s", strings.SplitN(out.String(), "\n", 3)[1])
			}
			testkit.ValidJUnit(t, out.Bytes())
		})
	}
}

// A passed check's diff image stays in the report, in its system-out,
// since the schema gives a case no properties.
func TestJUnitPassedCheckLinksInSystemOut(t *testing.T) {
	t.Parallel()
	r := decodeResponse(t, `{"ok":true,"tool":"get_diff_stats","summary":"s","data":{"runId":"r","scenarioLabel":"Home","viewport":"desktop","mismatchPercent":0,"threshold":0.1,"diffImageUrl":"http://127.0.0.1:8787/d.png"}}`)
	var out bytes.Buffer
	if err := JUnit(&out, r, nil); err != nil {
		t.Fatal(err)
	}
	c := parseJUnit(t, out.Bytes()).Suites[0].Cases
	if len(c) != 1 || c[0].Failure != nil || c[0].SystemOut != "Diff image: http://127.0.0.1:8787/d.png\n" {
		t.Errorf("cases %+v\n%s", c, out.String())
	}
}
