package api

import "encoding/json"

// Call is one tool invocation (the invoke body minus project and environment).
type Call struct {
	Tool string         `json:"tool"`
	Args map[string]any `json:"args"`
}

// Call is the action's call without confirm: a server cannot consent.
func (a NextAction) Call() Call {
	args := cloneArgs(a.Args)
	delete(args, ArgConfirm)
	return Call{Tool: a.Tool, Args: args}
}

// ValidToolName reports an MCP tool name not starting with '-' (a flag).
func ValidToolName(name string) bool {
	if name == "" || len(name) > 128 || name[0] == '-' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// WithConfirm returns a copy of the call with confirm: true.
func (c Call) WithConfirm() Call {
	args := cloneArgs(c.Args)
	args[ArgConfirm] = true
	return Call{Tool: c.Tool, Args: args}
}

func cloneArgs(in map[string]any) map[string]any {
	out := make(map[string]any, len(in)+1)
	for k, v := range in {
		out[k] = v
	}
	return out
}

// UniqueCalls keeps the first of calls with the same Key.
func UniqueCalls(calls []Call) []Call {
	seen := make(map[string]bool, len(calls))
	out := make([]Call, 0, len(calls))
	for _, c := range calls {
		k := c.Key()
		if !seen[k] {
			seen[k] = true
			out = append(out, c)
		}
	}
	return out
}

// Key tells calls apart by tool and arguments, consent aside.
func (c Call) Key() string {
	args := cloneArgs(c.Args)
	delete(args, ArgConfirm)
	b, err := json.Marshal(args)
	if err != nil {
		return c.Tool
	}
	return c.Tool + "\x00" + string(b)
}
