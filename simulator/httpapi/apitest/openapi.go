package apitest

import (
	"bufio"
	"os"
	"regexp"
	"strings"
	"testing"
)

// The operations of docs/openapi.yaml, for the tests that check the route
// tables, the console's calls and the reference page against it.

var (
	yamlPath   = regexp.MustCompile(`^  ['"]?(/[^'"]*)['"]?:\s*$`)
	yamlMethod = regexp.MustCompile(`^    (get|put|post|delete|patch|head|options|trace):\s*$`)
	yamlOpID   = regexp.MustCompile(`^      operationId:\s*(\S+)\s*$`)
	yamlStatus = regexp.MustCompile(`^        ['"]?(\d{3})['"]?:\s*$`)
)

// Operation is one operation of the document: its operationId, the response
// statuses it documents and its text.
type Operation struct {
	OperationID string
	Statuses    map[string]bool
	Text        string
}

// OpenAPIOperations reads the operations under `paths:` line by line: paths
// at indent 2, methods at 4, operationId at 6 and response codes at 8.
func OpenAPIOperations(t testing.TB, file string) map[string]*Operation {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ops := map[string]*Operation{}
	var path string
	var op *Operation
	inPaths, inResponses := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line != "" && line[0] != ' ' && line[0] != '#' {
			inPaths = strings.HasPrefix(line, "paths:")
			op = nil
			continue
		}
		if !inPaths {
			continue
		}
		if m := yamlPath.FindStringSubmatch(line); m != nil {
			path, op = m[1], nil
			continue
		}
		if strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "   ") && strings.TrimSpace(line) != "" {
			op = nil // another key at path level
			continue
		}
		if m := yamlMethod.FindStringSubmatch(line); m != nil && path != "" {
			key := strings.ToUpper(m[1]) + " " + path
			if _, dup := ops[key]; dup {
				t.Fatalf("%s: %s documented twice", file, key)
			}
			op, inResponses = &Operation{Statuses: map[string]bool{}}, false
			ops[key] = op
			continue
		}
		if strings.HasPrefix(line, "    ") && !strings.HasPrefix(line, "     ") {
			op = nil // path-level parameters and the like
			continue
		}
		if op == nil {
			continue
		}
		op.Text += line + "\n"
		if strings.HasPrefix(line, "      ") && !strings.HasPrefix(line, "       ") {
			inResponses = strings.TrimSpace(line) == "responses:"
		}
		if m := yamlOpID.FindStringSubmatch(line); m != nil {
			op.OperationID = m[1]
		}
		if m := yamlStatus.FindStringSubmatch(line); m != nil && inResponses {
			op.Statuses[m[1]] = true
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(ops) == 0 {
		t.Fatalf("%s: no operations found under paths:", file)
	}
	return ops
}
