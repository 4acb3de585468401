package mcpclient

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/internal/textsafe"
)

// maxCompletions bounds the values one completion offers: a shell shows
// a screenful, and a server may answer with any number.
const maxCompletions = 100

// Complete asks the server (completion/complete) for values of the
// argument name of a prompt (prompt set) or a resource template
// (uriTemplate set) that start as value does, given the arguments already
// filled in. A server that declares no completions offers none; any
// failure offers none too (completion never gets in the way). Values a
// terminal would obey (controls, escapes) or spanning words are left out.
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
			// A value is offered to a shell as a word of its own: one a
			// terminal would obey, or that spans words, is not.
			if len(values) < maxCompletions && v != "" && v == textsafe.SanitizeLine(v) && !strings.ContainsAny(v, " \t") {
				values = append(values, v)
			}
		}
		return nil
	})
	return values
}

// TemplateArgument reads what is typed of a resource template's URI: the
// name of the variable being typed, what is typed of it, and the values
// of the variables before it; false when typed does not follow the
// template up to a variable. Variables are RFC 6570's simple {name}; an
// expression with an operator or several names is typed as a whole.
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
