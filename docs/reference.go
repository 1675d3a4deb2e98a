package docs

import (
	"bytes"
	"html"
	"html/template"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ReferenceHTML renders an OpenAPI document as one self-contained HTML page:
// a table of contents by tag, then every operation (parameters, request body
// with its example, responses) and every schema. It has no scripts and loads
// nothing: the styles are in the page, so it reads the same with no network.
func ReferenceHTML(openapi []byte) ([]byte, error) {
	d, err := parse(openapi)
	if err != nil {
		return nil, err
	}
	type opView struct {
		operation
		Anchor   string
		DescHTML template.HTML
		Params   []paramView
		Body     *bodyView
		Resp     []respView
	}
	type tagView struct {
		Name     string
		DescHTML template.HTML
		Ops      []*opView
	}
	var tags []*tagView
	byTag := map[string]*tagView{}
	for _, t := range d.Tags {
		tv := &tagView{Name: t.Name, DescHTML: markdown(t.Description)}
		tags = append(tags, tv)
		byTag[t.Name] = tv
	}
	for _, op := range d.Ops {
		name := "other"
		if len(op.Tags) > 0 {
			name = op.Tags[0]
		}
		tv := byTag[name]
		if tv == nil {
			tv = &tagView{Name: name}
			tags = append(tags, tv)
			byTag[name] = tv
		}
		ov := &opView{operation: op, Anchor: "op-" + op.ID, DescHTML: markdown(op.Desc)}
		for _, p := range op.Params {
			ov.Params = append(ov.Params, paramView{parameter: p, Type: schemaLabel(p.Schema), DescHTML: markdown(p.Desc)})
		}
		if op.Body != nil {
			ov.Body = &bodyView{Required: op.Body.Required, DescHTML: markdown(op.Body.Desc), Content: mediaViews(op.Body.Content)}
		}
		for _, r := range op.Responses {
			ov.Resp = append(ov.Resp, respView{Status: r.Status, DescHTML: markdown(r.Desc), Content: mediaViews(r.Content)})
		}
		tv.Ops = append(tv.Ops, ov)
	}
	var schemas []schemaView
	for _, s := range d.Schemas {
		schemas = append(schemas, schemaView{Name: s.Name, YAML: yamlHTML(s.Node)})
	}
	var buf bytes.Buffer
	err = referencePage.Execute(&buf, map[string]any{
		"Title": d.Title, "Version": d.Version, "DescHTML": markdown(d.Description),
		"Tags": tags, "Schemas": schemas,
	})
	return buf.Bytes(), err
}

type paramView struct {
	parameter
	Type     template.HTML
	DescHTML template.HTML
}

type bodyView struct {
	Required bool
	DescHTML template.HTML
	Content  []mediaView
}

type respView struct {
	Status   string
	DescHTML template.HTML
	Content  []mediaView
}

type mediaView struct {
	Type    string
	Schema  template.HTML
	Example string
}

type schemaView struct {
	Name string
	YAML template.HTML
}

func mediaViews(ms []media) []mediaView {
	var out []mediaView
	for _, m := range ms {
		v := mediaView{Type: m.Type, Schema: schemaLabel(m.Schema)}
		if m.Example != nil {
			v.Example = toJSON(m.Example)
		}
		out = append(out, v)
	}
	return out
}

// schemaLabel names a schema briefly: a link to a component, or its type.
func schemaLabel(n *yaml.Node) template.HTML {
	if n == nil {
		return ""
	}
	if ref := str(get(n, "$ref")); ref != "" {
		return refLink(ref)
	}
	if t := str(get(n, "type")); t != "" {
		if it := get(n, "items"); t == "array" && it != nil {
			return "array of " + schemaLabel(it)
		}
		label := template.HTMLEscapeString(t)
		if e := items(get(n, "enum")); len(e) > 0 {
			vals := make([]string, len(e))
			for i, v := range e {
				vals[i] = v.Value
			}
			label += ": " + template.HTMLEscapeString(strings.Join(vals, ", "))
		}
		return template.HTML(label)
	}
	if c := get(n, "const"); c != nil {
		return template.HTML("const " + template.HTMLEscapeString(c.Value))
	}
	for _, k := range []string{"oneOf", "anyOf", "allOf"} {
		if alts := items(get(n, k)); len(alts) > 0 {
			parts := make([]string, len(alts))
			for i, a := range alts {
				parts[i] = string(schemaLabel(a))
			}
			return template.HTML(k + " (" + strings.Join(parts, " | ") + ")")
		}
	}
	return "schema"
}

func refLink(ref string) template.HTML {
	kind, name, ok := refTarget(ref)
	if !ok || kind != "schemas" {
		return template.HTML(template.HTMLEscapeString(ref))
	}
	n := template.HTMLEscapeString(name)
	return template.HTML(`<a href="#schema-` + n + `">` + n + `</a>`)
}

var refLine = regexp.MustCompile(`\$ref: (?:&#39;|&#34;)?#/components/schemas/([A-Za-z0-9_.-]+)(?:&#39;|&#34;)?`)

// yamlHTML is a schema as YAML text with its $refs as links.
func yamlHTML(n *yaml.Node) template.HTML {
	out, err := yaml.Marshal(n)
	if err != nil {
		return ""
	}
	esc := template.HTMLEscapeString(string(out))
	return template.HTML(refLine.ReplaceAllString(esc, `$$ref: <a href="#schema-$1">$1</a>`))
}

var (
	mdCode = regexp.MustCompile("`([^`]+)`")
	mdBold = regexp.MustCompile(`\*\*([^*]+)\*\*`)
	mdLink = regexp.MustCompile(`\[([^\]]+)\]\((https?://[^)\s]+)\)`)
	mdItem = regexp.MustCompile(`^(\s*)(?:[-*]|\d+\.) (.*)$`)
)

// markdown renders the little Markdown the document uses: paragraphs, "#"
// headings, "-" and "1." lists, `code`, **bold** and http(s) links. Anything
// else stays text; everything is escaped first.
func markdown(src string) template.HTML {
	var b strings.Builder
	inline := func(s string) string {
		s = html.EscapeString(s)
		s = mdCode.ReplaceAllString(s, "<code>$1</code>")
		s = mdBold.ReplaceAllString(s, "<strong>$1</strong>")
		return mdLink.ReplaceAllString(s, `<a href="$2">$1</a>`)
	}
	for _, block := range strings.Split(strings.TrimSpace(src), "\n\n") {
		lines := strings.Split(strings.TrimSpace(block), "\n")
		if len(lines) == 0 || lines[0] == "" {
			continue
		}
		switch first := lines[0]; {
		case strings.HasPrefix(first, "#"):
			level := len(first) - len(strings.TrimLeft(first, "#"))
			b.WriteString("<p class=\"h" + string(rune('0'+min(level, 6))) + "\"><strong>" + inline(strings.TrimSpace(first[level:])) + "</strong></p>")
			if len(lines) > 1 {
				b.WriteString(string(markdown(strings.Join(lines[1:], "\n"))))
			}
		case mdItem.MatchString(first):
			tagName := "ul"
			if first = strings.TrimSpace(first); first[0] >= '0' && first[0] <= '9' {
				tagName = "ol"
			}
			b.WriteString("<" + tagName + ">")
			var item []string
			flush := func() {
				if len(item) > 0 {
					b.WriteString("<li>" + inline(strings.Join(item, " ")) + "</li>")
					item = nil
				}
			}
			for _, l := range lines {
				if m := mdItem.FindStringSubmatch(l); m != nil && len(m[1]) == 0 {
					flush()
					item = append(item, m[2])
				} else {
					item = append(item, strings.TrimSpace(l))
				}
			}
			flush()
			b.WriteString("</" + tagName + ">")
		default:
			b.WriteString("<p>" + inline(strings.Join(lines, " ")) + "</p>")
		}
	}
	return template.HTML(b.String())
}

var referencePage = template.Must(template.New("reference").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} {{.Version}} — API reference</title>
<style>
body{margin:0;font:15px/1.5 system-ui,sans-serif;color:#1d2433;display:flex}
nav{position:sticky;top:0;height:100vh;overflow:auto;width:18rem;flex:none;background:#f4f6f9;padding:1rem;box-sizing:border-box;font-size:13px}
nav a{display:block;color:#1d2433;text-decoration:none;padding:1px 0}
nav .tag{margin-top:.8rem;font-weight:600;text-transform:uppercase;font-size:12px;color:#5a6478}
main{padding:1rem 2rem;max-width:60rem;min-width:0}
h1{margin-top:0}
section.op{border:1px solid #dde2ea;border-radius:6px;padding:.5rem 1rem;margin:1rem 0}
.m{display:inline-block;min-width:4rem;font:600 12px monospace;padding:2px 6px;border-radius:3px;color:#fff;background:#5a6478;text-align:center}
.m-GET{background:#2f7d32}.m-POST{background:#1e5fb4}.m-PUT{background:#a25b00}.m-DELETE{background:#b3261e}.m-PATCH{background:#6a3fb0}
code,pre{font:13px ui-monospace,monospace}
pre{background:#f4f6f9;padding:.6rem;overflow:auto;border-radius:4px}
table{border-collapse:collapse;width:100%;margin:.4rem 0}
td,th{border-bottom:1px solid #dde2ea;text-align:left;padding:3px 6px;vertical-align:top}
.badge{font-size:11px;background:#eef1f6;border-radius:3px;padding:1px 5px;margin-left:.4rem}
</style>
</head>
<body>
<nav aria-label="Operations">
<a href="#top"><strong>{{.Title}} {{.Version}}</strong></a>
{{range .Tags}}{{if .Ops}}<div class="tag">{{.Name}}</div>{{range .Ops}}<a href="#{{.Anchor}}">{{.Method}} {{.Path}}</a>{{end}}{{end}}{{end}}
<div class="tag">schemas</div><a href="#schemas">Schemas</a>
</nav>
<main>
<h1 id="top">{{.Title}} <small>{{.Version}}</small></h1>
<p>The API document is also served as YAML at <a href="/_sandbox/openapi.yaml">/_sandbox/openapi.yaml</a>. <a href="/_sandbox/console">Console</a> · <a href="/healthz">/healthz</a></p>
{{.DescHTML}}
{{range .Tags}}{{if .Ops}}
<h2 id="tag-{{.Name}}">{{.Name}}</h2>
{{.DescHTML}}
{{range .Ops}}
<section class="op" id="{{.Anchor}}">
<h3><span class="m m-{{.Method}}">{{.Method}}</span> <code>{{.Path}}</code>{{if .Public}}<span class="badge">no token</span>{{end}}</h3>
<p><strong>{{.Summary}}</strong> <span class="badge">{{.ID}}</span></p>
{{.DescHTML}}
{{if .Params}}<h4>Parameters</h4>
<table><tr><th>Name</th><th>In</th><th>Type</th><th>Description</th></tr>
{{range .Params}}<tr><td><code>{{.Name}}</code>{{if .Required}} <em>required</em>{{end}}</td><td>{{.In}}</td><td>{{.Type}}</td><td>{{.DescHTML}}</td></tr>
{{end}}</table>{{end}}
{{with .Body}}<h4>Request body{{if .Required}} <em>required</em>{{end}}</h4>{{.DescHTML}}
{{range .Content}}<p><code>{{.Type}}</code>: {{.Schema}}</p>{{if .Example}}<pre>{{.Example}}</pre>{{end}}{{end}}{{end}}
<h4>Responses</h4>
<table><tr><th>Status</th><th>Description</th></tr>
{{range .Resp}}<tr><td><code>{{.Status}}</code></td><td>{{.DescHTML}}{{range .Content}}<p><code>{{.Type}}</code>: {{.Schema}}</p>{{if .Example}}<pre>{{.Example}}</pre>{{end}}{{end}}</td></tr>
{{end}}</table>
</section>
{{end}}{{end}}{{end}}
<h2 id="schemas">Schemas</h2>
{{range .Schemas}}<h3 id="schema-{{.Name}}">{{.Name}}</h3>
<pre>{{.YAML}}</pre>
{{end}}
</main>
</body>
</html>
`))
