package format

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/layout"
	"github.com/visualq/vq/internal/textsafe"
)

func FuzzRenderResponse(f *testing.F) {
	f.Add([]byte(`{"ok":true,"tool":"t","summary":"s","data":{"runId":"r","failures":[{"a":1},{"b":"\u001b[2J"}]},"warnings":["w"],"nextActions":[{"label":"l","tool":"t","args":{"k":"v'q","n":1}}]}`))
	f.Add([]byte(`{"ok":false,"tool":"t","summary":"s","data":[1,"x",null],"error":{"code":"tool_error","message":"\u202e"},"recoverable":true}`))
	f.Add([]byte(`{"ok":true,"data":"\u009b31m"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		resp, err := api.DecodeToolResponse(body)
		if err != nil {
			return
		}
		var out, errOut bytes.Buffer
		Plain(&out, &errOut, resp, nil)
		for _, s := range []string{out.String(), errOut.String()} {
			if textsafe.Sanitize(s) != s {
				t.Fatalf("plain output of %q holds text a terminal would obey or hide: %q", body, s)
			}
		}
		var js bytes.Buffer
		if err := JSON(&js, resp, false); err != nil {
			t.Fatalf("JSON: %v", err)
		}
		if textsafe.Sanitize(js.String()) != js.String() {
			t.Fatalf("JSON output of %q holds text a terminal would obey or hide: %q", body, js.String())
		}
	})
}

// FuzzLayoutResponse holds the layout made from api's index of the data
// to the layout made by reading the data itself.
func FuzzLayoutResponse(f *testing.F) {
	f.Add([]byte(`{"ok":true,"data":{"runId":"r","n":{"a":1,"e":{}},"list":[1,"x"],"failures":[{"a":1},{"b":"c"}],"x":null}}`))
	f.Add([]byte(`{"ok":true,"data":{"d":1,"d":{"k":[{"z":true}]}}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		resp, err := api.DecodeToolResponse(body)
		if err != nil {
			return
		}
		fromIndex, err1 := layout.Response(resp.Data, resp.Members)
		fromBytes, err2 := layout.Data(resp.Data)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("errors differ: %v / %v", err1, err2)
		}
		if err1 != nil {
			return
		}
		a, _ := json.Marshal(layoutSummary(fromIndex))
		b, _ := json.Marshal(layoutSummary(fromBytes))
		if !bytes.Equal(a, b) {
			t.Fatalf("%s:\nfrom the index %s\nfrom the bytes %s", body, a, b)
		}
	})
}

func layoutSummary(l *layout.Layout) []any {
	out := []any{l.Lines}
	for _, f := range l.Fields {
		out = append(out, f.Key, f.Value)
	}
	for _, tt := range l.Tables {
		out = append(out, tt.Title, tt.Count, tt.Records.Table())
	}
	return out
}

func TestRecordsInAnyMemberOrderLineUp(t *testing.T) {
	t.Parallel()
	resp, err := api.DecodeToolResponse([]byte(`{"ok":true,"data":[{"a":1,"b":"x"},{"b":"yy","a":22},{"c":true},{"a":null,"b":"\u001b[2Jz"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if err := Plain(&out, &errOut, resp, nil); err != nil {
		t.Fatal(err)
	}
	want := "A   B   C\n" +
		" 1  x   \n" +
		"22  yy  \n" +
		"        true\n" +
		"    z   \n"
	if out.String() != want {
		t.Errorf("got:\n%q\nwant:\n%q", out.String(), want)
	}
}
