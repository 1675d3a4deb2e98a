package httpapi

import (
	"bytes"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// What the journal records of a request is a bounded, masked copy, made when
// the request is recorded: no secret and no oversized header stays in memory
// until the journal is read.
//
// Secret JSON keys are matched as the body decoders match struct fields
// (encoding/json: escapes decoded, then Unicode simple case folding), so
// every spelling the token route accepts for clientSecret — "CLIENTSECRET",
// "client\u017fecret" (ſ folds to s), "client\u0053ecret" — is masked, in
// a whole body and in one cut at journalBodyLimit alike.

// Limits of a recorded request's text.
const (
	journalHeaderValueLimit = 1 << 10 // one header's value(s)
	journalHeadersLimit     = 8 << 10 // the whole header set, names and values
	journalURLLimit         = 2 << 10 // the path, and the query
	journalHeaderOverhead   = 64      // what a kept header costs beyond its text (its map slot, string headers)
)

// journalOmittedHeader names the entry that says how much of the header set
// was left out.
const journalOmittedHeader = "X-Journal-Omitted"

// journalSecretNames are the JSON keys and query parameters whose values an
// entry masks: client credentials, tokens, private keys, certificates and
// signing secrets.
var journalSecretNames = []string{
	"clientSecret", "client_secret", "access_token", "accessToken", "refresh_token", "refreshToken", "token",
	"privateKey", "private_key", "certificate", "secret", "password", "adminToken", "admin_token", "apiKey", "api_key",
}

// journalSecretFolded holds journalSecretNames folded by foldKey.
var journalSecretFolded = func() map[string]bool {
	m := make(map[string]bool, len(journalSecretNames))
	for _, n := range journalSecretNames {
		m[foldKey(n)] = true
	}
	return m
}()

// isSecretName reports whether a JSON key or query parameter (already
// unescaped) names a secret.
func isSecretName(name string) bool {
	if len(name) > 64 {
		return false
	}
	var buf [64]byte
	return journalSecretFolded[string(appendFolded(buf[:0], name))]
}

// foldKey folds a name as encoding/json does to match a key with a field:
// ASCII letters to upper case, every other rune to the smallest rune of its
// simple folding orbit (so foldKey(a) == foldKey(b) exactly when
// strings.EqualFold(a, b)).
func foldKey(s string) string { return string(appendFolded(nil, s)) }

func appendFolded(out []byte, s string) []byte {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		for {
			r2 := unicode.SimpleFold(r)
			if r2 <= r {
				r = r2
				break
			}
			r = r2
		}
		out = utf8.AppendRune(out, r)
		i += n
	}
	return out
}

// journalSecretHeaders are the request headers an entry masks, besides any
// whose name speaks of a token, secret, password, key or session.
var journalSecretHeaders = map[string]bool{
	"Authorization": true, "X-Ssl-Client-Cert": true, "X-Sandbox-Admin-Token": true, "Cookie": true, "Proxy-Authorization": true,
}

func isSecretHeader(k string) bool {
	if journalSecretHeaders[http.CanonicalHeaderKey(k)] {
		return true
	}
	l := strings.ToLower(k)
	for _, w := range []string{"token", "secret", "password", "api-key", "apikey", "session", "cookie", "credential"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// recordHeaders copies the request headers, one value each, secrets masked,
// each value cut at journalHeaderValueLimit and the set at
// journalHeadersLimit (by name order; what does not fit is counted in
// journalOmittedHeader). It returns the copy and its size in bytes.
func recordHeaders(h http.Header) (map[string]string, int) {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	out := make(map[string]string, min(len(h), 16))
	size, omitted, omittedBytes := 0, 0, 0
	for _, k := range names {
		vs := h[k]
		var v string
		if isSecretHeader(k) {
			v = maskHeaderValue(k, vs)
		} else {
			v = cutText(joinCapped(vs, journalHeaderValueLimit), journalHeaderValueLimit)
		}
		if size+len(k)+len(v)+journalHeaderOverhead > journalHeadersLimit {
			omitted++
			for _, x := range vs {
				omittedBytes += len(x)
			}
			continue
		}
		size += len(k) + len(v) + journalHeaderOverhead
		out[k] = v
	}
	if omitted > 0 {
		v := strconv.Itoa(omitted) + " headers (" + strconv.Itoa(omittedBytes) + " bytes) over the journal's header budget"
		out[journalOmittedHeader] = v
		size += len(journalOmittedHeader) + len(v) + journalHeaderOverhead
	}
	return out, size
}

// joinCapped joins values with ", ", copying at most limit+1 bytes.
func joinCapped(vs []string, limit int) string {
	if len(vs) == 1 && len(vs[0]) <= limit {
		return strings.Clone(vs[0])
	}
	var b strings.Builder
	for i, v := range vs {
		if i > 0 {
			b.WriteString(", ")
		}
		if room := limit + 1 - b.Len(); len(v) > room {
			b.WriteString(v[:max(room, 0)])
			break
		}
		b.WriteString(v)
	}
	return b.String()
}

// cutText cuts s to limit bytes (on a rune boundary) and says it did.
func cutText(s string, limit int) string { return pix.ClipMark(s, limit, "…[cut]") }

// maskHeaderValue masks a secret header's value: an Authorization keeps its
// scheme.
func maskHeaderValue(k string, vs []string) string {
	if len(vs) == 1 && strings.EqualFold(http.CanonicalHeaderKey(k), "Authorization") {
		if scheme, _, ok := strings.Cut(vs[0], " "); ok && len(scheme) <= 32 {
			return strings.Clone(scheme) + " " + journalMask
		}
	}
	return journalMask
}

// maskQuery masks the values of secret query parameters (names unescaped and
// folded as JSON keys are) and cuts the query at journalURLLimit. A query
// without secrets is returned as it is.
func maskQuery(raw string) string {
	if raw == "" || !strings.Contains(raw, "=") {
		return cutText(raw, journalURLLimit)
	}
	parts := strings.Split(raw, "&")
	masked := false
	for i, p := range parts {
		name, _, ok := strings.Cut(p, "=")
		if !ok {
			continue
		}
		n := name
		if u, err := url.QueryUnescape(name); err == nil {
			n = u
		}
		if isSecretName(n) {
			parts[i] = name + "=" + url.QueryEscape(journalMask)
			masked = true
		}
	}
	if masked {
		raw = strings.Join(parts, "&")
	}
	return cutText(raw, journalURLLimit)
}

// maskForm masks the values of secret fields of a form-encoded body.
func maskForm(b []byte) []byte {
	if out := maskQuery(string(b)); out != string(b) {
		return []byte(out)
	}
	return b
}

// maskJSONText masks, in JSON text that may be cut short or not JSON at all,
// the value of every member whose key names a secret: a string, number or
// literal becomes "***", an object or array "***" in its place; null and ""
// are kept. The text is otherwise kept as sent. It returns b itself when
// nothing is masked, and allocates only for a key followed by a colon.
func maskJSONText(b []byte) []byte {
	var out []byte // nil until the first mask
	copied := 0    // b[:copied] is in out
	for i := 0; i < len(b); {
		if b[i] != '"' {
			i++
			continue
		}
		end := stringEnd(b, i)
		j := skipSpace(b, end)
		if j >= len(b) || b[j] != ':' || end-i > 6*64+2 || !isSecretName(decodeString(b[i+1:end-1])) {
			i = end
			continue
		}
		vs := skipSpace(b, j+1)
		ve := valueEnd(b, vs)
		if ve == vs || string(b[vs:ve]) == "null" || string(b[vs:ve]) == `""` {
			i = max(ve, vs+1)
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(b))
		}
		out = append(out, b[copied:vs]...)
		out = append(out, `"`+journalMask+`"`...)
		copied, i = ve, ve
	}
	if out == nil {
		return b
	}
	return append(out, b[copied:]...)
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index after the closing quote of the JSON string
// that starts at b[i] (a quote), or len(b)+1 when the text is cut inside it
// (so b[i+1:end-1] is always its content).
func stringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '"':
			return i + 1
		case '\\':
			i++
		}
	}
	return len(b) + 1
}

// decodeString decodes the escapes of a JSON string's content as
// encoding/json does (a lone surrogate becomes U+FFFD).
func decodeString(raw []byte) string {
	if !bytes.ContainsRune(raw, '\\') {
		return string(raw)
	}
	s := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); {
		if raw[i] != '\\' || i+1 >= len(raw) {
			s, i = append(s, raw[i]), i+1
			continue
		}
		if raw[i+1] != 'u' {
			s, i = append(s, unescapeByte(raw[i+1])), i+2
			continue
		}
		r, n := readU(raw, i)
		if n == 0 {
			s, i = append(s, raw[i:min(i+2, len(raw))]...), i+2
			continue
		}
		if utf16.IsSurrogate(r) {
			if r1, n1 := readU(raw, i+n); n1 > 0 && utf16.DecodeRune(r, r1) != utf8.RuneError {
				r, n = utf16.DecodeRune(r, r1), n+n1
			} else {
				r = utf8.RuneError
			}
		}
		s, i = utf8.AppendRune(s, r), i+n
	}
	return string(s)
}

// readU reads a \uXXXX escape at b[i]; n is 0 when there is none.
func readU(b []byte, i int) (r rune, n int) {
	if i+6 > len(b) || b[i] != '\\' || b[i+1] != 'u' {
		return 0, 0
	}
	v, err := strconv.ParseUint(string(b[i+2:i+6]), 16, 32)
	if err != nil {
		return 0, 0
	}
	return rune(v), 6
}

func unescapeByte(e byte) byte {
	switch e {
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	}
	return e // \" \\ \/ and anything else as itself
}

// valueEnd returns the end of the JSON value that starts at b[i]: after a
// string's closing quote, an object's or array's matching bracket (len(b)
// when cut), or a scalar's last byte.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return min(stringEnd(b, i), len(b))
	case '{', '[':
		depth := 0
		for j := i; j < len(b); {
			switch b[j] {
			case '"':
				j = stringEnd(b, j)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
			j++
		}
		return len(b)
	}
	j := i
	for j < len(b) && !strings.ContainsRune(",}] \t\r\n", rune(b[j])) {
		j++
	}
	return j
}
