package format

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/visualq/vq/api"
)

// --json of a response vq made from a server's answer (a CI run read as a
// job status) prints what vq made, not the bytes the server sent.
func TestJSONOfADerivedResponseIsItsOwnData(t *testing.T) {
	t.Parallel()
	served, err := api.DecodeToolResponse([]byte(`{"ok":true,"tool":"get_run_status","summary":"run r passed","data":{"runId":"r","status":"passed","total":3}}`))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := JSON(&out, api.RunAsJob(served), false); err != nil {
		t.Fatal(err)
	}
	var printed struct {
		Summary string          `json:"summary"`
		Data    json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(out.Bytes(), &printed); err != nil {
		t.Fatalf("%s: %v", out.Bytes(), err)
	}
	if want := `{"jobId":"r","status":"completed","progress":{"current":0,"total":0,"message":"passed"}}`; string(printed.Data) != want || printed.Summary != "run r passed" {
		t.Errorf("--json printed %s, want the job status %s and the server's summary", out.Bytes(), want)
	}
}
