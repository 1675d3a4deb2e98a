package contract_test

import (
	"strings"
	"testing"

	"github.com/onsi/gomega/types"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
	"github.com/pixsandbox/pixsandbox/conformance/framework"
	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
)

// TestShapeProblems_AgreesWithSuite: contract.ShapeProblems and the suite's
// shape matchers (conformance/framework/matchers.go) pass and fail the same
// bodies, until the matchers call ShapeProblems themselves: the rule has one
// meaning whichever side applies it.
func TestShapeProblems_AgreesWithSuite(t *testing.T) {
	shapes := []struct {
		shape   contract.Shape
		matcher func() types.GomegaMatcher
		valid   string
		fields  []string
	}{
		{contract.TokenShape, framework.HaveTokenErrorShape, tokenErr,
			[]string{"statusCode", "timestamp", "path", "method", "code", "message", "userMessage", "details", "details.hint", "errorId"}},
		{contract.ExtendedShape, framework.HaveExtendedErrorShape, mut(extErr, "statusCode", "401"),
			[]string{"statusCode", "timestamp", "path", "method", "code", "message", "userMessage", "errorId", "error"}},
		{contract.MinimalShape, framework.HaveMinimalErrorShape, mut(minimalErr, "statusCode", "401"),
			[]string{"statusCode", "message", "error"}},
	}
	breaks := []struct{ name, raw string }{
		{"absent", ""}, {"a number", "7"}, {"null", "null"}, {"empty", `""`}, {"an empty array", "[]"},
		{"an array of numbers", "[1]"}, {"another text", `"x"`}, {"an object", `{}`},
	}
	for _, sh := range shapes {
		bodies := map[string]string{"valid": sh.valid, "not an object": `[1]`, "not JSON": `oops`}
		for _, f := range sh.fields {
			for _, b := range breaks {
				if f == "details.hint" && b.raw == "" {
					continue // mut cannot reach into a removed parent; covered by "details absent"
				}
				bodies[f+" "+b.name] = mut(sh.valid, f, b.raw)
			}
		}
		for name, body := range bodies {
			t.Run(sh.shape.String()+"/"+name, func(t *testing.T) {
				m := sh.matcher()
				ok, err := m.Match(&apiclient.Response{Status: 401, Method: "POST", Body: []byte(body)})
				if err != nil {
					t.Fatal(err)
				}
				v, decodeErr := apiclient.DecodeJSON([]byte(body))
				var problems []contract.ShapeProblem
				if decodeErr != nil {
					problems = []contract.ShapeProblem{{Field: "body"}}
				} else {
					problems = contract.ShapeProblems(sh.shape, v, 401, "POST")
				}
				if ok != (len(problems) == 0) {
					t.Fatalf("the suite's matcher says %v, contract.ShapeProblems %v, for %s", ok, problems, body)
				}
				if !ok && !strings.Contains(m.FailureMessage(&apiclient.Response{Status: 401, Method: "POST", Body: []byte(body)}), strings.SplitN(problems[0].Field, "[", 2)[0]) {
					t.Errorf("the matcher and ShapeProblems name different fields: %v", problems)
				}
			})
		}
	}
}
