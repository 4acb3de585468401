package api

// Elicitation is a server's request for input from the user during a call
// (MCP elicitation, form mode): a message and the flat fields it asks for,
// each field's choices in one list however the schema spells them
// (TestElicitationSchemaIsReadAsTheFormAsks). All of it is server text:
// whoever shows it sanitizes it.
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

// The actions an elicitation is answered with (mcp.ElicitResult's).
const (
	ElicitAccept  = "accept"
	ElicitDecline = "decline"
	ElicitCancel  = "cancel"
)
