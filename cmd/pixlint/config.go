package main

// repoConfig is the configuration of this repository: the tables of
// rules.go, walltime.go and exceptions.go and the limits of issue 16.
func repoConfig(root string) Config {
	return Config{
		Root:                 root,
		Rules:                dependencyRules,
		Layers:               layerTable,
		BuildTags:            [][]string{nil, {"faults"}},
		Docs:                 "docs/architecture.md",
		ClockPackage:         "simulator/clock",
		WallClock:            wallClockUses,
		MaxComplexity:        25,
		ComplexityExceptions: complexityExceptions,
		WarnPackageLines:     3000, // a warning band (issue 31): seams over numbers
		MaxPackageLines:      4500,
		SizeExempt:           []string{"conformance"}, // the specs: one spec file per resource, in one package
		SizeExceptions:       sizeExceptions,
		Makefile:             "Makefile",
		Staticcheck: [][]string{
			{"./..."},
			{"-tags", "faults", "./simulator/...", "./cmd/pixsandbox/"}, // as go vet: the faults build too
		},
		StaticcheckExceptions: staticcheckExceptions,
	}
}
