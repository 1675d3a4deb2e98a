package docs

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// CollectionFile is where make collection writes PostmanCollection's output,
// relative to this directory.
const CollectionFile = "pixsandbox.postman_collection.json"

// postmanSchema identifies the Postman Collection v2.1 format (Bruno and
// Insomnia import it too).
const postmanSchema = "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"

type pmCollection struct {
	Info     pmInfo       `json:"info"`
	Auth     *pmAuth      `json:"auth"`
	Variable []pmVariable `json:"variable"`
	Item     []pmFolder   `json:"item"`
}

type pmInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Schema      string `json:"schema"`
}

type pmAuth struct {
	Type   string       `json:"type"`
	Bearer []pmVariable `json:"bearer,omitempty"`
}

type pmVariable struct {
	Key         string `json:"key"`
	Value       string `json:"value"`
	Type        string `json:"type,omitempty"`
	Description string `json:"description,omitempty"`
	Disabled    bool   `json:"disabled,omitempty"`
}

type pmFolder struct {
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Item        []pmItem `json:"item"`
}

type pmItem struct {
	Name    string    `json:"name"`
	Request pmRequest `json:"request"`
}

type pmRequest struct {
	Method      string       `json:"method"`
	Description string       `json:"description,omitempty"`
	Auth        *pmAuth      `json:"auth,omitempty"`
	Header      []pmVariable `json:"header"`
	URL         pmURL        `json:"url"`
	Body        *pmBody      `json:"body,omitempty"`
}

type pmURL struct {
	Raw      string       `json:"raw"`
	Host     []string     `json:"host"`
	Path     []string     `json:"path"`
	Query    []pmVariable `json:"query,omitempty"`
	Variable []pmVariable `json:"variable,omitempty"`
}

type pmBody struct {
	Mode    string `json:"mode"`
	Raw     string `json:"raw"`
	Options struct {
		Raw struct {
			Language string `json:"language"`
		} `json:"raw"`
	} `json:"options"`
}

var pathParam = regexp.MustCompile(`\{([^}/]+)\}`)

// PostmanCollection builds a Postman Collection v2.1 from an OpenAPI document:
// one folder per tag, one request per operation with its path, query and
// header parameters, and a JSON body from the operation's example (or a
// skeleton of its schema). Variables: baseUrl, accessToken (the bearer token of
// the PIX API), adminToken (X-Sandbox-Admin-Token of the control plane) and
// clientCert (X-SSL-Client-Cert of the token route). The output is
// deterministic: the same document gives the same bytes.
func PostmanCollection(openapi []byte) ([]byte, error) {
	d, err := parse(openapi)
	if err != nil {
		return nil, err
	}
	c := pmCollection{
		Info: pmInfo{Name: d.Title + " " + d.Version, Schema: postmanSchema,
			Description: "Generated from docs/openapi.yaml by make collection; do not edit by hand.\n\n" + d.Description},
		Auth: &pmAuth{Type: "bearer", Bearer: []pmVariable{{Key: "token", Value: "{{accessToken}}", Type: "string"}}},
		Variable: []pmVariable{
			{Key: "baseUrl", Value: "http://127.0.0.1:8080", Description: "the sandbox's address"},
			{Key: "accessToken", Value: "", Description: "access_token of POST /api/auth/token (or POST /_sandbox/accounts/{id}/token)"},
			{Key: "adminToken", Value: "", Description: "the server's --admin-token, sent as X-Sandbox-Admin-Token on /_sandbox (empty when it has none)"},
			{Key: "clientCert", Value: "", Description: "the URL-encoded PEM certificate (pixsandbox cert-header FILE)"},
		},
	}
	folders := map[string]int{}
	for _, t := range d.Tags {
		folders[t.Name] = len(c.Item)
		c.Item = append(c.Item, pmFolder{Name: t.Name, Description: t.Description})
	}
	for _, op := range d.Ops {
		tagName := "other"
		if len(op.Tags) > 0 {
			tagName = op.Tags[0]
		}
		i, ok := folders[tagName]
		if !ok {
			i = len(c.Item)
			folders[tagName] = i
			c.Item = append(c.Item, pmFolder{Name: tagName})
		}
		c.Item[i].Item = append(c.Item[i].Item, d.postmanItem(op))
	}
	kept := c.Item[:0]
	for _, f := range c.Item {
		if len(f.Item) > 0 {
			kept = append(kept, f)
		}
	}
	c.Item = kept
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(c); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func (d *document) postmanItem(op operation) pmItem {
	name := op.Summary
	if name == "" {
		name = op.ID
	}
	r := pmRequest{Method: op.Method, Description: op.Method + " " + op.Path + "\n\n" + op.Desc, Header: []pmVariable{}}
	if op.Public {
		r.Auth = &pmAuth{Type: "noauth"}
	}
	if op.sandbox {
		r.Header = append(r.Header, pmVariable{Key: "X-Sandbox-Admin-Token", Value: "{{adminToken}}", Description: "needed only when the server runs with --admin-token"})
	}
	path := pathParam.ReplaceAllString(op.Path, ":$1")
	r.URL = pmURL{Raw: "{{baseUrl}}" + path, Host: []string{"{{baseUrl}}"}, Path: strings.Split(strings.TrimPrefix(path, "/"), "/")}
	var query []string
	for _, p := range op.Params {
		v := pmVariable{Key: p.Name, Value: exampleValue(p.Schema), Description: p.Desc, Disabled: !p.Required}
		switch p.In {
		case "path":
			v.Disabled = false
			r.URL.Variable = append(r.URL.Variable, v)
		case "query":
			r.URL.Query = append(r.URL.Query, v)
			if p.Required {
				query = append(query, p.Name+"="+v.Value)
			}
		case "header":
			if strings.EqualFold(p.Name, "X-SSL-Client-Cert") {
				v.Value = "{{clientCert}}"
			}
			r.Header = append(r.Header, v)
		}
	}
	if len(query) > 0 {
		r.URL.Raw += "?" + strings.Join(query, "&")
	}
	if op.Path == "/api/auth/token" && !hasHeader(r.Header, "X-SSL-Client-Cert") {
		r.Header = append(r.Header, pmVariable{Key: "X-SSL-Client-Cert", Value: "{{clientCert}}", Description: "the client certificate, URL-encoded PEM"})
	}
	if op.Body != nil {
		for _, m := range op.Body.Content {
			if m.Type != "application/json" {
				continue
			}
			ex := m.Example
			if ex == nil {
				ex = d.skeleton(m.Schema, 0)
			}
			b := &pmBody{Mode: "raw", Raw: toJSON(ex)}
			b.Options.Raw.Language = "json"
			r.Body = b
			r.Header = append(r.Header, pmVariable{Key: "Content-Type", Value: "application/json"})
			break
		}
	}
	return pmItem{Name: name, Request: r}
}

func hasHeader(h []pmVariable, name string) bool {
	for _, v := range h {
		if strings.EqualFold(v.Key, name) {
			return true
		}
	}
	return false
}

// exampleValue is a parameter's example, default or first enum value as text.
func exampleValue(schema *yaml.Node) string {
	for _, k := range []string{"example", "default", "const"} {
		if n := get(schema, k); n != nil && n.Kind == yaml.ScalarNode {
			return n.Value
		}
	}
	if e := items(get(schema, "enum")); len(e) > 0 {
		return e[0].Value
	}
	return ""
}

// skeleton builds a body from a schema with no example: its example or
// default when it has one, else every property with a placeholder of its type.
func (d *document) skeleton(schema *yaml.Node, depth int) *yaml.Node {
	s := d.resolve(schema)
	for _, k := range []string{"example", "default", "const"} {
		if n := get(s, k); n != nil {
			return n
		}
	}
	if ex := items(get(s, "examples")); len(ex) > 0 {
		return ex[0]
	}
	if e := items(get(s, "enum")); len(e) > 0 {
		return e[0]
	}
	scalar := func(tag, v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: v} }
	if depth > 4 {
		return scalar("!!null", "null")
	}
	for _, k := range []string{"oneOf", "anyOf", "allOf"} {
		if alts := items(get(s, k)); len(alts) > 0 {
			return d.skeleton(alts[0], depth+1)
		}
	}
	typ := get(s, "type")
	t := str(typ)
	if typ != nil && typ.Kind == yaml.SequenceNode && len(typ.Content) > 0 {
		t = typ.Content[0].Value
	}
	switch t {
	case "object", "":
		props := pairs(get(s, "properties"))
		if t == "" && len(props) == 0 {
			return scalar("!!null", "null")
		}
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for _, p := range props {
			n.Content = append(n.Content, scalar("!!str", p.Name), d.skeleton(p.Node, depth+1))
		}
		return n
	case "array":
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		if it := get(s, "items"); it != nil {
			n.Content = append(n.Content, d.skeleton(it, depth+1))
		}
		return n
	case "integer", "number":
		return scalar("!!int", "0")
	case "boolean":
		return scalar("!!bool", "false")
	case "null":
		return scalar("!!null", "null")
	}
	return scalar("!!str", "")
}
