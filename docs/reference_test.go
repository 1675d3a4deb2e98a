package docs

import (
	"strings"
	"testing"
)

func TestReferenceHTML(t *testing.T) {
	page, err := ReferenceHTML(OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	d, err := parse(OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	html := string(page)
	if len(d.Ops) < 40 {
		t.Fatalf("parsed %d operations; the document has more", len(d.Ops))
	}
	for _, op := range d.Ops {
		if !strings.Contains(html, `id="op-`+op.ID+`"`) {
			t.Errorf("the page has no section for %s %s (%s)", op.Method, op.Path, op.ID)
		}
	}
	for _, s := range d.Schemas {
		if !strings.Contains(html, `id="schema-`+s.Name+`"`) {
			t.Errorf("the page has no section for schema %s", s.Name)
		}
	}
	for _, forbidden := range []string{"<script", "http://cdn", "https://cdn", "<link ", "@import"} {
		if strings.Contains(html, forbidden) {
			t.Errorf("the page contains %q: it must render with no network and no script", forbidden)
		}
	}
	// The token example keeps its fields in the document's order.
	if !strings.Contains(html, "&#34;clientId&#34;: &#34;0b8f5f0e-3c1d-4c57-9a55-6a3e1b2f9c10&#34;,\n  &#34;clientSecret&#34;") {
		t.Error("the token request example is not rendered as ordered JSON")
	}
}

func TestMarkdown(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{name: "paragraph and code", in: "Use `x<y`.", want: "<p>Use <code>x&lt;y</code>.</p>"},
		{name: "list", in: "- one\n- two\n  more", want: "<ul><li>one</li><li>two more</li></ul>"},
		{name: "ordered", in: "1. a\n2. **b**", want: "<ol><li>a</li><li><strong>b</strong></li></ol>"},
		{name: "heading", in: "## Title\ntext", want: `<p class="h2"><strong>Title</strong></p><p>text</p>`},
		{name: "link", in: "[x](https://e.test/a)", want: `<p><a href="https://e.test/a">x</a></p>`},
		{name: "no javascript link", in: "[x](javascript:alert(1))", want: "<p>[x](javascript:alert(1))</p>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(markdown(tt.in)); got != tt.want {
				t.Fatalf("markdown(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
