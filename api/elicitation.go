package api

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
	// Type is string, number, integer, boolean, or array: several of Enum
	// picked (a multi-select). Any other (an array of free values, a
	// property vq could not read) cannot be asked.
	Type     string
	Required bool
	// Enum are the choices of a string field (of an array's items),
	// EnumNames their labels when the server gave them (one per choice):
	// its enumNames, or the titles of a titled enum (oneOf or anyOf const
	// and title).
	Enum, EnumNames []string
	// Minimum and Maximum bound a number, MinLength and MaxLength the
	// characters of a string; nil where the schema sets no bound.
	Minimum, Maximum     *float64
	MinLength, MaxLength *int
	// MinItems and MaxItems bound how many an array picks.
	MinItems, MaxItems *int
	// Default is the schema's default, nil when there is none.
	Default any
}

// Askable reports whether a person can answer every field: each is of a
// kind vq asks for.
func (e Elicitation) Askable() bool {
	for _, f := range e.Fields {
		switch {
		case f.Type == "string", f.Type == "number", f.Type == "integer", f.Type == "boolean":
		case f.Type == "array" && len(f.Enum) > 0:
		default:
			return false
		}
	}
	return true
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

// Outcome is the answer as vq reports it: accepted, declined or
// cancelled.
func (a ElicitAnswer) Outcome() string {
	switch a.Action {
	case ElicitAccept:
		return "accepted"
	case ElicitCancel:
		return "cancelled"
	}
	return "declined"
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
