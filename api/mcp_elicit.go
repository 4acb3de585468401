package api

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Elicitation is a server's request for input from the user during a call
// (MCP elicitation, form mode): a message and the flat fields it asks for.
// All of it is server text: whoever shows it sanitizes it.
type Elicitation struct {
	Message string
	Fields  []ElicitField
}

// ElicitField is one field of an elicitation's requested schema.
type ElicitField struct {
	Name, Title, Description string
	// Type is string, number, integer or boolean.
	Type     string
	Required bool
	// Enum are the choices of a string field, EnumNames their labels when
	// the server gave them (one per choice).
	Enum, EnumNames []string
	// Default is the schema's default, nil when there is none.
	Default any
}

// The actions an elicitation is answered with.
const (
	ElicitAccept  = "accept"
	ElicitDecline = "decline"
	ElicitCancel  = "cancel"
)

// ElicitAnswer is the user's answer: an action and, on accept, the values
// by field name. Fields left out of an accepted answer take the schema's
// default.
type ElicitAnswer struct {
	Action  string
	Content map[string]any
}

// DefaultsAnswer accepts an elicitation with the schema's defaults, which
// a script may ask for: it declines instead when a required field has no
// default, as no answer vq could make up would be the user's.
func DefaultsAnswer(e Elicitation) ElicitAnswer {
	content := map[string]any{}
	for _, f := range e.Fields {
		if f.Default == nil {
			if f.Required {
				return ElicitAnswer{Action: ElicitDecline}
			}
			continue
		}
		content[f.Name] = f.Default
	}
	return ElicitAnswer{Action: ElicitAccept, Content: content}
}

// onElicit answers an elicitation request through Options.Elicit. A URL
// elicitation asks the user to visit a page the server names: vq declines
// it rather than send anyone to a server's link.
func (c *Client) onElicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	p := req.Params
	if p == nil || p.Mode == "url" {
		return &mcp.ElicitResult{Action: ElicitDecline}, nil
	}
	e := Elicitation{Message: p.Message}
	var schema struct {
		Properties map[string]struct {
			Type        string   `json:"type"`
			Title       string   `json:"title"`
			Description string   `json:"description"`
			Enum        []string `json:"enum"`
			EnumNames   []string `json:"enumNames"`
			Default     any      `json:"default"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if b, err := json.Marshal(p.RequestedSchema); err == nil {
		_ = json.Unmarshal(b, &schema) // a schema vq cannot read asks for no fields
	}
	for name, prop := range schema.Properties {
		e.Fields = append(e.Fields, ElicitField{
			Name: name, Title: prop.Title, Description: prop.Description, Type: prop.Type,
			Required: slices.Contains(schema.Required, name), Enum: prop.Enum, EnumNames: prop.EnumNames, Default: prop.Default,
		})
	}
	slices.SortFunc(e.Fields, func(a, b ElicitField) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	answer, err := c.opts.Elicit(ctx, e)
	if err != nil {
		return nil, err
	}
	return &mcp.ElicitResult{Action: answer.Action, Content: answer.Content}, nil
}
