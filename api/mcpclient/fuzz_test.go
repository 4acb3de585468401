package mcpclient

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/testkit"
)

// FuzzMCPResult feeds a tools/call result, as a server could send it, to the
// mapping onto the contract: whatever the server says, vq gets a
// well-formed ToolResponse, naming its tool, which a script reads back
// (--json) as the same answer.
func FuzzMCPResult(f *testing.F) {
	f.Add([]byte(`{"content":[{"type":"text","text":"ok"}],"structuredContent":{"ok":true,"tool":"t","summary":"s","data":{"a":1},"warnings":[],"nextActions":[]}}`))
	f.Add([]byte(`{"content":[{"type":"text","text":"3 of 5 sources analysed"}],"isError":true}`))
	f.Add([]byte(`{"content":[],"structuredContent":{"ok":"yes","nextActions":{}}}`))
	f.Add([]byte(`{"content":[{"type":"text","text":"\u001b[2Jx\u202e"}],"structuredContent":[1,2]}`))
	f.Add([]byte(`{"content":[{"type":"image","data":"AAAA","mimeType":"image/png"}],"isError":false}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var res mcp.CallToolResult
		if err := json.Unmarshal(body, &res); err != nil {
			return
		}
		resp := toolResponseFromMCP("t", &res, body, structuredOf(&res, body), toolInfo{})
		if resp.Tool == "" || resp.Warnings == nil || resp.NextActions == nil || resp.Data == nil {
			t.Fatalf("%s: mapped to %+v", body, resp)
		}
		if !resp.OK && resp.ErrorCode() == "" {
			t.Fatalf("%s: a failure without an error code", body)
		}
		doc, err := resp.Document()
		if err != nil {
			t.Fatalf("%s: does not encode: %v", body, err)
		}
		read, err := api.DecodeToolResponse(doc)
		if err != nil || read.OK != resp.OK || read.ErrorCode() != resp.ErrorCode() || !bytes.Equal(compact(read.Data), compact(resp.Data)) {
			t.Fatalf("%s: --json prints %s, which reads back as %+v (%v)", body, doc, read, err)
		}
	})
}

// compact is a JSON document as --json writes it: json.Marshal's bytes,
// without whitespace, with <, > and & escaped.
func compact(b []byte) []byte {
	out, err := json.Marshal(json.RawMessage(b))
	if err != nil {
		return b
	}
	return out
}

// FuzzOutputSchema feeds an outputSchema and an answer, as a server could
// send them, to the check of the one against the other: whatever they
// are, the check ends within its bounds (a stack overflow or a hang
// fails the fuzzer), and an answer is never both unchecked and broken.
func FuzzOutputSchema(f *testing.F) {
	for _, tool := range testkit.HostileOutputSchemas() {
		schema, _ := json.Marshal(tool.Schema)
		f.Add(schema, []byte(tool.Answer))
	}
	f.Add([]byte(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`), []byte(`{"n":"x"}`))
	f.Add([]byte(`{"$ref":"#/$defs/t","$defs":{"t":{"type":"object","properties":{"kids":{"items":{"$ref":"#/$defs/t"}}}}}}`), []byte(`{"kids":[{"kids":[{}]}]}`))
	f.Add([]byte(`{"$id":"https://example.com/s","$defs":{"a":{"$dynamicAnchor":"x","type":"string"}},"properties":{"p":{"$ref":"#x"},"q":{"$dynamicRef":"#x"}}}`), []byte(`{"p":1,"q":"s"}`))
	f.Add([]byte(`{"patternProperties":{"^a":{"$ref":"#"}},"propertyNames":{"maxLength":3},"prefixItems":[{"$ref":"#"}],"contains":{"not":{}}}`), []byte(`{"ab":{"ac":[[1]]}}`))
	f.Fuzz(func(t *testing.T, schema, answer []byte) {
		if broken, unchecked := outputBreaks(schema, answer); broken != "" && unchecked != "" {
			t.Fatalf("%s against %s: both broken (%s) and unchecked (%s)", answer, schema, broken, unchecked)
		}
	})
}
