package contract

import (
	"encoding/json"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
)

// Exchange is one request and the upstream's answer to it, as the proxy saw
// them. Bodies are the bytes on the wire (a gzip-encoded answer is given
// decoded, see the proxy); a body marked unjudged is not read by any rule.
type Exchange struct {
	// Seq numbers the exchanges of one proxy; RequestID is the upstream's
	// X-Request-Id of this one, when it sent one.
	Seq       uint64
	RequestID string

	Method    string
	Path      string // the decoded URL path, e.g. /api/pix/transactions/pix-key/+5511987654321
	RawQuery  string
	ReqHeader http.Header
	ReqBody   []byte
	// ReqUnjudged says why the request body was not kept ("" when it was).
	ReqUnjudged string

	Status     int
	RespHeader http.Header
	RespBody   []byte
	// RespUnjudged says why the response body was not kept ("" when it was).
	RespUnjudged string

	// Start is when the proxy received the request, End when it had the
	// whole answer: the state model orders observations by them.
	Start, End time.Time
	// Alone: no other exchange was in flight at the proxy at any moment of
	// this one, so the upstream served it after every exchange answered
	// before and before every exchange started after. The balance rule
	// judges only such reads (false, the zero value, when not known).
	Alone bool

	reqJSON, respJSON     any
	reqErr, respErr       error
	reqParsed, respParsed bool

	route   *Route
	params  map[string]string
	matched bool
}

// Route returns the exchange's route and path parameters (Match), matched
// once however many rules ask; nil when it is on no route of the contract.
// The parameters are shared: read them, do not change them.
func (ex *Exchange) Route() (*Route, map[string]string) {
	if !ex.matched {
		ex.matched = true
		ex.route, ex.params = Match(ex.Method, ex.Path)
	}
	return ex.route, ex.params
}

// ReqValue returns the request body decoded (numbers as json.Number), read
// once however many rules ask.
func (ex *Exchange) ReqValue() (any, error) {
	if !ex.reqParsed {
		ex.reqParsed = true
		ex.reqJSON, ex.reqErr = apiclient.DecodeJSON(ex.ReqBody)
	}
	return ex.reqJSON, ex.reqErr
}

// RespValue returns the response body decoded (numbers as json.Number), read
// once however many rules ask.
func (ex *Exchange) RespValue() (any, error) {
	if !ex.respParsed {
		ex.respParsed = true
		ex.respJSON, ex.respErr = apiclient.DecodeJSON(ex.RespBody)
	}
	return ex.respJSON, ex.respErr
}

// Success reports a 2xx answer.
func (ex *Exchange) Success() bool { return ex.Status >= 200 && ex.Status <= 299 }

// query returns the parsed query string.
func (ex *Exchange) query() url.Values {
	v, _ := url.ParseQuery(ex.RawQuery)
	return v
}

// Scenario reports whether the request asks the sandbox for a scenario
// (X-Sandbox-Scenario): the contract does not show its values or effects,
// so status and code rules do not judge such answers.
func (ex *Exchange) Scenario() bool { return ex.ReqHeader.Get("X-Sandbox-Scenario") != "" }

// Bearer returns the bearer token of the request, if any.
func (ex *Exchange) Bearer() (string, bool) {
	h := ex.ReqHeader.Get("Authorization")
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(tok) == "" {
		return "", false
	}
	return strings.TrimSpace(tok), true
}

// jsonContentType reports whether ct names JSON (application/json or a
// +json type); an absent type counts as JSON.
func jsonContentType(ct string) bool {
	if ct == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// Render writes a JSON value shortly for a finding's evidence.
func Render(v any) string {
	if v == nil {
		return "null"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "?"
	}
	const limit = 120
	if len(b) > limit {
		return string(b[:limit]) + "…"
	}
	return string(b)
}
