package mcpclient

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// The library's Validate recurses without a bound: a $ref loop overflows the
// stack (no recover catches it), and $refs applied twice over 32 levels take
// 2^32 steps (no context stops them). validationCost counts it first.
const (
	// validateSteps: a step is a schema applied to a value, or an entry of
	// its properties, patternProperties, required, enum.
	validateSteps        = 100_000
	validateStepsPerByte = 2      // so a large answer under a plain schema is still checked
	validateFrames       = 10_000 // a call takes about 4 KiB of stack
)

type schemaS = jsonschema.Schema

// validationCost is why instance (size bytes) is not checked against root, "" when Validate's work is
// bounded. It over-counts, so what it passes is safe: it carries to each value the schemas applied and
// how often (a $ref loop that stays on one value never ends), linear in the answer and steps counted.
func validationCost(root *schemaS, instance any, size int) string {
	g := schemaGraph{at: map[string]*schemaS{}, anchors: map[string]*schemaS{}}
	if why := g.index(root, ""); why != "" {
		return why
	}
	base, err := url.Parse(root.ID)
	if err != nil {
		return "its $id is not a URI"
	}
	g.base = (&url.URL{}).ResolveReference(base) // as Resolve resolves it
	g.base.Fragment, g.base.RawFragment = "", ""
	w := schemaWalk{g: &g, same: map[*schemaS][]*schemaS{}, budget: validateSteps + validateStepsPerByte*size}
	return w.value(instance, map[*schemaS]int{root: 1}, 0)
}

// schemaGraph is where a schema's $refs lead.
type schemaGraph struct {
	at, anchors map[string]*schemaS // by JSON Pointer; by $anchor or $dynamicAnchor
	base        *url.URL            // the root's $id
}

var (
	pointerEscaper   = strings.NewReplacer("~", "~0", "/", "~1")
	pointerUnescaper = strings.NewReplacer("~0", "~", "~1", "/")
)

// index records s at path, and all under it. An inner $id is refused, so the
// root is the only base, and a $dynamicRef leads where a $ref to its anchor does.
func (g *schemaGraph) index(s *schemaS, path string) string {
	if path != "" && s.ID != "" {
		return "it has an $id inside, which vq does not resolve"
	}
	g.at[path] = s
	for _, a := range []string{s.Anchor, s.DynamicAnchor} {
		if a != "" {
			g.anchors[a] = s
		}
	}
	var why string
	eachSubschema(s, func(key string, c *schemaS) {
		if why == "" {
			why = g.index(c, path+key)
		}
	})
	return why
}

// eachSubschema calls f with every subschema of s and its JSON Pointer.
func eachSubschema(s *schemaS, f func(key string, c *schemaS)) {
	for k, c := range map[string]*schemaS{"not": s.Not, "if": s.If, "then": s.Then, "else": s.Else, "items": s.Items,
		"additionalItems": s.AdditionalItems, "contains": s.Contains, "unevaluatedItems": s.UnevaluatedItems,
		"additionalProperties": s.AdditionalProperties, "propertyNames": s.PropertyNames,
		"unevaluatedProperties": s.UnevaluatedProperties, "contentSchema": s.ContentSchema} {
		if c != nil {
			f("/"+k, c)
		}
	}
	for k, cs := range map[string][]*schemaS{"allOf": s.AllOf, "anyOf": s.AnyOf, "oneOf": s.OneOf, "prefixItems": s.PrefixItems, "items": s.ItemsArray} {
		for i, c := range cs {
			f("/"+k+"/"+strconv.Itoa(i), c)
		}
	}
	for k, cs := range map[string]map[string]*schemaS{"$defs": s.Defs, "definitions": s.Definitions, "properties": s.Properties,
		"patternProperties": s.PatternProperties, "dependentSchemas": s.DependentSchemas, "dependencies": s.DependencySchemas} {
		for name, c := range cs {
			f("/"+k+"/"+pointerEscaper.Replace(name), c)
		}
	}
}

// target is the schema a $ref names, nil when vq cannot tell.
func (g *schemaGraph) target(ref string) *schemaS {
	u, err := g.base.Parse(ref)
	if err != nil {
		return nil
	}
	frag := u.Fragment
	u.Fragment, u.RawFragment = "", ""
	if u.String() != g.base.String() {
		return nil
	}
	if frag != "" && frag[0] != '/' {
		return g.anchors[frag]
	}
	key := ""
	for _, seg := range strings.Split(frag, "/")[1:] {
		key += "/" + pointerEscaper.Replace(pointerUnescaper.Replace(seg))
	}
	return g.at[key]
}

// schemaWalk counts Validate's steps down an answer.
type schemaWalk struct {
	g             *schemaGraph
	same          map[*schemaS][]*schemaS // inPlace, memoized
	steps, budget int
}

// value counts the steps of validating v under applied (schema → times), frames deep.
func (w *schemaWalk) value(v any, applied map[*schemaS]int, frames int) string {
	order, deepest, why := w.order(applied, frames)
	if why != "" {
		return why
	}
	for _, s := range order {
		if w.steps += applied[s] * (1 + len(s.Properties) + len(s.PatternProperties) + len(s.Required) + len(s.Enum)); w.steps > w.budget {
			return fmt.Sprintf("checking it would apply its subschemas more than %d times", w.budget)
		}
	}
	if frames += deepest + 1; frames > validateFrames {
		return fmt.Sprintf("checking it would nest more than %d schemas deep", validateFrames)
	}
	switch v := v.(type) {
	case map[string]any:
		return w.members(v, order, applied, frames)
	case []any:
		return w.items(v, order, applied, frames)
	}
	return ""
}

// inPlace is the schemas that s applies to the value it is applied to.
func (w *schemaWalk) inPlace(s *schemaS) []*schemaS {
	if out, ok := w.same[s]; ok {
		return out
	}
	out := slices.Concat(s.AllOf, s.AnyOf, s.OneOf)
	for _, ref := range []string{s.Ref, s.DynamicRef} {
		if ref != "" {
			out = append(out, w.g.target(ref))
		}
	}
	for _, c := range []*schemaS{s.Not, s.If, s.Then, s.Else} {
		if c != nil {
			out = append(out, c)
		}
	}
	for _, m := range []map[string]*schemaS{s.DependentSchemas, s.DependencySchemas} {
		for _, c := range m {
			out = append(out, c)
		}
	}
	w.same[s] = out
	return out
}

// order is the schemas applied leads to on the same value, topologically,
// adding their counts to applied, and the depth of the deepest; a loop never ends.
func (w *schemaWalk) order(applied map[*schemaS]int, frames int) ([]*schemaS, int, string) {
	order := slices.Collect(maps.Keys(applied))
	if !slices.ContainsFunc(order, func(s *schemaS) bool { return len(w.inPlace(s)) > 0 }) {
		return order, 0, "" // the common case, and quick
	}
	done := map[*schemaS]bool{} // false: on the path being followed
	order = order[:0]
	var follow func(s *schemaS, frames int) string
	follow = func(s *schemaS, frames int) string {
		if s == nil {
			return "it has a $ref vq cannot follow"
		}
		if finished, seen := done[s]; seen {
			if !finished {
				return "it applies itself to a value without going into it (a $ref loop), which never ends"
			}
			return ""
		}
		if frames > validateFrames {
			return fmt.Sprintf("checking it would nest more than %d schemas deep", validateFrames)
		}
		done[s] = false
		for _, t := range w.inPlace(s) {
			if why := follow(t, frames+1); why != "" {
				return why
			}
		}
		done[s] = true
		order = append(order, s)
		return ""
	}
	for s := range applied {
		if why := follow(s, frames); why != "" {
			return nil, 0, why
		}
	}
	slices.Reverse(order)
	depth, deepest := map[*schemaS]int{}, 0
	for _, s := range order {
		deepest = max(deepest, depth[s])
		for _, t := range w.inPlace(s) {
			applied[t] = min(applied[t]+applied[s], w.budget+1)
			depth[t] = max(depth[t], depth[s]+1)
		}
	}
	return order, deepest, ""
}

type applying struct {
	s *schemaS
	n int
}

// members counts the steps of validating an object's members and names.
func (w *schemaWalk) members(v map[string]any, order []*schemaS, applied map[*schemaS]int, frames int) string {
	var every, names []applying
	named := map[string][]applying{}
	for _, s := range order {
		n := applied[s]
		for name, c := range s.Properties {
			if _, ok := v[name]; ok {
				named[name] = append(named[name], applying{c, n})
			}
		}
		for _, c := range slices.Concat(slices.Collect(maps.Values(s.PatternProperties)), []*schemaS{s.AdditionalProperties, s.UnevaluatedProperties}) {
			if c != nil {
				every = append(every, applying{c, n})
			}
		}
		if s.PropertyNames != nil {
			names = append(names, applying{s.PropertyNames, n * len(v)})
		}
	}
	under := map[*schemaS]int{}
	for name, member := range v {
		if why := w.into(member, under, frames, every, named[name]); why != "" {
			return why
		}
	}
	return w.into("", under, frames, names)
}

// items counts the steps of validating an array's items.
func (w *schemaWalk) items(v []any, order []*schemaS, applied map[*schemaS]int, frames int) string {
	var every []applying
	leading := map[int][]applying{}
	for _, s := range order {
		n := applied[s]
		for _, prefix := range [][]*schemaS{s.PrefixItems, s.ItemsArray} {
			for i, c := range prefix[:min(len(prefix), len(v))] {
				leading[i] = append(leading[i], applying{c, n})
			}
		}
		for _, c := range []*schemaS{s.Items, s.AdditionalItems, s.Contains, s.UnevaluatedItems} {
			if c != nil {
				every = append(every, applying{c, n})
			}
		}
	}
	under := map[*schemaS]int{}
	for i, item := range v {
		if why := w.into(item, under, frames, every, leading[i]); why != "" {
			return why
		}
	}
	return ""
}

// into counts the steps of validating v under the lists, in under (emptied first).
func (w *schemaWalk) into(v any, under map[*schemaS]int, frames int, lists ...[]applying) string {
	clear(under)
	for _, list := range lists {
		for _, a := range list {
			under[a.s] = min(under[a.s]+a.n, w.budget+1)
		}
	}
	if len(under) == 0 {
		return ""
	}
	return w.value(v, under, frames)
}
