package contract_test

import (
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
)

// TestShapeProblems: each shape's valid body has no problem; a field the
// shape requires, left out, is a problem naming it; and the value rules of
// each field, from both sides. The suite's shape matchers
// (conformance/framework/matchers.go) call this function, so these are the
// suite's answers too.
func TestShapeProblems(t *testing.T) {
	shapes := []struct {
		shape    contract.Shape
		valid    string
		required []string
	}{
		{contract.TokenShape, tokenErr, []string{"statusCode", "timestamp", "path", "method", "code", "message", "userMessage", "details", "errorId"}},
		{contract.ExtendedShape, mut(extErr, "statusCode", "401"), []string{"statusCode", "timestamp", "path", "method", "code", "message", "userMessage", "errorId", "error"}},
		{contract.MinimalShape, mut(minimalErr, "statusCode", "401"), []string{"statusCode", "message", "error"}},
	}
	problems := func(shape contract.Shape, body string) []contract.ShapeProblem {
		t.Helper()
		v, err := apiclient.DecodeJSON([]byte(body))
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		return contract.ShapeProblems(shape, v, 401, "POST")
	}
	for _, sh := range shapes {
		if p := problems(sh.shape, sh.valid); len(p) > 0 {
			t.Errorf("%s: the valid body has problems %v", sh.shape, p)
		}
		for _, field := range sh.required {
			p := problems(sh.shape, mut(sh.valid, field, ""))
			if len(p) != 1 || p[0].Field != field || p[0].Seen != "absent" {
				t.Errorf("%s without %s: problems %v, want one naming it absent", sh.shape, field, p)
			}
		}
	}
	tests := []struct {
		name  string
		shape contract.Shape
		body  string
		field string // the problem's field; "" = no problem
	}{
		{"statusCode another status", contract.MinimalShape, minimalErr, "statusCode"},
		{"statusCode as text", contract.MinimalShape, mut(minimalErr, "statusCode", `"401"`), "statusCode"},
		{"statusCode 401.0", contract.MinimalShape, mut(minimalErr, "statusCode", "401.0"), ""},
		{"message an array of strings", contract.MinimalShape, mut(mut(minimalErr, "statusCode", "401"), "message", `["a","b"]`), ""},
		{"message an empty array", contract.MinimalShape, mut(mut(minimalErr, "statusCode", "401"), "message", `[]`), "message"},
		{"message an array of numbers", contract.MinimalShape, mut(mut(minimalErr, "statusCode", "401"), "message", `[1]`), "message[0]"},
		{"message empty", contract.MinimalShape, mut(mut(minimalErr, "statusCode", "401"), "message", `""`), "message"},
		{"error empty", contract.MinimalShape, mut(mut(minimalErr, "statusCode", "401"), "error", `""`), ""},
		{"error a number", contract.MinimalShape, mut(mut(minimalErr, "statusCode", "401"), "error", `7`), "error"},
		{"not an object", contract.MinimalShape, `[1]`, "body"},
		{"token timestamp not ISO 8601", contract.TokenShape, mut(tokenErr, "timestamp", `"yesterday"`), "timestamp"},
		{"token path without /", contract.TokenShape, mut(tokenErr, "path", `"api/auth/token"`), "path"},
		{"token another method", contract.TokenShape, mut(tokenErr, "method", `"PUT"`), "method"},
		{"token method in lower case", contract.TokenShape, mut(tokenErr, "method", `"post"`), ""},
		{"token message an array", contract.TokenShape, mut(tokenErr, "message", `["m"]`), "message"},
		{"token userMessage empty", contract.TokenShape, mut(tokenErr, "userMessage", `""`), "userMessage"},
		{"token details not an object", contract.TokenShape, mut(tokenErr, "details", `"x"`), "details"},
		{"token details without hint", contract.TokenShape, mut(tokenErr, "details", `{}`), "details.hint"},
		{"token hint empty", contract.TokenShape, mut(tokenErr, "details.hint", `""`), ""},
		{"token errorId empty", contract.TokenShape, mut(tokenErr, "errorId", `""`), "errorId"},
		{"extended path without /public", contract.ExtendedShape, mut(mut(extErr, "statusCode", "401"), "path", `"/api/pix/cash-out"`), "path"},
		{"extended userMessage empty", contract.ExtendedShape, mut(mut(extErr, "statusCode", "401"), "userMessage", `""`), ""},
		{"extended code empty", contract.ExtendedShape, mut(mut(extErr, "statusCode", "401"), "code", `""`), "code"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := problems(tt.shape, tt.body)
			if tt.field == "" {
				if len(p) > 0 {
					t.Fatalf("problems %v, want none", p)
				}
				return
			}
			if len(p) != 1 || p[0].Field != tt.field || p[0].Expected == "" || p[0].Seen == "" {
				t.Fatalf("problems %v, want one naming %s", p, tt.field)
			}
			if s := p[0].String(); !strings.HasPrefix(s, tt.field+" is ") || !strings.Contains(s, ", want ") {
				t.Errorf("String() = %q, want %q", s, tt.field+" is <seen>, want <expected>")
			}
		})
	}
}
