package docs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// document is the part of an OpenAPI 3.1 document the reference page and the
// collection use, in the document's order.
type document struct {
	Title, Version, Description string
	Tags                        []tag
	Ops                         []operation
	Schemas                     []namedNode // components.schemas
	components                  map[string]map[string]*yaml.Node
	security                    *yaml.Node // the document's default security requirements
}

type tag struct{ Name, Description string }

type namedNode struct {
	Name string
	Node *yaml.Node
}

type operation struct {
	Method, Path, ID string
	Tags             []string
	Summary, Desc    string
	Public           bool // no bearer token (security without bearerAuth)
	Params           []parameter
	Body             *body
	Responses        []response
	sandbox          bool
}

type parameter struct {
	Name, In, Desc string
	Required       bool
	Schema         *yaml.Node
}

type body struct {
	Desc     string
	Required bool
	Content  []media
}

type media struct {
	Type    string
	Schema  *yaml.Node // as written ($ref not resolved)
	Example *yaml.Node // example, or the value of the first of examples; nil when none
}

type response struct {
	Status, Desc string
	Content      []media
}

var methods = []string{"get", "put", "post", "delete", "patch", "head", "options", "trace"}

// parse reads an OpenAPI document.
func parse(src []byte) (*document, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(src, &root); err != nil {
		return nil, fmt.Errorf("openapi.yaml: %w", err)
	}
	if len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("openapi.yaml: not a mapping")
	}
	top := root.Content[0]
	d := &document{components: map[string]map[string]*yaml.Node{}}
	if info := get(top, "info"); info != nil {
		d.Title, d.Version, d.Description = str(get(info, "title")), str(get(info, "version")), str(get(info, "description"))
	}
	for _, t := range items(get(top, "tags")) {
		d.Tags = append(d.Tags, tag{Name: str(get(t, "name")), Description: str(get(t, "description"))})
	}
	d.security = get(top, "security")
	for _, kv := range pairs(get(top, "components")) {
		m := map[string]*yaml.Node{}
		for _, c := range pairs(kv.Node) {
			m[c.Name] = c.Node
			if kv.Name == "schemas" {
				d.Schemas = append(d.Schemas, c)
			}
		}
		d.components[kv.Name] = m
	}
	for _, p := range pairs(get(top, "paths")) {
		for _, mk := range pairs(p.Node) {
			if !slices.Contains(methods, mk.Name) {
				continue
			}
			op, err := d.operation(p.Name, mk.Name, mk.Node, items(get(p.Node, "parameters")))
			if err != nil {
				return nil, err
			}
			d.Ops = append(d.Ops, op)
		}
	}
	return d, nil
}

// operation reads one operation; shared are the parameters of its path item,
// which the operation's own (same name and place) override.
func (d *document) operation(path, method string, n *yaml.Node, shared []*yaml.Node) (operation, error) {
	op := operation{Method: strings.ToUpper(method), Path: path, ID: str(get(n, "operationId")),
		Summary: str(get(n, "summary")), Desc: str(get(n, "description")), sandbox: strings.HasPrefix(path, "/_sandbox")}
	for _, t := range items(get(n, "tags")) {
		op.Tags = append(op.Tags, str(t))
	}
	sec := get(n, "security")
	if sec == nil {
		sec = d.security
	}
	op.Public = true
	for _, req := range items(sec) {
		if get(req, "bearerAuth") != nil {
			op.Public = false
		}
	}
	for _, pn := range append(append([]*yaml.Node(nil), shared...), items(get(n, "parameters"))...) {
		pn = d.resolve(pn)
		p := parameter{Name: str(get(pn, "name")), In: str(get(pn, "in")),
			Desc: str(get(pn, "description")), Required: str(get(pn, "required")) == "true", Schema: get(pn, "schema")}
		if i := slices.IndexFunc(op.Params, func(q parameter) bool { return q.Name == p.Name && q.In == p.In }); i >= 0 {
			op.Params[i] = p
			continue
		}
		op.Params = append(op.Params, p)
	}
	if rb := get(n, "requestBody"); rb != nil {
		rb = d.resolve(rb)
		op.Body = &body{Desc: str(get(rb, "description")), Required: str(get(rb, "required")) == "true", Content: d.media(get(rb, "content"))}
	}
	for _, r := range pairs(get(n, "responses")) {
		rn := d.resolve(r.Node)
		op.Responses = append(op.Responses, response{Status: r.Name, Desc: str(get(rn, "description")), Content: d.media(get(rn, "content"))})
	}
	if op.ID == "" {
		return op, fmt.Errorf("openapi.yaml: %s %s has no operationId", op.Method, path)
	}
	return op, nil
}

func (d *document) media(n *yaml.Node) []media {
	var out []media
	for _, c := range pairs(n) {
		m := media{Type: c.Name, Schema: get(c.Node, "schema"), Example: get(c.Node, "example")}
		if m.Example == nil {
			if ex := pairs(get(c.Node, "examples")); len(ex) > 0 {
				m.Example = get(d.resolve(ex[0].Node), "value")
			}
		}
		out = append(out, m)
	}
	return out
}

// resolve follows a local $ref ("#/components/<kind>/<name>"), once per hop.
func (d *document) resolve(n *yaml.Node) *yaml.Node {
	for range 8 {
		ref := str(get(n, "$ref"))
		if ref == "" {
			return n
		}
		kind, name, ok := refTarget(ref)
		if !ok || d.components[kind][name] == nil {
			return n
		}
		n = d.components[kind][name]
	}
	return n
}

// refTarget splits "#/components/schemas/Name".
func refTarget(ref string) (kind, name string, ok bool) {
	rest, ok := strings.CutPrefix(ref, "#/components/")
	if !ok {
		return "", "", false
	}
	kind, name, ok = strings.Cut(rest, "/")
	return kind, name, ok
}

// get returns the value of key in mapping n, or nil.
func get(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// pairs returns the entries of mapping n in order.
func pairs(n *yaml.Node) []namedNode {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	out := make([]namedNode, 0, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		out = append(out, namedNode{Name: n.Content[i].Value, Node: n.Content[i+1]})
	}
	return out
}

// items returns the elements of sequence n.
func items(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}

func str(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

// toJSON renders a YAML value as indented JSON, keeping mapping order and
// numbers as written (10.50 stays 10.50).
func toJSON(n *yaml.Node) string {
	var b bytes.Buffer
	writeJSON(&b, n, "")
	return b.String()
}

func writeJSON(b *bytes.Buffer, n *yaml.Node, indent string) {
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	switch n.Kind {
	case yaml.MappingNode:
		if len(n.Content) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i := 0; i+1 < len(n.Content); i += 2 {
			b.WriteString(indent + "  ")
			k, _ := json.Marshal(n.Content[i].Value)
			b.Write(k)
			b.WriteString(": ")
			writeJSON(b, n.Content[i+1], indent+"  ")
			if i+2 < len(n.Content) {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
	case yaml.SequenceNode:
		if len(n.Content) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, c := range n.Content {
			b.WriteString(indent + "  ")
			writeJSON(b, c, indent+"  ")
			if i+1 < len(n.Content) {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	default:
		b.WriteString(scalarJSON(n))
	}
}

func scalarJSON(n *yaml.Node) string {
	switch n.Tag {
	case "!!int", "!!float":
		if _, err := strconv.ParseFloat(n.Value, 64); err == nil && json.Valid([]byte(n.Value)) {
			return n.Value
		}
	case "!!bool":
		if n.Value == "true" || n.Value == "false" {
			return n.Value
		}
	case "!!null":
		return "null"
	}
	s, _ := json.Marshal(n.Value)
	return string(s)
}
