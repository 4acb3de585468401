package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/testkit"
)

// richSchema is an input schema with every part vq tools must keep or
// show: $schema, $defs and a $ref, descriptions, an enum, defaults, array
// items, a type list and additionalProperties.
const richSchema = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
	`"$defs":{"Viewport":{"type":"string","enum":["desktop","mobile"]}},` +
	`"properties":{` +
	`"runId":{"type":"string","description":"The run to compare"},` +
	`"viewport":{"$ref":"#/$defs/Viewport","description":"Which viewport"},` +
	`"mode":{"type":"string","enum":["fast","thorough"],"default":"fast","description":"How hard to look\u001b[2J"},` +
	`"tags":{"type":"array","items":{"type":"integer"},"description":"Tag ids"},` +
	`"threshold":{"type":["number","null"],"default":0.1}},` +
	`"required":["runId"],"additionalProperties":false}`

const richOutputSchema = `{"type":"object","properties":{"changed":{"type":"integer","description":"Pixels changed"}},"required":["changed"]}`

// richToolServer lists a tool with richSchema and every annotation hint
// (task support optional), and a read-only tool that states none.
func richToolServer(t *testing.T) string {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "rich", Version: "1"}, nil)
	no, answer := false, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	}
	server.AddTool(&mcp.Tool{
		Name: "compare", Title: "Compare", Description: "Compare a run with its baseline.",
		InputSchema: json.RawMessage(richSchema), OutputSchema: json.RawMessage(richOutputSchema),
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &no, IdempotentHint: true, OpenWorldHint: &no},
	}, answer)
	server.AddTool(&mcp.Tool{Name: "peek", InputSchema: json.RawMessage(`{"type":"object"}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, answer)
	return serveWithTaskSupport(t, server, "compare", "optional")
}

// serveWithTaskSupport serves server with the tool's execution.taskSupport
// added to its listing: the SDK's Tool has no execution member, so the
// list is given one on the way out, as a server of a newer revision
// sends it.
func serveWithTaskSupport(t *testing.T, server *mcp.Server, tool, support string) string {
	t.Helper()
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{JSONResponse: true})
	name := []byte(`"name":"` + tool + `"`)
	ts := testkit.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			handler.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, r)
		body := bytes.Replace(rec.Body.Bytes(), name, append([]byte(`"execution":{"taskSupport":"`+support+`"},`), name...), 1)
		for k, v := range rec.Header() {
			if k != "Content-Length" {
				w.Header()[k] = v
			}
		}
		w.WriteHeader(rec.Code)
		w.Write(body)
	}))
	return ts.URL
}

func TestToolsShowsEveryFactOfTheSchemaAndAnnotations(t *testing.T) {
	t.Parallel()
	endpoint := richToolServer(t)
	out, errOut, exit := runVQ(t, nil, "--endpoint", endpoint, "tools")
	if exit != 0 {
		t.Fatalf("exit %d: %s", exit, errOut)
	}
	for _, want := range []string{
		"compare  vq invoke  write      runId*:string mode:string tags:array threshold:number|null viewport:Viewport  Compare: Compare a run with its baseline.\n",
		"\ncompare:\n" +
			"  hints: writes, not destructive, idempotent, closed world\n" +
			"  task support: optional\n" +
			"  arguments:\n" +
			"    runId*     string            The run to compare\n" +
			"    mode       string            How hard to look; one of \"fast\", \"thorough\"; default \"fast\"\n" +
			"    tags       array of integer  Tag ids\n" +
			"    threshold  number|null       default 0.1\n" +
			"    viewport   Viewport          Which viewport\n" +
			"  returns:\n" +
			"    changed*  integer  Pixels changed\n",
		"\npeek:\n  hints: read-only, open world (presumed)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("vq tools lacks\n%s\nin\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("server text reached the terminal raw:\n%q", out)
	}

	out, errOut, exit = runVQ(t, nil, "--endpoint", endpoint, "tools", "--json")
	var resp struct {
		Data struct {
			Tools []struct {
				Name         string          `json:"name"`
				InputSchema  json.RawMessage `json:"inputSchema"`
				OutputSchema json.RawMessage `json:"outputSchema"`
				TaskSupport  string          `json:"taskSupport"`
			} `json:"tools"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(out), &resp); err != nil || exit != 0 || len(resp.Data.Tools) != 2 {
		t.Fatalf("--json: exit %d %v\n%s%s", exit, err, out, errOut)
	}
	compare := resp.Data.Tools[0]
	if compare.Name != "compare" || !sameJSON(t, compare.InputSchema, []byte(richSchema)) || !sameJSON(t, compare.OutputSchema, []byte(richOutputSchema)) || compare.TaskSupport != "optional" {
		t.Errorf("--json tool = %s %s %s %q; want the server's schemas unchanged", compare.Name, compare.InputSchema, compare.OutputSchema, compare.TaskSupport)
	}
}

// A tool that runs only as an MCP task is refused by the server when
// called without one; vq says why instead of the server's bare refusal.
func TestATaskOnlyToolSaysVQCannotRunTasks(t *testing.T) {
	t.Parallel()
	server := mcp.NewServer(&mcp.Implementation{Name: "tasks", Version: "1"}, nil)
	var calls atomic.Int32
	server.AddTool(&mcp.Tool{Name: "render", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			calls.Add(1)
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "render requires task augmentation"}
		})
	endpoint := serveWithTaskSupport(t, server, "render", "required")

	_, errOut, exit := runVQ(t, nil, "--endpoint", endpoint, "invoke", "render")
	if exit != exitcode.ForCode(api.CodeToolError, false) || !strings.Contains(errOut, "render runs only as an MCP task (its execution.taskSupport is required), which vq cannot run yet") {
		t.Errorf("exit %d, stderr %q", exit, errOut)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("render was called %d times, want once", n)
	}
}

// hugeListingServer lists what no person reads: a tool "wide" taking runId
// and 1000 arguments of 3000-byte names and descriptions, and 300 tools
// with 3000-byte descriptions (a 7 MB tools/list).
func hugeListingServer(t *testing.T) (endpoint string, tools int) {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "huge", Version: "1"}, nil)
	answer := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	}
	long := strings.Repeat("n", 3000)
	props := map[string]any{"runId": map[string]any{"type": "string"}}
	for i := range 1000 {
		props[fmt.Sprintf("%04d%s", i, long)] = map[string]any{"type": "string", "description": long}
	}
	schema, err := json.Marshal(map[string]any{"type": "object", "properties": props, "additionalProperties": false})
	if err != nil {
		t.Fatal(err)
	}
	server.AddTool(&mcp.Tool{Name: "wide", InputSchema: json.RawMessage(schema)}, answer)
	for i := range 300 {
		server.AddTool(&mcp.Tool{Name: fmt.Sprintf("t%d", i), Description: long, InputSchema: json.RawMessage(`{"type":"object"}`)}, answer)
	}
	return testkit.ServeMCP(t, server, &mcp.StreamableHTTPOptions{JSONResponse: true}), 301
}

// What vq prints of a huge listing is bounded by what a person reads, not
// by what the server lists: vq tools prints a table cell of at most 256
// bytes and 30 arguments a tool (it printed the whole 7 MB, twice), and a
// usage error lists the names that fit in a line and suggests only names
// a person types (the line held every name: 60 MB for 20k of 3000 bytes).
func TestHugeListingsPrintWhatAPersonReads(t *testing.T) {
	t.Parallel()
	endpoint, tools := hugeListingServer(t)
	out, errOut, exit := runVQ(t, nil, "--endpoint", endpoint, "tools")
	if exit != 0 {
		t.Fatalf("vq tools: exit %d: %s", exit, errOut)
	}
	if most := tools*1024 + 64*1024; len(out) > most {
		t.Errorf("vq tools printed %d bytes, more than %d (1 KiB a tool, 64 KiB for the widest)", len(out), most)
	}
	row := regexp.MustCompile(`(?m)^wide +vq invoke +destructive +0000n+… \+1000 more$`)
	for _, want := range []string{"    +971 more (--json lists them all)\n", "\nt299:\n"} {
		if !strings.Contains(out, want) || !row.MatchString(out) {
			t.Errorf("vq tools lacks %q or the row of wide:\n%.3000s", want, out)
		}
	}

	for key, reason := range map[string]string{
		"runid": "error: unknown argument runid; did you mean runId?\n",
		"zzz":   "error: unknown argument zzz\n",
	} {
		_, errOut, exit = runVQ(t, nil, "--endpoint", endpoint, "invoke", "wide", key+"=run_1")
		if exit != exitcode.Usage || !strings.HasPrefix(errOut, reason) || len(errOut) > 1024 {
			t.Errorf("%s=: exit %d, %d bytes on stderr, want %d and %q in at most 1 KiB:\n%.2000s", key, exit, len(errOut), exitcode.Usage, reason, errOut)
		}
		if !strings.Contains(errOut, " more; to send "+key+" as it is: vq invoke wide --args JSON\n") {
			t.Errorf("%s=: the hint does not count the names it leaves out:\n%.2000s", key, errOut)
		}
	}
}
