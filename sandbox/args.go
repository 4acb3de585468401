package sandbox

import (
	"strings"

	"github.com/visualq/vq/api"
)

// args are a call's arguments as decoded JSON. Unknown arguments are
// ignored: commands pass extra KEY=VALUE pairs through.
type args map[string]any

// str reads an optional string argument; present is false when it is
// missing or null.
func (a args) str(name string) (value string, present bool, err error) {
	v, ok := a[name]
	if !ok || v == nil {
		return "", false, nil
	}
	s, ok := v.(string)
	if !ok {
		return "", true, refuse(api.CodeValidation, "%s must be a string, got %s", name, jsonType(v))
	}
	return s, true, nil
}

// requiredStr reads a string argument that must be present and not blank.
func (a args) requiredStr(name string) (string, error) {
	s, _, err := a.str(name)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(s) == "" {
		return "", refuse(api.CodeValidation, "%s is required", name)
	}
	return s, nil
}

// confirmed reports the write consent; only a JSON true counts, so a
// "true" string (KEY=VALUE instead of KEY:=JSON) is named as the mistake.
func (a args) confirmed() (bool, error) {
	v, ok := a["confirm"]
	if !ok || v == nil {
		return false, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, refuse(api.CodeValidation, "confirm must be the boolean true, got %s: send confirm: true (on vq's command line, confirm:=true)", jsonType(v))
	}
	return b, nil
}

func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	default:
		return "null"
	}
}
