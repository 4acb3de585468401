package format

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/visualq/vq/api"
)

// --json writes large answers a piece at a time; runes a terminal would
// obey are escaped wherever they fall, other text passes as sent.
func TestWriteJSONEscapesAcrossPieces(t *testing.T) {
	long := strings.Repeat("a", 256<<10-3)
	doc := `{"data":"` + long + "é\u202e" + strings.Repeat("b", 300<<10) + "\u202e\xff\x7f" + `"}`
	want := `{"data":"` + long + `é\u202e` + strings.Repeat("b", 300<<10) + `\u202e\ufffd\u007f"}` + "\n"
	var out bytes.Buffer
	if err := WriteJSON(&out, []byte(doc), false); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != want {
		t.Errorf("got %d bytes, want %d; first difference at %d", len(got), len(want), firstDiff(got, want))
	}
	if got := string(EscapeJSON([]byte(doc))) + "\n"; got != want {
		t.Errorf("EscapeJSON differs from WriteJSON at %d", firstDiff(got, want))
	}
}

func firstDiff(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// --json of a response vq made from a server's answer (a CI run read as a
// job status) prints what vq made, not the bytes the server sent.
func TestJSONOfADerivedResponseIsItsOwnData(t *testing.T) {
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
