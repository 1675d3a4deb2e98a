package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The tests lint a small module, testdata/base (example.com/lintme), as it
// is and with the files of a testdata/cases/<name> directory laid over it.

// testConfig is the base module's config: its tables, as repoConfig is the
// repository's.
func testConfig(root string) Config {
	return Config{
		Root: root,
		Rules: []Rule{
			{Pkg: "domain", Never: []string{"net/http"}, Note: "the pure domain"},
			{Pkg: "clock", Note: "the wall clock"},
			{Pkg: "store", Allow: []string{"domain"}, Never: []string{"web"}, Note: "keeps values"},
			{Pkg: "web", Allow: []string{"domain"}, Never: []string{"store", "app"}, Note: "the transport"},
			{Pkg: "app", Allow: []string{"domain", "store", "clock", "web"}, Never: []string{"net/http"}, Note: "the wiring"},
		},
		Layers: []Layer{
			{Name: "wiring", Pkgs: []string{"app"}, Note: "puts it together"},
			{Name: "edge", Pkgs: []string{"web"}, Note: "what clients reach"},
			{Name: "base", Pkgs: []string{"store", "domain", "clock"}, Note: "what the rest stands on"},
		},
		Docs:         "docs/map.md",
		ClockPackage: "clock",
		WallClock: []WallClockUse{
			{"*_test.go", "tests have deadlines"},
			{"web/latency.go", "request latency"},
		},
		MaxComplexity:   25,
		MaxPackageLines: 3000,
		Makefile:        "Makefile",
	}
}

// module copies testdata/base and then the named cases' files to a new
// directory and returns it.
func module(t *testing.T, cases ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, src := range append([]string{"base"}, prefix("cases/", cases)...) {
		copyTree(t, filepath.Join("testdata", src), dir)
	}
	return dir
}

func prefix(p string, s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = p + x
	}
	return out
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func lint(t *testing.T, cfg Config) []Finding {
	t.Helper()
	findings, err := Lint(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return findings
}

// keep returns the findings ok keeps.
func keep(fs []Finding, ok func(Finding) bool) []Finding {
	var out []Finding
	for _, f := range fs {
		if ok(f) {
			out = append(out, f)
		}
	}
	return out
}

// only returns the findings of one check.
func only(check string, fs []Finding) []Finding {
	return keep(fs, func(f Finding) bool { return f.Check == check })
}

// at returns the findings at one place.
func at(where string, fs []Finding) []Finding {
	return keep(fs, func(f Finding) bool { return f.Where == where })
}

// want fails unless fs are exactly one finding per entry of wants, in order,
// each at the place and with the words given.
func want(t *testing.T, fs []Finding, wants ...[2]string) {
	t.Helper()
	if len(fs) != len(wants) {
		t.Fatalf("got %d findings, want %d:\n%s", len(fs), len(wants), dump(fs))
	}
	for i, w := range wants {
		if fs[i].Where != w[0] || !strings.Contains(fs[i].Msg, w[1]) {
			t.Errorf("finding %d: got %s, want at %s, saying %q", i, fs[i], w[0], w[1])
		}
	}
}

func dump(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString("  " + f.String() + "\n")
	}
	return b.String()
}

// TestBaseIsClean: the base has nothing to report. UPDATE_GOLDEN=1
// regenerates its doc's blocks first.
func TestBaseIsClean(t *testing.T) {
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if _, err := writeDepsDoc(testConfig(filepath.Join("testdata", "base"))); err != nil {
			t.Fatal(err)
		}
	}
	if fs := lint(t, testConfig(module(t))); len(fs) != 0 {
		t.Fatalf("the base module has findings:\n%s", dump(fs))
	}
}

func TestDeps_importNotInRow(t *testing.T) {
	t.Parallel()
	fs := only("deps", lint(t, testConfig(module(t, "badimport"))))
	want(t, at("store", fs),
		[2]string{"store", "imports web, which its row"},
		[2]string{"store", "depends on web (directly)"},
	)
	// app imports store, which now brings web and net/http.
	want(t, at("app", fs), [2]string{"app", "depends on net/http (through its dependencies)"})
}

func TestDeps_neverHoldsThroughDependencies(t *testing.T) {
	t.Parallel()
	fs := only("deps", lint(t, testConfig(module(t, "transitive"))))
	want(t, fs, [2]string{"app", "depends on net/http (through its dependencies)"})
}

func TestDeps_packageWithoutRow(t *testing.T) {
	t.Parallel()
	fs := only("deps", lint(t, testConfig(module(t, "norow"))))
	want(t, fs, [2]string{"extra", `no row in the dependency table: add one to cmd/pixlint/rules.go, e.g. {Pkg: "extra"`})
}

func TestDeps_rowWithoutPackage(t *testing.T) {
	t.Parallel()
	cfg := testConfig(module(t))
	cfg.Rules = append(cfg.Rules, Rule{Pkg: "gone", Note: "moved away"})
	cfg.Docs = ""
	want(t, lint(t, cfg), [2]string{"gone", "names no package of the module"})
}

func TestDeps_buildTagsAreRead(t *testing.T) {
	t.Parallel()
	cfg := testConfig(module(t, "tagged"))
	if fs := only("deps", lint(t, cfg)); len(fs) != 0 {
		t.Fatalf("without the tag set, found:\n%s", dump(fs))
	}
	cfg.BuildTags = [][]string{nil, {"special"}}
	want(t, at("store", only("deps", lint(t, cfg))),
		[2]string{"store", "imports web"},
		[2]string{"store", "depends on web"},
	)
}

// TestLayers_importUpALayer: an import its row allows still fails when it
// points at a layer above the importer's; a package in no layer and an
// entry naming nothing fail too.
func TestLayers_importUpALayer(t *testing.T) {
	t.Parallel()
	cfg := testConfig(module(t, "layerup"))
	cfg.Docs = ""
	cfg.Rules = slices.Clone(cfg.Rules)
	for i, r := range cfg.Rules {
		if r.Pkg == "store" {
			cfg.Rules[i].Allow = []string{"domain", "clock"}
		}
	}
	if fs := only("layers", lint(t, cfg)); len(fs) != 0 {
		t.Fatalf("with the clock in the store's layer, found:\n%s", dump(fs))
	}
	cfg.Layers = []Layer{
		{Name: "wiring", Pkgs: []string{"app"}},
		{Name: "edge", Pkgs: []string{"web", "clock"}},
		{Name: "base", Pkgs: []string{"store", "domain", "gone/..."}},
	}
	want(t, only("layers", lint(t, cfg)),
		[2]string{"gone/...", "names no package of the module"},
		[2]string{"store", "imports clock of the edge layer, above its own (base)"},
	)
	cfg.Layers = cfg.Layers[:2]
	want(t, at("domain", only("layers", lint(t, cfg))), [2]string{"domain", "in no layer"})
}

// A file beside a package's folder of the same name is found, a test file by
// the name it tests; the same name one folder down is not, nor a file beside
// a folder of assets (app/assets.go next to app/assets/).
func TestNames_fileBesideFolder(t *testing.T) {
	t.Parallel()
	cfg := testConfig(module(t, "samename"))
	want(t, only("names", lint(t, cfg)),
		[2]string{"app/sub.go", "shares its name with the package folder app/sub/ beside it"},
		[2]string{"app/sub_test.go", "shares its name with the package folder app/sub/ beside it"},
	)
}

// An exact entry places a package before a subtree that also holds it.
func TestLayerOf(t *testing.T) {
	layers := []Layer{{Name: "top", Pkgs: []string{"a/..."}}, {Name: "low", Pkgs: []string{"a/b", "c"}}}
	for pkg, want := range map[string]int{"a": 0, "a/x": 0, "a/b": 1, "c": 1, "d": -1} {
		if got, _ := layerOf(layers, pkg); got != want {
			t.Errorf("layerOf(%q) = %d, want %d", pkg, got, want)
		}
	}
}

func TestMatches(t *testing.T) {
	for _, c := range []struct {
		entry, pkg string
		want       bool
	}{
		{"simulator", "simulator", true},
		{"simulator", "simulator/pix", false},
		{"simulator/...", "simulator", true},
		{"simulator/...", "simulator/pix", true},
		{"simulator/...", "simulatortest", false},
		{"github.com/prometheus/client_golang", "github.com/prometheus/client_golang/prometheus/promhttp", true},
		{"github.com/prometheus/client_golang", "github.com/prometheus/client_golangx", false},
		{"net/http", "net/http", true},
		{"net/http", "net/http/httptest", false},
	} {
		if got := matches(c.entry, c.pkg); got != c.want {
			t.Errorf("matches(%q, %q) = %v, want %v", c.entry, c.pkg, got, c.want)
		}
	}
}

func TestWallClock(t *testing.T) {
	t.Parallel()
	fs := only("walltime", lint(t, testConfig(module(t, "walltime"))))
	want(t, fs,
		[2]string{"store/alias.go:6", "time.Since reads the wall clock"},
		[2]string{"store/now.go:6", "time.Now reads the wall clock"},
	)
}

func TestWallClock_staleAllowance(t *testing.T) {
	t.Parallel()
	cfg := testConfig(module(t))
	cfg.WallClock = append(cfg.WallClock, WallClockUse{"store", "nothing any more"})
	want(t, only("walltime", lint(t, cfg)), [2]string{"store", "allows no use any more"})
}

func TestWallClock_withoutTestAllowance(t *testing.T) {
	t.Parallel()
	cfg := testConfig(module(t))
	cfg.WallClock = cfg.WallClock[1:]
	want(t, only("walltime", lint(t, cfg)),
		[2]string{"domain/domain_test.go:9", "time.Now"},
		[2]string{"domain/domain_test.go:10", "time.Until"},
	)
}

func TestComplexity(t *testing.T) {
	t.Parallel()
	dir := module(t, "complex")
	cfg := testConfig(dir)
	want(t, only("complexity", lint(t, cfg)), [2]string{"app/busy.go:4", "Busy has cyclomatic complexity 27, over 25"})

	cfg.ComplexityExceptions = []ComplexityException{{"app", "Busy", 27}}
	if fs := only("complexity", lint(t, cfg)); len(fs) != 0 {
		t.Fatalf("with an exception up to 27:\n%s", dump(fs))
	}
	cfg.ComplexityExceptions = []ComplexityException{{"app", "Busy", 26}}
	want(t, only("complexity", lint(t, cfg)), [2]string{"app/busy.go:4", "over its temporary exception's 26"})

	cfg = testConfig(module(t))
	cfg.ComplexityExceptions = []ComplexityException{{"app", "Busy", 27}}
	want(t, only("complexity", lint(t, cfg)), [2]string{"app", "the exception for Busy (cmd/pixlint/exceptions.go) is no longer needed"})
}

func TestComplexity_ignoreDirective(t *testing.T) {
	t.Parallel()
	want(t, only("complexity", lint(t, testConfig(module(t, "ignore")))), [2]string{"app/hidden.go:3", "gocyclo:ignore"})
}

func TestSize(t *testing.T) {
	t.Parallel()
	cfg := testConfig(module(t, "complex")) // app: 10 + 74 lines
	cfg.MaxPackageLines = 50
	want(t, only("size", lint(t, cfg)), [2]string{"app", "84 lines of non-test Go, over 50"})

	cfg.SizeExceptions = []SizeException{{"app", 84}}
	if fs := only("size", lint(t, cfg)); len(fs) != 0 {
		t.Fatalf("with an exception up to 84:\n%s", dump(fs))
	}
	cfg.SizeExceptions = []SizeException{{"app", 80}, {"store", 100}}
	want(t, only("size", lint(t, cfg)),
		[2]string{"app", "over its temporary exception's 80"},
		[2]string{"store", "no longer needed"},
	)
	cfg.SizeExceptions = nil
	cfg.MaxPackageLines, cfg.WarnPackageLines = 100, 50
	if fs := only("size", lint(t, cfg)); len(fs) != 0 {
		t.Fatalf("in the warning band, no size problem:\n%s", dump(fs))
	}
	fs := only(warningCheck, lint(t, cfg))
	want(t, fs, [2]string{"app", "84 lines of non-test Go, in the warning band (50 to 100)"})
	if !fs[0].Warning() {
		t.Errorf("a package in the band is a warning: %+v", fs[0])
	}
	cfg.MaxPackageLines, cfg.WarnPackageLines = 50, 0
	cfg.SizeExempt = []string{"app"}
	if fs := only("size", lint(t, cfg)); len(fs) != 0 {
		t.Fatalf("app exempt:\n%s", dump(fs))
	}
}

func TestDocs_outOfDate(t *testing.T) {
	t.Parallel()
	cfg := testConfig(module(t))
	cfg.Rules[0].Note = "the domain, described anew"
	want(t, only("docs", lint(t, cfg)), [2]string{"docs/map.md", "run go run ./cmd/pixlint -write-docs"})

	changed, err := writeDepsDoc(cfg)
	if err != nil || !changed {
		t.Fatalf("writeDepsDoc: changed %v, %v", changed, err)
	}
	if fs := lint(t, cfg); len(fs) != 0 {
		t.Fatalf("after -write-docs:\n%s", dump(fs))
	}
	doc, _ := os.ReadFile(filepath.Join(cfg.Root, "docs", "map.md"))
	if !bytes.Contains(doc, []byte("- `domain` — the domain, described anew\n")) ||
		!bytes.Contains(doc, []byte("| `app` | `domain`, `store`, `clock`, `web` | — | `net/http` |\n")) {
		t.Fatalf("the regenerated doc:\n%s", doc)
	}
}

func TestDocs_hand_edited(t *testing.T) {
	t.Parallel()
	cfg := testConfig(module(t))
	path := filepath.Join(cfg.Root, "docs", "map.md")
	doc, _ := os.ReadFile(path)
	doc = bytes.Replace(doc, []byte("| `web` |"), []byte("| `web` (edited) |"), 1)
	if err := os.WriteFile(path, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	want(t, only("docs", lint(t, cfg)), [2]string{"docs/map.md", "differs from cmd/pixlint/rules.go"})

	if err := os.WriteFile(path, []byte("# Map\n\nno markers\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want(t, only("docs", lint(t, cfg)), [2]string{"docs/map.md", "no \"<!-- packages:begin"})
}

func TestFuzz(t *testing.T) {
	t.Parallel()
	tr, err := loadTree(testConfig(module(t)), false)
	if err != nil {
		t.Fatal(err)
	}
	if got := fuzzTargets(tr); !slices.Equal(got, []fuzzTarget{{"domain", "FuzzUpper"}}) {
		t.Fatalf("fuzz targets of the base: %v", got)
	}

	cfg := testConfig(module(t, "fuzz"))
	want(t, only("fuzz", lint(t, cfg)),
		[2]string{"Makefile", "does not take its list from go run ./cmd/pixlint -list-fuzz"},
		[2]string{"Makefile:2", "names the fuzz target FuzzUpper by hand"},
		[2]string{"domain/tagged_test.go", "a build constraint"},
		[2]string{"store/store_test.go:6", "FuzzWrong is named as a fuzz target but is not func(*testing.F)"},
	)
	tr, err = loadTree(cfg, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := fuzzTargets(tr); !slices.Equal(got, []fuzzTarget{{"domain", "FuzzUpper"}, {"domain", "FuzzTagged"}, {"store", "FuzzPut"}}) {
		t.Fatalf("fuzz targets: %v", got)
	}
}

func TestTables(t *testing.T) {
	t.Parallel()
	cfg := testConfig(module(t))
	cfg.Rules = append(cfg.Rules, Rule{Pkg: "app", Note: ""})
	cfg.WallClock = append(cfg.WallClock, WallClockUse{"web/latency.go", " "})
	cfg.Docs = ""
	want(t, only("table", lint(t, cfg)),
		[2]string{"app", "two rows"},
		[2]string{"app", "give it a Note"},
		[2]string{"web/latency.go", "without a reason"},
	)
}

// The repository's own tables hold together: every row noted, no package
// twice, every allowance with its reason. (make lint checks them against
// the tree.)
func TestRepoTables(t *testing.T) {
	if fs := checkTables(repoConfig("../..")); len(fs) != 0 {
		t.Fatalf("the repository's tables:\n%s", dump(fs))
	}
}

func TestRun_listFuzz(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-root", "../..", "-list-fuzz"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.Bytes())
	}
	if !strings.Contains(stdout.String(), "simulator/pix:FuzzParseDecimal\n") {
		t.Fatalf("pixlint -list-fuzz of the repository:\n%s", stdout.Bytes())
	}
}

func TestStaticcheckFindings(t *testing.T) {
	problem := func(file string, line int, code string) staticcheckProblem {
		var p staticcheckProblem
		p.Code, p.Message = code, "a problem"
		p.Location.File, p.Location.Line = filepath.Join("/m", file), line
		return p
	}
	fs := staticcheckFindings("/m", []staticcheckProblem{
		problem("a/a.go", 3, "SA4006"),
		problem("a/a.go", 3, "SA4006"), // again, from the run with tags
		problem("b/b.go", 7, "U1000"),
		problem("b/b.go", 9, "SA1019"),
	}, []StaticcheckException{{"b/b.go", "U1000"}, {"c/c.go", "S1024"}})
	want(t, fs,
		[2]string{"a/a.go:3", "a problem (SA4006)"},
		[2]string{"b/b.go:9", "a problem (SA1019)"},
		[2]string{"c/c.go", "the S1024 exception (cmd/pixlint/exceptions.go) is no longer needed"},
	)
}
