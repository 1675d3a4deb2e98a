package contract

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"unicode/utf8"
)

// judgeRequest applies the request rules of rt to ex: headers, path
// parameters, query parameters and body.
func judgeRequest(ex *Exchange, rt *Route, params map[string]string) []Finding {
	var out []Finding
	add := func(id, sec, field, expected, seen, msg string) {
		f := NewFinding(id, ex, sec)
		f.Field, f.Expected, f.Seen, f.Message = field, expected, seen, msg
		out = append(out, f)
	}
	if _, ok := ex.Bearer(); !rt.Public && !ok {
		add("req.authorization-missing", "", "Authorization", "Bearer <token>", headerSeen(ex.ReqHeader, "Authorization"),
			rt.String()+" is protected: the request carries no bearer token")
	}
	if rt.Name == "auth.token" && ex.ReqHeader.Get("X-SSL-Client-Cert") == "" {
		add("req.cert-header-missing", "", "X-SSL-Client-Cert", "the URL-encoded PEM client certificate", "absent",
			"the token request carries no X-SSL-Client-Cert header")
	}
	if rt.Name == "transfer.create" {
		switch key := ex.ReqHeader.Get("X-Idempotency-Key"); {
		case key == "":
			add("req.idempotency-key-missing", "", "x-idempotency-key", "a UUID v4", "absent", "POST /dict/pix without x-idempotency-key")
		case !reUUIDv4.MatchString(key):
			add("req.idempotency-key-format", "", "x-idempotency-key", "a UUID v4", strconv.Quote(key), "x-idempotency-key "+strconv.Quote(key)+" is not a UUID v4")
		}
	}
	for _, p := range rt.params {
		if msg, ok := p.check(params[p.name]); !ok {
			add("req.path-format", rt.Section, "{"+p.name+"}", msg, strconv.Quote(params[p.name]),
				fmt.Sprintf("path parameter %s %q is not %s", p.name, params[p.name], msg))
		}
	}
	out = append(out, judgeQuery(ex, rt)...)
	return append(out, judgeBody(ex, rt)...)
}

func headerSeen(h http.Header, name string) string {
	v := h.Get(name)
	if v == "" {
		return "absent"
	}
	if len(v) > 12 {
		v = v[:12] + "…"
	}
	return strconv.Quote(v)
}

// check reports whether a path parameter's value has its format, and the
// format's description.
func (p pathParam) check(v string) (string, bool) {
	if p.format != fNone {
		ok, _ := formatOK(p.format, v, v)
		return formatNames[p.format], ok
	}
	n := utf8.RuneCountInString(v)
	return fmt.Sprintf("%d to %d characters", p.minLen, p.maxLen), n >= p.minLen && n <= p.maxLen
}

// judgeQuery applies the route's query rows to the first value of each
// parameter.
func judgeQuery(ex *Exchange, rt *Route) []Finding {
	if len(rt.query) == 0 || ex.RawQuery == "" {
		return nil
	}
	q := ex.query()
	obj := map[string]any{}
	for _, row := range rt.query {
		if !q.Has(row.path) {
			continue
		}
		v := q.Get(row.path)
		if row.format == fInteger && reInteger.MatchString(v) {
			obj[row.path] = json.Number(v)
			continue
		}
		obj[row.path] = v
	}
	var out []Finding
	for _, is := range checkFields(rt.query, obj) {
		f := NewFinding("req.query-value", ex, is.section)
		f.Field, f.Expected, f.Seen, f.Message = "?"+is.field, is.expected, is.seen, "query parameter "+is.message
		out = append(out, f)
	}
	return out
}

// judgeBody checks the request body against the route's body table.
func judgeBody(ex *Exchange, rt *Route) []Finding {
	if ex.ReqUnjudged != "" {
		f := NewFinding("req.body-unjudged", ex, "")
		f.Field, f.Message = "body", "request body not judged: "+ex.ReqUnjudged
		return []Finding{f}
	}
	if rt.request == nil || (len(ex.ReqBody) == 0 && !rt.bodyNeeded) {
		return nil
	}
	var out []Finding
	if ct := ex.ReqHeader.Get("Content-Type"); !jsonContentType(ct) {
		f := NewFinding("req.content-type", ex, "")
		f.Field, f.Expected, f.Seen = "Content-Type", "application/json", strconv.Quote(ct)
		f.Message = fmt.Sprintf("%s sent its JSON body with Content-Type %q", rt, ct)
		out = append(out, f)
	}
	v, err := ex.ReqValue()
	if err != nil {
		f := NewFinding("req.body-json", ex, rt.Section)
		f.Field, f.Expected, f.Seen = "body", "a JSON object", snippet(ex.ReqBody)
		f.Message = fmt.Sprintf("%s sent a body that is not JSON: %v", rt, err)
		return append(out, f)
	}
	if _, ok := v.(map[string]any); !ok {
		f := NewFinding("req.field-type", ex, rt.Section)
		f.Field, f.Expected, f.Seen = "body", "a JSON object", Render(v)
		f.Message = fmt.Sprintf("%s sent %s, not a JSON object", rt, Render(v))
		return append(out, f)
	}
	for _, is := range checkFields(rt.request, v) {
		out = append(out, issueFinding("req.", is, ex, rt))
	}
	return out
}
