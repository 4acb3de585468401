package format

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/textsafe"
)

// Tools writes a server's tool list as a table, each tool beside the vq command that
// fronts it (command's, "vq invoke" when none), then a block per tool with what the table
// has no room for; output is bounded (maxCell, maxArgsShown) whatever the server lists:
// --json has it all.
func Tools(out io.Writer, tools []api.Tool, command func(tool string) (string, bool)) error {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tCOMMAND\tACCESS\tARGUMENTS\tDESCRIPTION")
	for _, t := range tools {
		fronting, ok := command(t.Name)
		if !ok {
			fronting = "vq invoke"
		}
		writeRow(w, t.Name, fronting, access(t), argSummary(t.Arguments), titled(t.Description, t.Title))
	}
	// Lines without a tab end tabwriter's blocks: each tool aligns on its own.
	for _, t := range tools {
		fmt.Fprintf(w, "\n%s:\n  hints: %s\n", cell(t.Name), hints(t))
		if t.TaskSupport != "" {
			fmt.Fprintf(w, "  task support: %s\n", textsafe.SanitizeLine(t.TaskSupport))
		}
		writeArgs(w, "arguments", t.Arguments)
		writeArgs(w, "returns", t.Returns)
	}
	return w.Flush()
}

// access renders the annotations: MCP presumes a tool not read-only may be destructive unless it says not.
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

// hints renders every annotation hint, marking MCP's presumptions.
func hints(t api.Tool) string {
	parts := []string{"read-only"}
	if !t.ReadOnly {
		parts = []string{"writes", stated(t.Destructive, "destructive", "not destructive"), "not idempotent"}
		if t.Idempotent {
			parts[2] = "idempotent"
		}
	}
	parts = append(parts, stated(t.OpenWorld, "open world", "closed world"))
	return strings.Join(parts, ", ")
}

// stated renders a hint MCP presumes true when the server does not say.
func stated(hint *bool, yes, no string) string {
	switch {
	case hint == nil:
		return yes + " (presumed)"
	case *hint:
		return yes
	}
	return no
}

// Bounds on what one tool prints (an argument's values, arguments, cell bytes): a server may list 20k
// arguments of 3000 bytes, which no one reads and a terminal takes seconds to draw.
const (
	maxEnumShown = 20
	maxArgsShown = 30
	maxCell      = 256
)

func writeArgs(w io.Writer, heading string, args []api.ToolArg) {
	if len(args) == 0 {
		return
	}
	fmt.Fprintf(w, "  %s:\n", heading)
	for _, a := range args[:min(len(args), maxArgsShown)] {
		name := a.Name
		if a.Required {
			name += "*"
		}
		typ := a.Type
		if a.Items != "" {
			typ += " of " + a.Items
		}
		var facts []string
		if a.Description != "" {
			facts = append(facts, a.Description)
		}
		if len(a.Enum) > 0 {
			shown := a.Enum[:min(len(a.Enum), maxEnumShown)]
			values := "one of " + strings.Join(shown, ", ")
			if more := len(a.Enum) - len(shown); more > 0 {
				values += fmt.Sprintf(" and %d more", more)
			}
			facts = append(facts, values)
		}
		if a.Default != "" {
			facts = append(facts, "default "+a.Default)
		}
		writeRow(w, "    "+name, typ, strings.Join(facts, "; "))
	}
	if more := len(args) - maxArgsShown; more > 0 {
		fmt.Fprintf(w, "    +%d more (--json lists them all)\n", more)
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
	return Fitting(parts, " ", maxCell)
}

// Fitting joins items with sep within most bytes (the first always, cut), then the rest: "a b +9997 more".
func Fitting(items []string, sep string, most int) string {
	const room = 16 // for " +N more"
	var b strings.Builder
	for i, item := range items {
		if i > 0 && b.Len()+len(sep)+len(item) > most-room {
			fmt.Fprintf(&b, " +%d more", len(items)-i)
			break
		}
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(cut(item, most-room))
	}
	return b.String()
}

// Resources writes a server's resources and resource templates as two tables.
func Resources(out io.Writer, resources []*mcp.Resource, templates []*mcp.ResourceTemplate) error {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	if len(resources) > 0 {
		fmt.Fprintln(w, "URI\tNAME\tMIME TYPE\tDESCRIPTION")
		for _, r := range resources {
			writeRow(w, r.URI, titled(r.Name, r.Title), r.MIMEType, r.Description)
		}
	}
	if len(templates) > 0 {
		if len(resources) > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, "URI TEMPLATE\tNAME\tMIME TYPE\tDESCRIPTION")
		for _, r := range templates {
			writeRow(w, r.URITemplate, titled(r.Name, r.Title), r.MIMEType, r.Description)
		}
	}
	return w.Flush()
}

// Prompts writes a server's prompts as Tools writes tools.
func Prompts(out io.Writer, prompts []*mcp.Prompt) error {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tARGUMENTS\tDESCRIPTION")
	args := make([][]api.ToolArg, len(prompts))
	for i, p := range prompts {
		for _, a := range p.Arguments {
			args[i] = append(args[i], api.ToolArg{Name: a.Name, Required: a.Required, Type: "string", Description: titled(a.Description, a.Title)})
		}
		writeRow(w, p.Name, argSummary(args[i]), titled(p.Description, p.Title))
	}
	for i, p := range prompts {
		if len(args[i]) > 0 {
			fmt.Fprintf(w, "\n%s:\n", textsafe.SanitizeLine(p.Name))
			writeArgs(w, "arguments", args[i])
		}
	}
	return w.Flush()
}

func titled(text, title string) string {
	if title == "" || title == text {
		return text
	}
	if text == "" {
		return title
	}
	return title + ": " + text
}

// writeRow writes server text as one sanitized row, no trailing empty cells (tabwriter pads each one).
func writeRow(w io.Writer, cells ...string) {
	for i, c := range cells {
		cells[i] = cell(c)
	}
	for len(cells) > 1 && cells[len(cells)-1] == "" {
		cells = cells[:len(cells)-1]
	}
	fmt.Fprintln(w, strings.Join(cells, "\t"))
}

// cell is server text as one line of at most maxCell bytes.
func cell(s string) string { return textsafe.SanitizeLine(cut(s, maxCell)) }

// cut is s cut to at most n bytes, the cut marked with "…".
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
