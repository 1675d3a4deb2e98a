package contract

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Judge applies the request and response rules of the exchange's route and
// returns the findings, request findings first. An exchange off the route
// table, or without an answer (Status 0), gets only what applies to it.
func Judge(ex *Exchange) []Finding {
	rt, params := ex.Route()
	if rt == nil {
		return nil
	}
	out := judgeRequest(ex, rt, params)
	if ex.Status != 0 {
		out = append(out, judgeResponse(ex, rt)...)
	}
	return out
}

// judgeResponse applies the response rules of rt to ex.
func judgeResponse(ex *Exchange, rt *Route) []Finding {
	var out []Finding
	if !ex.Scenario() && !rt.allowed(ex.Status) {
		f := NewFinding("resp.status-allowed", ex, rt.Section)
		f.Field, f.Expected, f.Seen = "status", rt.allowedText(), strconv.Itoa(ex.Status)
		f.Message = fmt.Sprintf("%s answered %d, which the contract does not give the route (it may answer %s)", rt, ex.Status, rt.allowedText())
		out = append(out, f)
	}
	if ex.RespUnjudged != "" {
		f := NewFinding("resp.body-unjudged", ex, "")
		f.Field, f.Message = "body", "response body not judged: "+ex.RespUnjudged
		return append(out, f)
	}
	v, ok, bodyFindings := responseJSON(ex, rt)
	out = append(out, bodyFindings...)
	if !ok {
		return out
	}
	switch {
	case ex.Status >= 400:
		out = append(out, judgeError(ex, rt, v)...)
	case ex.Success():
		for _, is := range checkFields(rt.response, v) {
			out = append(out, issueFinding("resp.", is, ex, rt))
		}
		out = append(out, consistency(ex, rt, v)...)
	}
	return out
}

// responseJSON decodes the answer's body where the contract wants JSON (an
// error, or a success of a route with a resource) and reports a body that is
// not JSON or comes with another Content-Type.
func responseJSON(ex *Exchange, rt *Route) (any, bool, []Finding) {
	wantBody := ex.Status >= 400 || (ex.Success() && len(rt.response) > 0)
	if !wantBody || ex.Method == http.MethodHead {
		return nil, false, nil
	}
	v, err := ex.RespValue()
	if err != nil {
		f := NewFinding("resp.body-json", ex, "")
		f.Field, f.Expected, f.Seen = "body", "JSON", snippet(ex.RespBody)
		f.Message = fmt.Sprintf("%s answered %d with a body that is not JSON: %v", rt, ex.Status, err)
		return nil, false, []Finding{f}
	}
	if ct := ex.RespHeader.Get("Content-Type"); ct == "" || !jsonContentType(ct) {
		f := NewFinding("resp.body-json", ex, "")
		f.Field, f.Expected, f.Seen = "Content-Type", "application/json", strconv.Quote(ct)
		f.Message = fmt.Sprintf("%s answered a JSON body with Content-Type %q", rt, ct)
		return v, true, []Finding{f}
	}
	return v, true, nil
}

func snippet(b []byte) string {
	const limit = 80
	if len(b) == 0 {
		return "empty"
	}
	if len(b) > limit {
		return strconv.Quote(string(b[:limit])) + "…"
	}
	return strconv.Quote(string(b))
}

// issueFinding turns a field problem into a finding of side ("resp." or "req.").
func issueFinding(side string, is issue, ex *Exchange, rt *Route) Finding {
	id := side + is.rule
	if _, ok := RuleByID(id); !ok {
		id = side + "value-allowed" // request dates and ids are value rules
	}
	sec := is.section
	if sec == "" {
		sec = rt.Section
	}
	f := NewFinding(id, ex, sec)
	f.Field, f.Expected, f.Seen, f.Message = is.field, is.expected, is.seen, is.message
	return f
}

// judgeError checks an error answer: its family's shape and, for the token
// and extended shapes, its code.
func judgeError(ex *Exchange, rt *Route, v any) []Finding {
	var out []Finding
	for _, p := range ShapeProblems(rt.Shape, v, ex.Status, ex.Method) {
		f := NewFinding("resp.error-shape", ex, secShapes+" ("+rt.Shape.String()+")")
		f.Field, f.Expected, f.Seen = p.Field, p.Expected, p.Seen
		f.Message = fmt.Sprintf("%s answered %d in a body that is not the %s: %s", rt, ex.Status, rt.Shape, p)
		out = append(out, f)
	}
	if rt.Codes == nil || ex.Scenario() {
		return out
	}
	obj, _ := v.(map[string]any)
	for _, name := range []string{"errorCode", "code"} {
		code, ok := obj[name].(string)
		if !ok || code == "" {
			continue
		}
		out = append(out, judgeCode(ex, rt, name, code)...)
	}
	return out
}

func judgeCode(ex *Exchange, rt *Route, field, code string) []Finding {
	sec := secTokenCodes
	if rt.Shape == ExtendedShape {
		sec = secExtCodes
	}
	statuses, listed := rt.CodeStatuses(code)
	if !listed {
		f := NewFinding("resp.error-code-listed", ex, sec)
		f.Field, f.Expected, f.Seen = field, "one of "+strings.Join(codeNames(rt.Codes), ", "), code
		f.Message = fmt.Sprintf("%s answered %s %s, a code the contract does not list for the route", rt, field, code)
		return []Finding{f}
	}
	if slices.Contains(statuses, ex.Status) {
		return nil
	}
	want := make([]string, len(statuses))
	for i, s := range statuses {
		want[i] = strconv.Itoa(s)
	}
	f := NewFinding("resp.error-code-status", ex, sec)
	f.Field, f.Expected, f.Seen = field, code+" with status "+strings.Join(want, " or "), code+" with status "+strconv.Itoa(ex.Status)
	f.Message = fmt.Sprintf("%s answered %s with status %d; the contract gives it %s", rt, code, ex.Status, strings.Join(want, " or "))
	return []Finding{f}
}

func codeNames(codes map[string][]int) []string {
	out := make([]string, 0, len(codes))
	for c := range codes {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}
