package api

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/visualq/vq/internal/layout"
)

func FuzzDecodeToolResponse(f *testing.F) {
	f.Add([]byte(`{"ok":true,"tool":"t","summary":"s","data":null,"warnings":[],"nextActions":[]}`))
	f.Add([]byte(`{"ok":false,"error":{"code":"rate_limit","message":"m"},"recoverable":true,"retryAfterMs":50}`))
	f.Add([]byte(`{"ok":"yes","nextActions":{}}`))
	f.Add([]byte(`<html>502</html>`))
	f.Add([]byte(`{"ok":true,"data":{"jobId":"j","status":"queued","n":[1,{"a":"b"}]} }`))
	f.Add([]byte(`{"data":{"x":1},"ok":true,"data":{"y":[2]}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		resp, err := DecodeToolResponse(body)
		if err != nil {
			return
		}
		// The one-pass index must agree with a plain decode of data.
		// data is the member named exactly "data" (encoding/json would also
		// take "Data" or "dAtA" into a struct field; a map keeps names exact).
		var top, fields map[string]json.RawMessage
		if json.Unmarshal(body, &top) == nil && json.Unmarshal(top["data"], &fields) == nil {
			for name, want := range fields {
				if got := layout.Member(resp.Data, resp.Members, name); !bytes.Equal(compact(got), compact(want)) {
					t.Fatalf("Member(%q) = %s, want %s", name, got, want)
				}
			}
		}
		if resp.Warnings == nil || resp.NextActions == nil || resp.Data == nil {
			t.Fatalf("decoded response has nil collections: %+v", resp)
		}
		if _, err := json.Marshal(resp); err != nil {
			t.Fatalf("a decoded response does not encode: %v", err)
		}
		if !resp.OK && resp.ErrorCode() == "" {
			t.Fatal("a failure without an error code")
		}
		for _, a := range resp.NextActions {
			a.Call().WithConfirm()
		}
	})
}

func FuzzAuthParam(f *testing.F) {
	f.Add(`Bearer resource_metadata="https://a/b"`)
	f.Add(`Bearer resource_metadata=`)
	f.Add(`resource_metadata="`)
	f.Fuzz(func(t *testing.T, header string) {
		ResourceMetadata(header)
	})
}

func compact(b []byte) []byte {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return b
	}
	return buf.Bytes()
}
