package api

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzDocument holds the document --json writes of a client-made response
// (WriteDocument, the data as it goes) to json.Marshal's bytes, whatever
// the data and the text around it: the same bytes, or the same failure.
func FuzzDocument(f *testing.F) {
	f.Add([]byte(`{"content":[{"type":"text","text":"a <b> & \u2028"}]}`), "summary", "tool")
	f.Add([]byte(" { \"a\" : [ 1 , \"x y\" ] ,\n\t\"b\":\"\\\" <\xe2\x80\xa8\xe2\x80\xa9>\" } "), `"data":null <&>`, "t")
	f.Add([]byte(`null`), "", "")
	f.Add([]byte(``), "s", "t")
	f.Add([]byte(`{"a":`), "s", "t")
	f.Add([]byte("\"\xe2\x80\""), "s\xff", "t")
	f.Fuzz(func(t *testing.T, data []byte, summary, tool string) {
		r := &ToolResponse{OK: true, Tool: tool, Summary: summary, Data: data, Warnings: []string{summary}, NextActions: []NextAction{{Label: tool, Tool: tool, Args: map[string]any{"data": nil}}}}
		if len(data) == 0 {
			r.Data = nil
		}
		want, wantErr := json.Marshal(r)
		var got bytes.Buffer
		gotErr := r.WriteDocument(&got)
		if (gotErr == nil) != (wantErr == nil) || wantErr == nil && !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("WriteDocument: %q (%v)\njson.Marshal: %q (%v)", got.Bytes(), gotErr, want, wantErr)
		}
		if doc, err := r.Document(); (err == nil) != (wantErr == nil) || wantErr == nil && !bytes.Equal(doc, want) {
			t.Fatalf("Document: %q (%v)\njson.Marshal: %q (%v)", doc, err, want, wantErr)
		}
	})
}
