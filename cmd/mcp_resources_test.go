package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/internal/testkit"
)

// offeringServer offers resources (a text one, a blob one), a resource
// template and prompts, as the reference "everything" servers do, with
// hostile text in them.
func offeringServer(t *testing.T) string {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "offers", Version: "1"}, &mcp.ServerOptions{
		CompletionHandler: func(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			p := req.Params
			var values []string
			switch {
			case p.Ref.Type == "ref/prompt" && p.Ref.Name == "styled" && p.Argument.Name == "style":
				values = []string{"terse", "tender", "verbose", "te\x1b]0;owned\x07", "te two"}
			case p.Ref.Type == "ref/resource" && p.Ref.URI == "test://items/{id}" && p.Argument.Name == "id":
				values = []string{"item-1", "item-2", "other"}
			}
			var matching []string
			for _, v := range values {
				if strings.HasPrefix(v, p.Argument.Value) {
					matching = append(matching, v)
				}
			}
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: matching}}, nil
		},
	})
	server.AddResource(&mcp.Resource{URI: "test://static/1", Name: "notes", MIMEType: "text/plain", Description: "Some notes\x1b[2J"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://static/1", MIMEType: "text/plain", Text: "line one\nline two\x1b]0;pwned\x07"}}}, nil
		})
	server.AddResource(&mcp.Resource{URI: "test://static/2", Name: "logo", MIMEType: "image/png"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://static/2", MIMEType: "image/png", Blob: []byte("\x89PNG blob")}}}, nil
		})
	server.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://items/{id}", Name: "item", MIMEType: "application/json", Description: "One item"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return nil, mcp.ResourceNotFoundError("")
		})
	server.AddPrompt(&mcp.Prompt{Name: "simple", Description: "A prompt without arguments"},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Say hello"}}}}, nil
		})
	server.AddPrompt(&mcp.Prompt{Name: "styled", Description: "Writes in a style", Arguments: []*mcp.PromptArgument{
		{Name: "style", Description: "How it reads", Required: true}, {Name: "length"}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			a := req.Params.Arguments
			return &mcp.GetPromptResult{Description: "A styled prompt", Messages: []*mcp.PromptMessage{
				{Role: "user", Content: &mcp.TextContent{Text: fmt.Sprintf("Write it %s,\n%s long", a["style"], a["length"])}},
				{Role: "assistant", Content: &mcp.ImageContent{Data: []byte("img"), MIMEType: "image/png"}},
			}}, nil
		})
	return testkit.ServeMCP(t, server, nil)
}

func TestMCPResourcesAndPrompts(t *testing.T) {
	t.Parallel()
	endpoint := offeringServer(t)
	run := func(args ...string) (string, string, int) {
		t.Helper()
		return runVQ(t, nil, append([]string{"--endpoint", endpoint, "mcp"}, args...)...)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"resources"}, "" +
			"URI              NAME   MIME TYPE   DESCRIPTION\n" +
			"test://static/1  notes  text/plain  Some notes\n" +
			"test://static/2  logo   image/png\n" +
			"\n" +
			"URI TEMPLATE       NAME  MIME TYPE         DESCRIPTION\n" +
			"test://items/{id}  item  application/json  One item\n"},
		{[]string{"resource", "test://static/1"}, "[resource test://static/1 text/plain]\nline one\nline two\n"},
		{[]string{"resource", "test://static/2"}, "[resource test://static/2 image/png 9 bytes]\n"},
		{[]string{"prompts"}, "" +
			"NAME    ARGUMENTS                    DESCRIPTION\n" +
			"simple  -                            A prompt without arguments\n" +
			"styled  style*:string length:string  Writes in a style\n" +
			"\n" +
			"styled:\n" +
			"  arguments:\n" +
			"    style*  string  How it reads\n" +
			"    length  string\n"},
		{[]string{"prompt", "styled", "style=terse", "length=short"}, "[user]\nWrite it terse,\nshort long\n[assistant]\n[image image/png 3 bytes]\n"},
	} {
		out, errOut, exit := run(c.args...)
		if exit != 0 || out != c.want {
			t.Errorf("vq mcp %v: exit %d, stdout\n%s\nwant\n%s\nstderr %s", c.args, exit, out, c.want, errOut)
		}
	}

	// --json: one ToolResponse, the MCP result under .data.
	out, _, exit := run("resource", "test://static/2", "--json")
	var read struct {
		OK   bool `json:"ok"`
		Data struct {
			Contents []map[string]any `json:"contents"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(out), &read); err != nil || exit != 0 || !read.OK || len(read.Data.Contents) != 1 || read.Data.Contents[0]["blob"] != "iVBORyBibG9i" {
		t.Errorf("resource --json: exit %d %v\n%s", exit, err, out)
	}
	out, _, exit = run("resources", "--json")
	var list struct {
		Tool string `json:"tool"`
		Data struct {
			Resources []map[string]any `json:"resources"`
			Templates []map[string]any `json:"resourceTemplates"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil || exit != 0 || list.Tool != "resources/list" || len(list.Data.Resources) != 2 || len(list.Data.Templates) != 1 {
		t.Errorf("resources --json: exit %d %v\n%s", exit, err, out)
	}
	out, _, exit = run("prompts", "--json")
	if !strings.Contains(out, `"name":"style"`) || exit != 0 {
		t.Errorf("prompts --json: exit %d\n%s", exit, out)
	}

	// A blob is saved with --save-dir.
	dir := t.TempDir()
	_, errOut, exit := run("resource", "test://static/2", "--save-dir", dir)
	if saved, err := os.ReadFile(filepath.Join(dir, "resources_read-1.png")); exit != 0 || err != nil || string(saved) != "\x89PNG blob" {
		t.Errorf("--save-dir: exit %d, %q %v; stderr %s", exit, saved, err, errOut)
	}

	// What the server refuses is an error of its own.
	if _, errOut, exit := run("resource", "test://nope"); exit == 0 || !strings.Contains(errOut, "error: ") {
		t.Errorf("unknown resource: exit %d, stderr %s", exit, errOut)
	}
}

// endlessLists is a server whose every list answer has a next page: with
// the same cursor at /same, with a new one each time at /new. It counts
// the list requests.
func endlessLists(t *testing.T) (url string, lists *atomic.Int64) {
	t.Helper()
	lists = &atomic.Int64{}
	ts := testkit.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "no stream", http.StatusMethodNotAllowed)
			return
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &msg)
		if msg.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		var result string
		switch msg.Method {
		case "initialize":
			result = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"resources":{}},"serverInfo":{"name":"endless","version":"1"}}`
		case "tools/list", "resources/list":
			n := lists.Add(1)
			cursor := "again"
			if r.URL.Path == "/new" {
				cursor = fmt.Sprint("page-", n)
			}
			member := strings.TrimSuffix(msg.Method, "/list")
			result = fmt.Sprintf(`{%q:[{"name":"t%d","uri":"test://%d","inputSchema":{"type":"object"}}],"nextCursor":%q}`, member, n, n, cursor)
		default:
			result = `{}`
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, msg.ID, result)
	}))
	return ts.URL, lists
}

// A server that always has another page cannot keep vq listing: a
// repeated cursor stops at the second page, new cursors at the page cap.
func TestEndlessListsAreBounded(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		path, want string
		pages      int64
	}{
		{"/same", `error: http_error: the server's list has no end: it repeats its cursor "again" (from `, 2},
		{"/new", "error: http_error: the server's list has no end: it goes on past 100 pages or 10000 items; stopped there (from ", 100},
	} {
		for _, args := range [][]string{{"tools"}, {"mcp", "resources"}} {
			url, lists := endlessLists(t)
			_, errOut, exit := runVQ(t, nil, append([]string{"--endpoint", url + c.path}, args...)...)
			if exit == 0 || !strings.Contains(errOut, c.want) || lists.Load() != c.pages {
				t.Errorf("vq %v at %s: exit %d after %d pages (want %d), stderr:\n%s", args, c.path, exit, lists.Load(), c.pages, errOut)
			}
		}
	}
}

// Completion of prompts and resources asks the server: prompt names and
// argument keys from its lists, argument values and a template's
// variables from completion/complete, without the values a terminal
// would obey or that span words.
func TestCompletionOfPromptsAndResourcesAsksTheServer(t *testing.T) {
	t.Parallel()
	endpoint := offeringServer(t)
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"mcp", "prompt", "st"}, []string{"styled"}},
		{[]string{"mcp", "prompt", "styled", ""}, []string{"style=", "length="}},
		{[]string{"mcp", "prompt", "styled", "style=te"}, []string{"style=terse", "style=tender"}},
		{[]string{"mcp", "resource", "test://st"}, []string{"test://static/1", "test://static/2"}},
		{[]string{"mcp", "resource", "test://items/it"}, []string{"test://items/item-1", "test://items/item-2"}},
	} {
		got, _ := completeWith(t, nil, append([]string{"--endpoint", endpoint}, tc.args...)...)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: candidates %q, want %q", tc.args, got, tc.want)
		}
	}
}
