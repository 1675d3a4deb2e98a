package contract

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
)

// ShapeProblems returns the problems of an error body (decoded with
// apiclient.DecodeJSON) against shape, for an answer of status to a request
// of method. Each problem names its field. It is the one copy of the rule:
// the proxy's resp.error-shape and the conformance suite's matchers
// HaveTokenErrorShape, HaveExtendedErrorShape and HaveMinimalErrorShape
// (conformance/framework/matchers.go) both call it.
func ShapeProblems(shape Shape, v any, status int, method string) []ShapeProblem {
	obj, ok := v.(map[string]any)
	if !ok {
		return []ShapeProblem{{Field: "body", Expected: "a JSON object", Seen: Render(v)}}
	}
	s := &shapeCheck{v: obj}
	s.statusCode(status)
	switch shape {
	case TokenShape:
		s.timestamp()
		if p := s.str("path", true); p != "" && !strings.HasPrefix(p, "/") {
			s.add("path", "a path starting with /", strconv.Quote(p))
		}
		s.method(method)
		s.str("code", true)
		s.str("message", true)
		s.str("userMessage", true)
		if d, ok := obj["details"]; !ok {
			s.add("details", "an object with hint", "absent")
		} else if _, isObj := d.(map[string]any); !isObj {
			s.add("details", "an object with hint", Render(d))
		} else {
			s.str("details.hint", false)
		}
		s.str("errorId", true)
	case ExtendedShape:
		s.timestamp()
		if p := s.str("path", true); p != "" && !strings.HasPrefix(p, "/public") {
			s.add("path", "the /public/... form of the route", strconv.Quote(p))
		}
		s.method(method)
		s.str("code", true)
		s.message()
		s.str("userMessage", false)
		s.str("errorId", true)
		s.str("error", false)
	default:
		s.message()
		s.str("error", false)
	}
	return s.problems
}

// ShapeProblem is one field of an error body that breaks its shape.
type ShapeProblem struct {
	Field, Expected, Seen string
}

// String renders the problem in a failure message or a finding:
// "statusCode is 400, want the number 401 (the HTTP status)".
func (p ShapeProblem) String() string {
	return fmt.Sprintf("%s is %s, want %s", p.Field, p.Seen, p.Expected)
}

type shapeCheck struct {
	v        map[string]any
	problems []ShapeProblem
}

func (s *shapeCheck) add(field, expected, seen string) {
	s.problems = append(s.problems, ShapeProblem{Field: field, Expected: expected, Seen: seen})
}

func (s *shapeCheck) statusCode(status int) {
	got, ok := apiclient.Lookup(s.v, "statusCode")
	want := "the number " + strconv.Itoa(status) + " (the HTTP status)"
	if !ok {
		s.add("statusCode", want, "absent")
		return
	}
	n, isNum := got.(json.Number)
	if !isNum || !apiclient.SameNumber(string(n), strconv.Itoa(status)) {
		s.add("statusCode", want, Render(got))
	}
}

// str checks that field is a string (non-empty when nonEmpty) and returns it.
func (s *shapeCheck) str(field string, nonEmpty bool) string {
	want := "a string"
	if nonEmpty {
		want = "a non-empty string"
	}
	got, ok := apiclient.Lookup(s.v, field)
	if !ok {
		s.add(field, want, "absent")
		return ""
	}
	str, isStr := got.(string)
	if !isStr || (nonEmpty && str == "") {
		s.add(field, want, Render(got))
		return ""
	}
	return str
}

func (s *shapeCheck) timestamp() {
	if t := s.str("timestamp", true); t != "" {
		if _, err := apiclient.ParseISO8601(t); err != nil {
			s.add("timestamp", "an ISO 8601 date-time", strconv.Quote(t))
		}
	}
}

func (s *shapeCheck) method(method string) {
	m := s.str("method", true)
	if m != "" && method != "" && !strings.EqualFold(m, method) {
		s.add("method", "the request method "+strconv.Quote(method), strconv.Quote(m))
	}
}

// message checks "message": a non-empty string, or a non-empty array of strings.
func (s *shapeCheck) message() {
	const want = "a non-empty string or array of strings"
	got, ok := s.v["message"]
	if !ok {
		s.add("message", want, "absent")
		return
	}
	switch m := got.(type) {
	case string:
		if m == "" {
			s.add("message", want, `""`)
		}
	case []any:
		if len(m) == 0 {
			s.add("message", want, "[]")
		}
		for i, e := range m {
			if _, ok := e.(string); !ok {
				s.add("message["+strconv.Itoa(i)+"]", "a string", Render(e))
			}
		}
	default:
		s.add("message", want, Render(got))
	}
}
