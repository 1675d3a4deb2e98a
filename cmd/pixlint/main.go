// Command pixlint checks the repository's own rules, the ones no general
// linter knows (make lint runs it):
//
//   - dependencies: every package of the module has a row in the table of
//     rules.go saying what it may import, and imports nothing else; "never"
//     entries hold through every dependency, not only direct imports;
//   - docs: the dependency table in docs/architecture.md is generated from
//     rules.go (pixlint -write-docs) and must match it;
//   - wall clock: time.Now, time.Since and time.Until only in simulator/clock
//     and the places of walltime.go's allow-list, each with its reason;
//   - complexity: no non-test function over cyclomatic complexity 25
//     (github.com/fzipp/gocyclo);
//   - size: no non-test package over 3,000 lines (package conformance, the
//     specs, excepted);
//   - fuzz: fuzz targets are discovered (pixlint -list-fuzz, what make fuzz
//     runs), never listed by hand;
//   - staticcheck, with -staticcheck (a step of its own in make lint).
//
// The exceptions of exceptions.go are temporary and capped; the lint reports
// the ones no longer needed.
//
//	go run ./cmd/pixlint                 check the tree (exit 1 on findings)
//	go run ./cmd/pixlint -write-docs     regenerate the doc's dependency table, then check
//	go run ./cmd/pixlint -list-fuzz      print the fuzz targets as package:FuzzName
//	go run ./cmd/pixlint -staticcheck    staticcheck (pinned by go.mod), less the temporary exceptions
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// options are the command line's.
type options struct {
	root                             string
	writeDocs, listFuzz, staticcheck bool
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	flags := flag.NewFlagSet("pixlint", flag.ContinueOnError)
	flags.SetOutput(stderr)
	flags.StringVar(&o.root, "root", ".", "the module's root directory")
	flags.BoolVar(&o.writeDocs, "write-docs", false, "regenerate the package list and dependency table of the docs from rules.go before checking")
	flags.BoolVar(&o.listFuzz, "list-fuzz", false, "print every fuzz target as package:FuzzName (module-relative package) and exit")
	flags.BoolVar(&o.staticcheck, "staticcheck", false, "run staticcheck (go tool staticcheck) instead of the other checks, less the exceptions of exceptions.go")
	return o, flags.Parse(args)
}

func run(args []string, stdout, stderr io.Writer) int {
	opts, err := parseFlags(args, stderr)
	if err != nil {
		return 2
	}
	cfg := repoConfig(opts.root)
	if opts.listFuzz {
		t, err := loadTree(cfg, false)
		if err != nil {
			fmt.Fprintln(stderr, "pixlint:", err)
			return 1
		}
		for _, ft := range fuzzTargets(t) {
			fmt.Fprintf(stdout, "%s:%s\n", ft.Pkg, ft.Name)
		}
		return 0
	}
	if opts.writeDocs {
		changed, err := writeDepsDoc(cfg)
		if err != nil {
			fmt.Fprintln(stderr, "pixlint:", err)
			return 1
		}
		if changed {
			fmt.Fprintln(stdout, "pixlint: rewrote the generated blocks of", cfg.Docs)
		}
	}
	lint := Lint
	if opts.staticcheck {
		lint = func(cfg Config) ([]Finding, error) {
			return runStaticcheck(cfg.Root, cfg.Staticcheck, cfg.StaticcheckExceptions)
		}
	}
	findings, err := lint(cfg)
	if err != nil {
		fmt.Fprintln(stderr, "pixlint:", err)
		return 1
	}
	problems := 0
	for _, f := range findings {
		fmt.Fprintln(stdout, f)
		if !f.Warning() {
			problems++
		}
	}
	if problems > 0 {
		fmt.Fprintf(stdout, "pixlint: %d problem(s)\n", problems)
		return 1
	}
	return 0
}
