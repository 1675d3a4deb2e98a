package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	gojson "github.com/goccy/go-json"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/strictjson"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/selfcheck"
	"github.com/pixsandbox/pixsandbox/simulator/wire"
)

// maxBody is the largest request body read; larger ones are refused with 413
// without reading them whole.
const maxBody = 1 << 20

var errRequestTooLarge = errors.New("request body too large")

// writeJSON writes v as the JSON response body with status, followed by a
// newline. It encodes with github.com/goccy/go-json, HTML characters left
// unescaped, into a pooled buffer, which writes what encoding/json's Encoder
// writes with SetEscapeHTML(false) at a quarter of the cost for a charge
// (BenchmarkWriteJSON); test binaries (the conformance suite's in-process run
// included) encode every body both ways and panic, a 500, when they differ.
func writeJSON(w http.ResponseWriter, status int, v any) {
	buf := bodyBuffers.Get().(*bytes.Buffer)
	defer putBodyBuffer(buf)
	buf.Reset()
	enc := gojson.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	if err == nil && checkEncoding() {
		checkSameAsEncodingJSON(v, buf.Bytes())
	}
	if err != nil {
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString(`{"statusCode":500,"message":"response encoding failed","error":"Internal Server Error"}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// bodyBuffers holds response buffers for reuse: a new one per response would
// be allocated and grown, its memory touched for the first time, every time.
var bodyBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// putBodyBuffer returns buf to the pool unless a large body (a long listing)
// grew it: the pool keeps the common sizes only.
func putBodyBuffer(buf *bytes.Buffer) {
	if buf.Cap() <= 64<<10 {
		bodyBuffers.Put(buf)
	}
}

// checkEncoding is whether writeJSON compares its encoding with
// encoding/json's (test binaries, not their benchmarks).
var checkEncoding = selfcheck.On

func checkSameAsEncodingJSON(v any, body []byte) {
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil || !bytes.Equal(want.Bytes(), body) {
		panic(fmt.Sprintf("response body %s differs from encoding/json's %s (%v)", body, want.Bytes(), err))
	}
}

// formatTime renders an instant as ISO 8601 in UTC with milliseconds, the one
// timestamp format of every response.
func formatTime(t time.Time) string { return wire.Time(t) }

// brlNumber renders centavos as a JSON number with exactly two decimals (1234.50),
// the standard routes' money convention (wire.Money, shared with the webhooks).
type brlNumber = wire.Money

// decodeJSON decodes a JSON object body into dst, reading at most maxBody bytes.
// Every problem is reported as a violation naming the field, under code c (the
// route family's code for a bad body): all of them at once (strictjson.Decode), a
// body that is not valid UTF-8 and a key given twice included. Unknown fields
// are ignored (Gap G-03). A Content-Type other than JSON is refused; an absent
// one is accepted.
func decodeJSON(r *http.Request, dst any, c pix.Code) error {
	return decodeBody(r, dst, c, true, nil)
}

// decodeValidated is decodeJSON for a route that validates the values of its
// body: when decoding found problems, validate (the route's own validation of
// dst as decoded, without side effects) runs too, and the one error lists the
// decoding problems and every value problem of the other fields.
func decodeValidated(r *http.Request, dst any, c pix.Code, validate func() error) error {
	return decodeBody(r, dst, c, true, validate)
}

// DecodeSandboxJSON is decodeJSON for the control plane, which ignores the
// Content-Type so that `curl -d '{"seconds":10}'` (sent as a form) just works.
func DecodeSandboxJSON(r *http.Request, dst any) error {
	return decodeBody(r, dst, pix.CodeInvalidRequest, false, nil)
}

func decodeBody(r *http.Request, dst any, c pix.Code, strictType bool, validate func() error) error {
	if ct := r.Header.Get("Content-Type"); ct != "" && strictType {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || !(mt == "application/json" || strings.HasSuffix(mt, "+json")) {
			return pix.Invalid(c, pix.Violation{Field: "body", Message: fmt.Sprintf("Content-Type must be application/json, not %q", pix.Clip(ct, 60))})
		}
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return pix.Invalid(c, pix.Violation{Field: "body", Message: "could not be read"})
	}
	if len(data) > maxBody {
		return &pix.Error{Kind: pix.KindTooLarge, Code: c, Message: "request body exceeds 1 MiB",
			Violations: []pix.Violation{{Field: "body", Message: "exceeds 1 MiB"}}}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return pix.Invalid(c, pix.Violation{Field: "body", Message: "is required: send a JSON object"})
	}
	vs := strictjson.Decode(data, dst)
	if len(vs) == 0 {
		return nil
	}
	if validate == nil || strictjson.CoveredBy(vs, "body") {
		return pix.Invalid(c, vs...)
	}
	return strictjson.Merge(c, vs, validate())
}
