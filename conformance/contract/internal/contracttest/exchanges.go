// Package contracttest builds the exchanges, webhook deliveries and
// bodies that the tests of the contract's rules and of its state model
// judge: one valid answer of every route and one valid delivery of every
// payload, each test breaking one rule of one of them.
package contracttest

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
)

// Epoch is the time the test exchanges start from.
var Epoch = time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)

// Exch builds an exchange: method and path ("PUT /cob/x?a=b"), request
// body, status, response body; options set headers and times.
func Exch(route, reqBody string, status int, respBody string, opts ...func(*contract.Exchange)) *contract.Exchange {
	method, target, _ := strings.Cut(route, " ")
	path, query, _ := strings.Cut(target, "?")
	ex := &contract.Exchange{
		Seq: 1, Method: method, Path: path, RawQuery: query,
		ReqHeader: http.Header{"Authorization": {"Bearer " + TestToken(Epoch)}}, ReqBody: []byte(reqBody),
		Status: status, RespHeader: http.Header{"Content-Type": {"application/json"}}, RespBody: []byte(respBody),
		Start: Epoch, End: Epoch.Add(time.Millisecond),
	}
	if reqBody != "" {
		ex.ReqHeader.Set("Content-Type", "application/json")
	}
	for _, o := range opts {
		o(ex)
	}
	return ex
}

// Header sets a request header of an exchange, or removes it when value is
// empty.
func Header(name, value string) func(*contract.Exchange) {
	return func(ex *contract.Exchange) {
		if value == "" {
			ex.ReqHeader.Del(name)
			return
		}
		ex.ReqHeader.Set(name, value)
	}
}

// At sets the exchange's number and its start, d after Epoch (it ends 1 ms later).
func At(seq uint64, d time.Duration) func(*contract.Exchange) {
	return func(ex *contract.Exchange) {
		ex.Seq, ex.Start, ex.End = seq, Epoch.Add(d), Epoch.Add(d+time.Millisecond)
	}
}

// HasFinding reports whether fs holds a finding of rule on field (any field
// when field is empty).
func HasFinding(fs []contract.Finding, rule, field string) bool {
	for _, f := range fs {
		if f.Rule == rule && (field == "" || f.Field == field) {
			return true
		}
	}
	return false
}

// Describe lists findings one a line, for a test's failure message.
func Describe(fs []contract.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString("\n  " + f.Rule + " " + f.Field + ": " + f.Message)
	}
	return b.String()
}

// BRCode is a dynamic BR Code (design/DOMAIN.md A1, worked examples).
const BRCode = "00020101021226760014br.gov.bcb.pix2554pix.example.com/qr/v2/9d36b84fc70b478fb95c12729b90ca255204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63047EC0"

// TestToken is an unsigned-looking JWT of account 1 issued at iat (the
// proxy never verifies signatures).
func TestToken(iat time.Time) string {
	return TokenWith(`{"iss":"pixsandbox","sub":"1","client_id":"c1","iat":` + Itoa(iat.Unix()) + `,"exp":` + Itoa(iat.Add(1800*time.Second).Unix()) + `}`)
}

// TokenWith is a JWT of the claims (a JSON object), signed with nothing the
// proxy could check.
func TokenWith(claims string) string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + enc([]byte(claims)) + "." + enc([]byte("signature"))
}

// Itoa writes n in decimal.
func Itoa(n int64) string { return strconv.FormatInt(n, 10) }

// Mut returns the JSON object body with the value at path (dotted, with
// [i] indexes) replaced by the JSON raw, or removed when raw is "".
func Mut(body, path, raw string) string {
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		panic(err)
	}
	segs := strings.Split(path, ".")
	cur := v
	for i, seg := range segs {
		name, idx := seg, -1
		if j := strings.IndexByte(seg, '['); j >= 0 {
			name = seg[:j]
			idx, _ = strconv.Atoi(strings.TrimSuffix(seg[j+1:], "]"))
		}
		obj := cur.(map[string]any)
		last := i == len(segs)-1
		if last && idx < 0 {
			if raw == "" {
				delete(obj, name)
			} else {
				var nv any
				d := json.NewDecoder(strings.NewReader(raw))
				d.UseNumber()
				if err := d.Decode(&nv); err != nil {
					panic(err)
				}
				obj[name] = nv
			}
			break
		}
		cur = obj[name]
		if idx >= 0 {
			cur = cur.([]any)[idx]
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// Delivery builds a webhook delivery of body received at Epoch + d, number seq,
// with a webhook-id; options set headers.
func Delivery(seq uint64, d time.Duration, body string, opts ...func(*contract.Exchange)) *contract.Exchange {
	ex := &contract.Exchange{Seq: seq, Method: "POST", Path: "/_proxy/webhooks/hooks/a",
		ReqHeader: http.Header{"Content-Type": {"application/json"}, "Webhook-Id": {"msg_" + strconv.FormatUint(seq, 10)}},
		ReqBody:   []byte(body), Status: 204, Start: Epoch.Add(d), End: Epoch.Add(d + time.Millisecond)}
	for _, o := range opts {
		o(ex)
	}
	return ex
}
