package api

// Elicitation is a server's request for input (MCP form mode), unsanitized.
type Elicitation struct {
	Message string
	Fields  []ElicitField
}

// ElicitField is one field of an elicitation's requested schema.
type ElicitField struct {
	Name, Title, Description string
	// Type is string, number, integer, boolean, or array (a multi-select of
	// Enum); any other cannot be asked.
	Type     string
	Required bool
	// Enum are the choices (of an array's items), EnumNames their labels
	// when the server gave them (enumNames, or a titled oneOf/anyOf).
	Enum, EnumNames []string
	// The schema's bounds and default; nil where it sets none.
	Minimum, Maximum     *float64
	MinLength, MaxLength *int
	MinItems, MaxItems   *int
	Default              any
}

// Askable reports whether every field is of a kind vq can ask for.
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
