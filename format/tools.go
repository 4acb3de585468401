package format

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/textsafe"
)

// Tools writes a server's tool list as a table: name, access (from the
// annotations), arguments (* required, :type) and description.
func Tools(out io.Writer, tools []api.Tool) error {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tACCESS\tARGUMENTS\tDESCRIPTION")
	for _, t := range tools {
		desc := t.Description
		if t.Title != "" {
			desc = t.Title + ": " + desc
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", textsafe.SanitizeLine(t.Name), access(t), textsafe.SanitizeLine(argSummary(t.Arguments)), textsafe.SanitizeLine(desc))
	}
	return w.Flush()
}

// access renders the annotations: MCP presumes a tool that is not read-only
// may be destructive unless it says otherwise.
func access(t api.Tool) string {
	switch {
	case t.ReadOnly:
		return "read-only"
	case t.Destructive != nil && !*t.Destructive:
		return "write"
	default:
		return "destructive"
	}
}

func argSummary(args []api.ToolArg) string {
	if len(args) == 0 {
		return "-"
	}
	parts := make([]string, len(args))
	for i, a := range args {
		p := a.Name
		if a.Required {
			p += "*"
		}
		if a.Type != "" {
			p += ":" + a.Type
		}
		parts[i] = p
	}
	return strings.Join(parts, " ")
}
