package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The docs show the dependency table in two generated blocks, each between a
// begin and an end marker line: the packages, one line each, and their rules.
var docBlocks = []struct {
	name   string
	render func(module string, cfg Config) string
}{
	{"packages", renderPackages},
	{"deps", renderDeps},
}

func beginMarker(name string) string {
	return "<!-- " + name + ":begin: generated from cmd/pixlint/rules.go by `go run ./cmd/pixlint -write-docs`; do not edit -->"
}

func endMarker(name string) string { return "<!-- " + name + ":end -->" }

// renderPackages lists the packages with what each is, in the table's
// order, grouped by layer, top first, when there are layers.
func renderPackages(_ string, cfg Config) string {
	var b strings.Builder
	if len(cfg.Layers) == 0 {
		for _, r := range cfg.Rules {
			fmt.Fprintf(&b, "- `%s` — %s\n", r.Pkg, r.Note)
		}
		return b.String()
	}
	b.WriteString("From the top: a package imports from its own layer or the layers below it, never above (`make lint`).\n")
	for i, l := range cfg.Layers {
		fmt.Fprintf(&b, "\n**%d. %s** — %s\n\n", i+1, l.Name, l.Note)
		for _, r := range cfg.Rules {
			if at, _ := layerOf(cfg.Layers, r.Pkg); at == i {
				fmt.Fprintf(&b, "- `%s` — %s\n", r.Pkg, r.Note)
			}
		}
	}
	return b.String()
}

// renderDeps is the rules as a Markdown table, one row per package.
func renderDeps(module string, cfg Config) string {
	rules := cfg.Rules
	var b strings.Builder
	fmt.Fprintf(&b, "Names are relative to `%s`; `x/...` is x and every package under it; a third-party module covers its packages. ", module)
	b.WriteString("Every package may use the standard library except what its *never* column names, and *never* holds through ")
	b.WriteString("every dependency, not only direct imports. The rows bind non-test files; tests may import anything.\n\n")
	b.WriteString("| package | may import (module) | may import (third-party) | never, even indirectly |\n")
	b.WriteString("| --- | --- | --- | --- |\n")
	for _, r := range rules {
		var mod, third []string
		for _, a := range r.Allow {
			if thirdParty(a) {
				third = append(third, a)
			} else {
				mod = append(mod, a)
			}
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", r.Pkg, codeList(mod), codeList(third), codeList(r.Never))
	}
	return b.String()
}

func codeList(s []string) string {
	if len(s) == 0 {
		return "—"
	}
	return "`" + strings.Join(s, "`, `") + "`"
}

// splice returns doc with the block called name replaced by content, or an
// error when its markers are missing or out of order.
func splice(doc []byte, name, content string) ([]byte, error) {
	begin, end := beginMarker(name), endMarker(name)
	i := bytes.Index(doc, []byte(begin))
	j := bytes.Index(doc, []byte(end))
	if i < 0 || j < i {
		return nil, fmt.Errorf("no %q … %q block", begin, end)
	}
	var out bytes.Buffer
	out.Write(doc[:i+len(begin)])
	out.WriteString("\n")
	out.WriteString(content)
	out.Write(doc[j:])
	return out.Bytes(), nil
}

// generatedDoc reads the docs file and returns it as it is and as the table
// wants it.
func generatedDoc(cfg Config) (path string, current, want []byte, err error) {
	path = filepath.Join(cfg.Root, filepath.FromSlash(cfg.Docs))
	if current, err = os.ReadFile(path); err != nil {
		return path, nil, nil, err
	}
	mod, err := modulePath(filepath.Join(cfg.Root, "go.mod"))
	if err != nil {
		return path, nil, nil, err
	}
	want = current
	for _, blk := range docBlocks {
		if want, err = splice(want, blk.name, blk.render(mod, cfg)); err != nil {
			return path, nil, nil, err
		}
	}
	return path, current, want, nil
}

// checkDepsDoc reports a docs file whose generated blocks differ from the table.
func checkDepsDoc(cfg Config) []Finding {
	if cfg.Docs == "" {
		return nil
	}
	_, current, want, err := generatedDoc(cfg)
	if err != nil {
		return []Finding{{"docs", cfg.Docs, err.Error()}}
	}
	if !bytes.Equal(current, want) {
		return []Finding{{"docs", cfg.Docs, "the package list or the dependency table differs from cmd/pixlint/rules.go: run go run ./cmd/pixlint -write-docs"}}
	}
	return nil
}

// writeDepsDoc regenerates the docs' blocks and says whether the file changed.
func writeDepsDoc(cfg Config) (bool, error) {
	if cfg.Docs == "" {
		return false, nil
	}
	path, current, want, err := generatedDoc(cfg)
	if err != nil {
		return false, fmt.Errorf("%s: %w", cfg.Docs, err)
	}
	if bytes.Equal(current, want) {
		return false, nil
	}
	return true, os.WriteFile(path, want, 0o644)
}
