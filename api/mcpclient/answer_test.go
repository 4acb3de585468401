package mcpclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sdkResult is what the SDK makes of a tools/call answer's line, as its
// stdio connection and its call read it.
func sdkResult(line []byte) (*mcp.CallToolResult, error) {
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return nil, err
	}
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.Error != nil {
		return nil, errNotAResult
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(resp.Result, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

var errNotAResult = errors.New("not a result")

// FuzzStdioAnswer holds a tools/call answer read from a stdio server to
// what the SDK makes of the line as sent: the SDK, given the line without
// its texts and structuredContent, refuses what it refuses of the whole
// line, and the blocks vq shows, with the texts given back, are the SDK's;
// the structuredContent vq reads is the one sent, as the SDK encodes it.
func FuzzStdioAnswer(f *testing.F) {
	for _, result := range []string{
		`{"content":[{"type":"text","text":"line 1\nline 2 \u00e9 \"q\" <b>"}]}`,
		`{"content":[{"type":"text","text":"a"},{"type":"image","data":"AAAA","mimeType":"image/png","text":"not shown"},{"type":"resource","resource":{"uri":"file:///a","text":"in a\tresource"}}],"isError":true}`,
		`{"content":[{"type":"text","text":"s"}],"structuredContent":{"ok":true, "tool":"t","data":{"b":1,"a":[1, 2]}}}`,
		`{"content":[{"type":"text","text":"s"}],"structuredContent":null}`,
		`{"content":[{"type":"nope","text":"x"}]}`,
		`{"content":[{"type":"text","text":5}]}`,
		`{"content":[{"type":"text","text":"a","text":"b"}]}`,
		`{"content":[null,{"type":"text","text":"x"}]}`,
		`{"content":[{"type":"text","text":"x"}],"structuredContent":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}`,
		`{"content":[{"type":"text","text":"\ud800"}]}`,
		`{"content":[{"type":"text","text":"` + "\xff" + `"}]}`,
		`{"structuredContent":{"a":1}}`,
	} {
		f.Add([]byte(result))
	}
	f.Fuzz(func(t *testing.T, result []byte) {
		line := []byte(`{"jsonrpc":"2.0","id":7,"result":` + string(result) + "}\n")
		want, wantErr := sdkResult(line)
		a, id, ok := readAnswer(line)
		if !ok || !slices.Contains(a.members, "content") {
			return // the SDK is given the line as sent
		}
		if seven, _ := jsonrpc.MakeID(float64(7)); id != seven || !bytes.Equal(a.result.in(line), bytes.TrimSpace(result)) {
			t.Fatalf("%s: read as id %v, result %s", line, id, a.result.in(line))
		}
		got, gotErr := sdkResult(a.forSDK())
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("%s: the SDK says %v of the line, %v of the line without texts", line, wantErr, gotErr)
		}
		if wantErr != nil {
			return
		}
		a.restoreTexts(got)
		if got.IsError != want.IsError || !reflect.DeepEqual(contentOf(got, nil), contentOf(want, nil)) {
			t.Fatalf("%s: shown as %+v, the SDK's %+v", line, contentOf(got, nil).Blocks, contentOf(want, nil).Blocks)
		}
		gotStructured, kept := a.structuredContent()
		if !kept {
			gotStructured = structuredOf(got, nil)
		}
		var gotValue any
		if gotStructured != nil {
			json.Unmarshal(gotStructured, &gotValue)
		}
		if !reflect.DeepEqual(gotValue, want.StructuredContent) {
			t.Fatalf("%s: structuredContent %s, the SDK's %v", line, gotStructured, want.StructuredContent)
		}
		if sent := structuredOf(&mcp.CallToolResult{}, a.result.in(line)); kept && !bytes.Equal(gotStructured, asSDKEncodes(sent)) {
			t.Fatalf("%s: structuredContent %s, sent %s", line, gotStructured, sent)
		}
	})
}

// asSDKEncodes is JSON as the SDK encodes a message's values: without
// whitespace, nothing escaped.
func asSDKEncodes(b []byte) []byte {
	var out bytes.Buffer
	if json.Compact(&out, b) != nil {
		return b
	}
	return out.Bytes()
}
