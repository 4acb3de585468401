package api

// Call is one tool invocation: exactly the body POSTed to the invoke
// endpoint, minus project and environment which the client adds.
type Call struct {
	Tool string         `json:"tool"`
	Args map[string]any `json:"args"`
}

// Call turns a suggested action into the request it describes.
func (a NextAction) Call() Call {
	return Call{Tool: a.Tool, Args: cloneArgs(a.Args)}
}

// WithConfirm returns the call with confirm: true, the consent a write tool
// needs. The original is left untouched.
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
