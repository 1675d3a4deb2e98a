package contract_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
)

// epoch is the time the test exchanges start from.
var epoch = time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)

// exch builds an exchange: method and path ("PUT /cob/x?a=b"), request
// body, status, response body; options set headers and times.
func exch(route, reqBody string, status int, respBody string, opts ...func(*contract.Exchange)) *contract.Exchange {
	method, target, _ := strings.Cut(route, " ")
	path, query, _ := strings.Cut(target, "?")
	ex := &contract.Exchange{
		Seq: 1, Method: method, Path: path, RawQuery: query,
		ReqHeader: http.Header{"Authorization": {"Bearer " + testToken(epoch)}}, ReqBody: []byte(reqBody),
		Status: status, RespHeader: http.Header{"Content-Type": {"application/json"}}, RespBody: []byte(respBody),
		Start: epoch, End: epoch.Add(time.Millisecond),
	}
	if reqBody != "" {
		ex.ReqHeader.Set("Content-Type", "application/json")
	}
	for _, o := range opts {
		o(ex)
	}
	return ex
}

func header(name, value string) func(*contract.Exchange) {
	return func(ex *contract.Exchange) {
		if value == "" {
			ex.ReqHeader.Del(name)
			return
		}
		ex.ReqHeader.Set(name, value)
	}
}

func respHeader(name, value string) func(*contract.Exchange) {
	return func(ex *contract.Exchange) { ex.RespHeader.Set(name, value) }
}

// at sets the exchange's number and its start, d after epoch (it ends 1 ms later).
func at(seq uint64, d time.Duration) func(*contract.Exchange) {
	return func(ex *contract.Exchange) {
		ex.Seq, ex.Start, ex.End = seq, epoch.Add(d), epoch.Add(d+time.Millisecond)
	}
}

// hasFinding reports whether fs holds a finding of rule on field (any field
// when field is empty).
func hasFinding(fs []contract.Finding, rule, field string) bool {
	for _, f := range fs {
		if f.Rule == rule && (field == "" || f.Field == field) {
			return true
		}
	}
	return false
}

func ofKind(fs []contract.Finding, k contract.Kind) []contract.Finding {
	var out []contract.Finding
	for _, f := range fs {
		if f.Kind == k {
			out = append(out, f)
		}
	}
	return out
}

func describe(fs []contract.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString("\n  " + f.Rule + " " + f.Field + ": " + f.Message)
	}
	return b.String()
}

// A dynamic BR Code (design/DOMAIN.md A1, worked examples).
const brCode = "00020101021226760014br.gov.bcb.pix2554pix.example.com/qr/v2/9d36b84fc70b478fb95c12729b90ca255204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63047EC0"

// testToken is an unsigned-looking JWT of account 1 issued at iat (the
// proxy never verifies signatures).
func testToken(iat time.Time) string {
	return tokenWith(`{"iss":"pixsandbox","sub":"1","client_id":"c1","iat":` + itoa(iat.Unix()) + `,"exp":` + itoa(iat.Add(1800*time.Second).Unix()) + `}`)
}

func tokenWith(claims string) string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + enc([]byte(claims)) + "." + enc([]byte("signature"))
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// mut returns the JSON object body with the value at path (dotted, with
// [i] indexes) replaced by the JSON raw, or removed when raw is "".
func mut(body, path, raw string) string {
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
