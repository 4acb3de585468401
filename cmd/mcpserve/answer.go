package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/format"
	"github.com/visualq/vq/internal/imagesafe"
	"github.com/visualq/vq/internal/layout"
	"github.com/visualq/vq/internal/textsafe"
)

const (
	maxAgentImages = 4        // diff images one answer carries
	agentImageSide = 1568     // the largest side vision models take unscaled
	maxImageBytes  = 16 << 20 // a downloaded image, as the TUI's preview
)

// toolResult answers forAgent(resp) as structuredContent, and as text the
// summary, error, warnings and next actions, then the same JSON (for clients
// ignoring structuredContent), then the diff images; isError when not ok.
func (s *agentServer) toolResult(ctx context.Context, resp *api.ToolResponse) (*mcp.CallToolResult, error) {
	resp = s.forAgent(resp)
	doc, err := resp.Document()
	if err != nil {
		return nil, err
	}
	doc = textsafe.EscapeJSON(doc)
	content := []mcp.Content{&mcp.TextContent{Text: format.AgentText(resp)}, &mcp.TextContent{Text: string(doc)}}
	if !s.opts.NoImages && resp.OK {
		content = append(content, s.images(ctx, resp)...)
	}
	return &mcp.CallToolResult{Content: content, StructuredContent: json.RawMessage(doc), IsError: !resp.OK}, nil
}

// forAgent drops next actions vq may not run (format.RunnableAction: the agent
// calls them back), sanitizes labels and takes out a server's confirm: consent
// is the user's, never the server's. An answer with nothing to change keeps its bytes.
func (s *agentServer) forAgent(resp *api.ToolResponse) *api.ToolResponse {
	actions := make([]api.NextAction, 0, len(resp.NextActions))
	changed := false
	for _, a := range resp.NextActions {
		clean, why := format.RunnableAction(a)
		if why != "" {
			s.logf("%s: next action %q left out: %s", textsafe.SanitizeLine(resp.Tool), textsafe.SanitizeLine(a.Label), why)
			changed = true
			continue
		}
		clean.Label = textsafe.SanitizeLine(a.Label)
		_, consent := a.Args[api.ArgConfirm]
		changed = changed || consent || clean.Label != a.Label
		actions = append(actions, clean)
	}
	if !changed {
		return resp
	}
	return resp.WithNextActions(actions)
}

// diffLink is a diff image an answer links, and what it is of.
type diffLink struct{ url, of string }

// images are an answer's diff images, each after a line saying what it is of
// (or why it cannot be shown), fetched together within the in-flight bound.
func (s *agentServer) images(ctx context.Context, resp *api.ToolResponse) []mcp.Content {
	links := diffLinks(resp)
	shown := make([][]mcp.Content, len(links))
	var wg sync.WaitGroup
	for i, link := range links {
		wg.Go(func() {
			data, err := s.diffImage(ctx, link.url)
			if err != nil {
				shown[i] = []mcp.Content{&mcp.TextContent{Text: "diff image of " + link.of + " not attached: " + textsafe.SanitizeLine(err.Error())}}
				return
			}
			shown[i] = []mcp.Content{&mcp.TextContent{Text: "diff image of " + link.of + ":"}, &mcp.ImageContent{Data: data, MIMEType: "image/png"}}
		})
	}
	wg.Wait()
	return slices.Concat(shown...)
}

// diffLinks are the diff images an answer links: get_diff_stats' diffImageUrl,
// or the diffUrl of the first failures a run lists.
func diffLinks(resp *api.ToolResponse) []diffLink {
	if link := dataString(resp, "diffImageUrl"); link != "" {
		return []diffLink{{url: link, of: checkName(dataString(resp, "scenarioLabel"), dataString(resp, "viewport"))}}
	}
	var links []diffLink
	for _, f := range listedFailures(resp, maxAgentImages) {
		if f.DiffURL != "" {
			links = append(links, diffLink{url: f.DiffURL, of: checkName(f.ScenarioLabel, f.Viewport)})
		}
	}
	return links
}

// dataString is a top-level string member of an answer's data, or "".
func dataString(resp *api.ToolResponse, name string) string {
	var v string
	_ = json.Unmarshal(layout.Member(resp.Data, resp.Members, name), &v)
	return v
}

// checkName names a check for the agent: its scenario and viewport.
func checkName(scenario, viewport string) string {
	name := strings.TrimSpace(textsafe.SanitizeLine(scenario + " " + viewport))
	if name == "" {
		return "the check"
	}
	return name
}

// listedFailure is what vq mcp serve reads of a failure a run lists.
type listedFailure struct {
	ScenarioLabel string `json:"scenarioLabel"`
	Viewport      string `json:"viewport"`
	DiffURL       string `json:"diffUrl"`
}

// listedFailures are the first n data.failures, read one by one: a run can list 100,000.
func listedFailures(resp *api.ToolResponse, n int) []listedFailure {
	raw := layout.Member(resp.Data, resp.Members, "failures")
	if raw == nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil
	}
	var out []listedFailure
	for len(out) < n && dec.More() {
		var f listedFailure
		if dec.Decode(&f) != nil {
			break
		}
		out = append(out, f)
	}
	return out
}

// diffImage fetches a linked image from the server's origin within the
// preview's bounds, as a PNG at most agentImageSide a side (the server's bytes
// when they already are); one decode at a time, each may take the budget.
func (s *agentServer) diffImage(ctx context.Context, link string) ([]byte, error) {
	done, err := s.admit(ctx)
	if err != nil {
		return nil, err
	}
	data, err := s.client.FetchPublic(ctx, s.settings.Home(), link, maxImageBytes)
	done()
	if err != nil {
		return nil, err
	}
	cfg, format, err := imagesafe.Check(bytes.NewReader(data))
	switch {
	case err != nil:
		return nil, err
	case format == "png" && cfg.Width <= agentImageSide && cfg.Height <= agentImageSide:
		return data, nil
	}
	s.decoding.Lock()
	defer s.decoding.Unlock()
	img, err := imagesafe.Decode(data)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, imagesafe.Fit(img, agentImageSide)); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
