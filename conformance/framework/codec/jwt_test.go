package codec

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
)

// hs256 builds a token signed with key, as a target would.
func hs256(t *testing.T, key []byte, claims string) string {
	t.Helper()
	s := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." +
		base64.RawURLEncoding.EncodeToString([]byte(claims))
	m := hmac.New(sha256.New, key)
	m.Write([]byte(s))
	return s + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func TestParseJWT(t *testing.T) {
	tok := hs256(t, []byte("k"), `{"sub":"7","iat":1735732800,"exp":1735734600}`)
	j, err := ParseJWT(tok)
	if err != nil {
		t.Fatal(err)
	}
	if j.Header["alg"] != "HS256" || j.Payload["exp"] != json.Number("1735734600") || len(j.Signature) != 32 || j.Raw != tok {
		t.Fatalf("ParseJWT = %+v", j)
	}
	for name, bad := range map[string]string{
		"two parts":          "a.b",
		"not a JWT":          MalformedToken,
		"padded base64":      base64.URLEncoding.EncodeToString([]byte(`{"a":1}`)) + ".e30.",
		"header not JSON":    base64.RawURLEncoding.EncodeToString([]byte(`nope`)) + ".e30.",
		"payload not object": "e30." + base64.RawURLEncoding.EncodeToString([]byte(`[1]`)) + ".",
		"signature std b64":  "e30.e30.a+b/",
	} {
		if _, err := ParseJWT(bad); err == nil {
			t.Errorf("%s: ParseJWT(%q) = nil error", name, bad)
		}
	}
}

func TestResignHS256(t *testing.T) {
	orig := hs256(t, []byte("server key"), `{"sub":"7"}`)
	forged, err := ResignHS256(orig, []byte("another key"))
	if err != nil {
		t.Fatal(err)
	}
	op, fp := strings.Split(orig, "."), strings.Split(forged, ".")
	if op[0] != fp[0] || op[1] != fp[1] {
		t.Fatalf("header or payload changed: %q -> %q", orig, forged)
	}
	if op[2] == fp[2] {
		t.Fatal("signature unchanged")
	}
	if want := hs256(t, []byte("another key"), `{"sub":"7"}`); forged != want {
		t.Fatalf("forged = %q, want a valid HS256 signature under the other key %q", forged, want)
	}
	if _, err := ResignHS256("nope", []byte("k")); err == nil {
		t.Error("ResignHS256 of a non-JWT: want an error")
	}
	if a, b := RandomKey(), RandomKey(); len(a) != 32 || string(a) == string(b) {
		t.Error("RandomKey: want 32 fresh bytes per call")
	}
}

func TestAlgNone(t *testing.T) {
	orig := hs256(t, []byte("k"), `{"sub":"7"}`)
	none, err := AlgNone(orig)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(none, ".") {
		t.Errorf("AlgNone = %q, want an empty signature", none)
	}
	j, err := ParseJWT(none)
	if err != nil {
		t.Fatal(err)
	}
	if j.Header["alg"] != "none" || j.Payload["sub"] != "7" || len(j.Signature) != 0 {
		t.Fatalf("AlgNone parsed = %+v", j)
	}
	if _, err := AlgNone("a.b"); err == nil {
		t.Error("AlgNone of a non-JWT: want an error")
	}
}
