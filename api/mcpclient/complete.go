package mcpclient

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/internal/textsafe"
)

// maxCompletions bounds the values offered: a server may answer any number.
const maxCompletions = 100

// Complete asks completion/complete for an argument's values; a failure offers none, never getting in the way.
func (c *Client) Complete(ctx context.Context, prompt, uriTemplate, name, value string, given map[string]string) []string {
	ref := &mcp.CompleteReference{Type: "ref/prompt", Name: prompt}
	if prompt == "" {
		ref = &mcp.CompleteReference{Type: "ref/resource", URI: uriTemplate}
	}
	var values []string
	_ = c.mcpAttempt(ctx, "completion/complete", func(ctx context.Context, s *mcp.ClientSession, _ *httpRecord) error {
		if caps := s.InitializeResult().Capabilities; caps == nil || caps.Completions == nil {
			return nil
		}
		params := &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: name, Value: value}}
		if len(given) > 0 {
			params.Context = &mcp.CompleteContext{Arguments: given}
		}
		res, err := s.Complete(ctx, params)
		if err != nil {
			return err
		}
		for _, v := range res.Completion.Values {
			// A shell word: none a terminal would obey, or that spans words.
			if len(values) < maxCompletions && v != "" && v == textsafe.SanitizeLine(v) && !strings.ContainsAny(v, " \t") {
				values = append(values, v)
			}
		}
		return nil
	})
	return values
}

// TemplateArgument reads what is typed of a template's URI (RFC 6570 simple {name}): the variable typed,
// its value so far and those before; false when typed does not follow the template.
func TemplateArgument(template, typed string) (name, value string, given map[string]string, ok bool) {
	given = map[string]string{}
	rest := template
	for {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			return "", "", nil, false
		}
		literal := rest[:open]
		if !strings.HasPrefix(typed, literal) {
			return "", "", nil, false
		}
		typed, rest = typed[len(literal):], rest[open+1:]
		end := strings.IndexByte(rest, '}')
		if end < 0 {
			return "", "", nil, false
		}
		name, rest = strings.TrimLeft(rest[:end], "+#./;?&"), rest[end+1:]
		next := rest
		if i := strings.IndexByte(rest, '{'); i >= 0 {
			next = rest[:i]
		}
		i := strings.Index(typed, next)
		if next == "" || i < 0 {
			return name, typed, given, true
		}
		given[name], typed = typed[:i], typed[i:]
	}
}
