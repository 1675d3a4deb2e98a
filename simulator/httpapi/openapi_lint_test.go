package httpapi_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
)

// TestOpenAPI_ValidDocument lints docs/openapi.yaml: it must be a valid
// OpenAPI 3.1 document (checked against the specification's JSON Schema by
// pb33f/libopenapi-validator). `make lint` runs it.
func TestOpenAPI_ValidDocument(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := libopenapi.NewDocument(raw)
	if err != nil {
		t.Fatalf("docs/openapi.yaml does not parse: %v", err)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatalf("docs/openapi.yaml: %v", errs)
	}
	if ok, verrs := v.ValidateDocument(); !ok {
		for _, e := range verrs {
			t.Errorf("docs/openapi.yaml: %s: %s", e.Message, e.Reason)
			for _, s := range e.SchemaValidationErrors {
				t.Errorf("  at %s: %s", s.Location, s.Reason)
			}
		}
	}
}

// The lint fails on a document that breaks the OpenAPI schema.
func TestOpenAPI_LintCatchesAnInvalidDocument(t *testing.T) {
	bad := []byte("openapi: 3.1.0\ninfo:\n  title: x\n  version: '1'\npaths:\n  /a:\n    get:\n      responses:\n        '200': {}\n")
	doc, err := libopenapi.NewDocument(bad)
	if err != nil {
		t.Fatal(err)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if ok, _ := v.ValidateDocument(); ok {
		t.Fatal("a response without a description passed the lint")
	}
}
