package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// A StaticcheckException tolerates the findings of one check in one file.
type StaticcheckException struct {
	File  string // module-relative
	Check string // SA4006, U1000, …
}

// runStaticcheck runs staticcheck (the version go.mod's tool directive pins)
// once per argument list and returns its findings less the exceptions, plus
// the exceptions nothing needs any more.
func runStaticcheck(root string, runs [][]string, exceptions []StaticcheckException) ([]Finding, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	var problems []staticcheckProblem
	for _, args := range runs {
		ps, err := staticcheck(abs, args)
		if err != nil {
			return nil, err
		}
		problems = append(problems, ps...)
	}
	return staticcheckFindings(abs, problems, exceptions), nil
}

// staticcheckFindings turns staticcheck's problems (absolute file names under
// root) into findings, once each, less the exceptions, plus the exceptions
// none of them needed.
func staticcheckFindings(root string, problems []staticcheckProblem, exceptions []StaticcheckException) []Finding {
	var out []Finding
	used := make([]bool, len(exceptions))
	seen := map[Finding]bool{}
	for _, p := range problems {
		rel, err := filepath.Rel(root, p.Location.File)
		if err != nil {
			rel = p.Location.File
		}
		rel = filepath.ToSlash(rel)
		f := Finding{"staticcheck", fmt.Sprintf("%s:%d", rel, p.Location.Line), p.Message + " (" + p.Code + ")"}
		if seen[f] {
			continue // the same problem from another run (build tags)
		}
		seen[f] = true
		if i := slices.Index(exceptions, StaticcheckException{rel, p.Code}); i >= 0 {
			used[i] = true
			continue
		}
		out = append(out, f)
	}
	for i, e := range exceptions {
		if !used[i] {
			out = append(out, Finding{"staticcheck", e.File, fmt.Sprintf("the %s exception (cmd/pixlint/exceptions.go) is no longer needed: remove it", e.Check)})
		}
	}
	sortFindings(out)
	return out
}

type staticcheckProblem struct {
	Code     string
	Message  string
	Location struct {
		File string
		Line int
	}
}

func staticcheck(root string, args []string) ([]staticcheckProblem, error) {
	cmd := exec.Command("go", append([]string{"tool", "staticcheck", "-f", "json"}, args...)...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, runErr := cmd.Output()
	var problems []staticcheckProblem
	dec := json.NewDecoder(bytes.NewReader(stdout))
	for {
		var p staticcheckProblem
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("staticcheck %s: %v: %s%s", strings.Join(args, " "), err, stdout, stderr.Bytes())
		}
		problems = append(problems, p)
	}
	// staticcheck exits 1 when it found something; failing otherwise is an error.
	if runErr != nil && len(problems) == 0 {
		return nil, fmt.Errorf("staticcheck %s: %v: %s", strings.Join(args, " "), runErr, stderr.Bytes())
	}
	return problems, nil
}
