package main

import (
	"fmt"
	"strings"
)

// A Layer is one floor of the module (layerTable): the non-test files of its
// packages import packages of their own layer or of the layers below it,
// never of a layer above. The dependency table's rows say exactly what each
// package may import; the layers say which way every import points, so a new
// row cannot reach upwards by accident, and the docs draw the map by them.
type Layer struct {
	Name string
	Pkgs []string // entries as in a Rule: a package, or "x/..." for x and every package under it
	Note string   // what the layer is, for the docs
}

// layerOf returns the index of the layer holding pkg and the entry that
// placed it there, preferring an exact entry to a subtree ("x/..."), then
// the longer subtree; -1 when no layer holds it.
func layerOf(layers []Layer, pkg string) (int, string) {
	best, entry := -1, ""
	for i, l := range layers {
		for _, e := range l.Pkgs {
			if !matches(e, pkg) {
				continue
			}
			if best < 0 || specificity(e) > specificity(entry) {
				best, entry = i, e
			}
		}
	}
	return best, entry
}

// specificity orders the entries that match one package: a package named
// exactly over any subtree, a deeper subtree over a shallower one.
func specificity(entry string) int {
	if tree, ok := strings.CutSuffix(entry, "/..."); ok {
		return len(tree)
	}
	return 1 << 20
}

// checkLayers places every package of the tree in a layer and holds each of
// its non-test imports of the module to its own layer or one below. Without
// layers there is nothing to check.
func checkLayers(t *tree, layers []Layer) []Finding {
	if len(layers) == 0 {
		return nil
	}
	var out []Finding
	for _, p := range t.Packages {
		own, _ := layerOf(layers, p.Rel)
		if own < 0 {
			out = append(out, Finding{"layers", p.Rel, "in no layer: add it to a layer of layerTable in cmd/pixlint/rules.go, then go run ./cmd/pixlint -write-docs"})
			continue
		}
		for _, imp := range p.Imports {
			if !t.internal(imp) {
				continue
			}
			dep := t.rel(imp)
			if l, _ := layerOf(layers, dep); l >= 0 && l < own {
				out = append(out, Finding{"layers", p.Rel, fmt.Sprintf(
					"imports %s of the %s layer, above its own (%s): imports go to the same layer or down (cmd/pixlint/rules.go, layerTable)",
					dep, layers[l].Name, layers[own].Name)})
			}
		}
	}
	for _, l := range layers {
		for _, e := range l.Pkgs {
			if !t.holds(e) {
				out = append(out, Finding{"layers", e, "an entry of the " + l.Name + " layer (cmd/pixlint/rules.go, layerTable) names no package of the module: remove or rename it"})
			}
		}
	}
	return out
}

// holds reports whether a layer's entry names a package of the tree (a
// subtree: any package in it).
func (t *tree) holds(entry string) bool {
	for _, p := range t.Packages {
		if matches(entry, p.Rel) {
			return true
		}
	}
	return false
}
