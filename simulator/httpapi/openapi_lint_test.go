package httpapi_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

// oas31Schema is the OpenAPI 3.1 document schema published by the OpenAPI
// Initiative (https://spec.openapis.org/oas/3.1/schema/2022-10-07, Apache
// License 2.0), kept in testdata so the lint needs no network.
const oas31Schema = "testdata/oas31-schema.json"

// lintOpenAPI validates an OpenAPI document (YAML) against the OpenAPI 3.1
// schema and returns the violations, one per line.
func lintOpenAPI(t *testing.T, doc []byte) string {
	t.Helper()
	raw, err := os.ReadFile(oas31Schema)
	if err != nil {
		t.Fatal(err)
	}
	schemaDoc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("https://spec.openapis.org/oas/3.1/schema/2022-10-07", schemaDoc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("https://spec.openapis.org/oas/3.1/schema/2022-10-07")
	if err != nil {
		t.Fatal(err)
	}
	var y any
	if err := yaml.Unmarshal(doc, &y); err != nil {
		return "does not parse as YAML: " + err.Error()
	}
	// Through JSON, so the validator sees JSON types (YAML maps, ints, ...).
	j, err := json.Marshal(y)
	if err != nil {
		return "is not JSON-compatible: " + err.Error()
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	if err != nil {
		t.Fatal(err)
	}
	err = sch.Validate(inst)
	if err == nil {
		return ""
	}
	verr, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return err.Error()
	}
	var out []string
	for _, u := range verr.BasicOutput().Errors {
		if u.Error == nil || u.InstanceLocation == "" {
			continue
		}
		msg := u.InstanceLocation + ": " + u.Error.String()
		if !strings.HasSuffix(msg, "validation failed") && !slices.Contains(out, msg) {
			out = append(out, msg)
		}
	}
	if len(out) == 0 {
		out = append(out, verr.Error())
	}
	return strings.Join(out, "\n")
}

// TestOpenAPI_ValidDocument lints docs/openapi.yaml: it must be a valid
// OpenAPI 3.1 document. `make lint` runs it.
func TestOpenAPI_ValidDocument(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if v := lintOpenAPI(t, raw); v != "" {
		t.Fatalf("docs/openapi.yaml is not a valid OpenAPI 3.1 document:\n%s", v)
	}
}

// The lint fails on documents that break the OpenAPI schema.
func TestOpenAPI_LintCatchesInvalidDocuments(t *testing.T) {
	head := "openapi: 3.1.0\ninfo:\n  title: x\n  version: '1'\npaths:\n  /a:\n    get:\n      responses:\n"
	for name, doc := range map[string]string{
		"a response without a description": head + "        '200': {}\n",
		"an unknown operation field":       head + "        '200':\n          description: ok\n      operationIdd: x\n",
		"a wrong openapi version":          strings.Replace(head, "3.1.0", "3.0.3", 1) + "        '200':\n          description: ok\n",
		"not YAML":                         "openapi: [3.1.0\n",
	} {
		if v := lintOpenAPI(t, []byte(doc)); v == "" {
			t.Errorf("%s passed the lint", name)
		}
	}
	ok := head + "        '200':\n          description: ok\n"
	if v := lintOpenAPI(t, []byte(ok)); v != "" {
		t.Errorf("a valid document failed the lint: %s", v)
	}
}
