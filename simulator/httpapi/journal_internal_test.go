package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

func TestJournal_RingKeepsTheNewest(t *testing.T) {
	j := newJournal(3, 0)
	for i := 1; i <= 5; i++ {
		j.add(JournalEntry{Path: fmt.Sprint("/", i)})
	}
	got := j.list(journalFilter{Limit: 10})
	if len(got) != 3 || got[0].Path != "/5" || got[2].Path != "/3" || got[0].ID != 5 {
		t.Fatalf("ring holds %+v", got)
	}
	if n := j.Clear(""); n != 3 || j.Len() != 0 {
		t.Fatalf("clear = %d, size %d", n, j.Len())
	}
	if newJournal(0, 0) != nil {
		t.Fatal("a journal of size 0 must be off")
	}
}

func TestJournal_MaskJSONText(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{name: "nested secret", in: `{"a":{"clientSecret":"x","n":1.50}}`, want: `{"a":{"clientSecret":"***","n":1.50}}`},
		{name: "nothing to mask kept as sent", in: `{"b":1, "a":2}`, want: `{"b":1, "a":2}`},
		{name: "cut JSON still masked", in: `{"clientId":"c","clientSecret":"abc`, want: `{"clientId":"c","clientSecret":"***"`},
		{name: "cut inside an escape", in: `{"clientSecret":"ab\`, want: `{"clientSecret":"***"`},
		{name: "not JSON", in: `hello`, want: `hello`},
		{name: "secret in array", in: `[{"privateKey":"k"}]`, want: `[{"privateKey":"***"}]`},
		{name: "upper case", in: `{"CLIENTSECRET":"x"}`, want: `{"CLIENTSECRET":"***"}`},
		{name: "long s folds to s", in: `{"clientſecret":"x"}`, want: `{"clientſecret":"***"}`},
		{name: "escaped letter", in: `{"client\u0053ecret":"x"}`, want: `{"client\u0053ecret":"***"}`},
		{name: "escaped long s", in: `{"client\u017fecret":"x"}`, want: `{"client\u017fecret":"***"}`},
		{name: "kelvin sign folds to k", in: `{"to` + "\u212a" + `en":"x"}`, want: `{"to` + "\u212a" + `en":"***"}`},
		{name: "space before the colon", in: "{\"secret\" \n: \"x\"}", want: "{\"secret\" \n: \"***\"}"},
		{name: "number, object and array values", in: `{"token":12,"certificate":{"a":"}"},"password":[1,[2]],"k":1}`,
			want: `{"token":"***","certificate":"***","password":"***","k":1}`},
		{name: "cut object value", in: `{"privateKey":{"d":"`, want: `{"privateKey":"***"`},
		{name: "null and empty kept", in: `{"token":null,"secret":""}`, want: `{"token":null,"secret":""}`},
		{name: "a key inside a string is text", in: `{"note":"\"clientSecret\": \"x\""}`, want: `{"note":"\"clientSecret\": \"x\""}`},
		{name: "duplicate keys", in: `{"clientSecret":"a","clientSecret":"b"}`, want: `{"clientSecret":"***","clientSecret":"***"}`},
		{name: "lone surrogate is not a letter", in: `{"client\ud800ecret":"x"}`, want: `{"client\ud800ecret":"x"}`},
		{name: "not a secret", in: `{"clientSecrets":"x","secretary":"y"}`, want: `{"clientSecrets":"x","secretary":"y"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(maskJSONText([]byte(tt.in))); got != tt.want {
				t.Fatalf("maskJSONText(%s) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
	refs := map[string]bool{}
	bodyRefs([]byte(`{"transactionId":"t-1","data":{"endToEndId":"E1","id":7}}`), refs)
	if !refs["t-1"] || !refs["E1"] || len(refs) != 2 {
		t.Fatalf("refs %v", refs)
	}
}

// TestJournal_MaskJSONTextAgreesWithTheDecoder: every key that
// encoding/json would decode into a clientSecret field is masked.
func TestJournal_MaskJSONTextAgreesWithTheDecoder(t *testing.T) {
	var into struct {
		ClientSecret string `json:"clientSecret"`
	}
	for _, key := range []string{"clientSecret", "ClientSecret", "CLIENTSECRET", "clientſecret", `client\u017Fecret`,
		`\u0063lient\u0053ecret`, `client\u0073ecret`, "clientSecreT"} {
		body := `{"` + key + `":"s3cr3t"}`
		into.ClientSecret = ""
		if err := json.Unmarshal([]byte(body), &into); err != nil || into.ClientSecret != "s3cr3t" {
			t.Fatalf("the decoder does not take %s as clientSecret (%v)", key, err)
		}
		if got := string(maskJSONText([]byte(body))); strings.Contains(got, "s3cr3t") {
			t.Errorf("%s: journal keeps %s", key, got)
		}
	}
}

func TestJournal_MaskQuery(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"a=1&b=2", "a=1&b=2"},
		{"access_token=abc&x=1", "access_token=%2A%2A%2A&x=1"},
		{"x=1&ACCESS_TOKEN=abc", "x=1&ACCESS_TOKEN=%2A%2A%2A"},
		{"access%5Ftoken=abc", "access%5Ftoken=%2A%2A%2A"},
		{"adminToken=t&client_secret=s&password=p", "adminToken=%2A%2A%2A&client_secret=%2A%2A%2A&password=%2A%2A%2A"},
		{"token", "token"},
	}
	for _, tt := range tests {
		if got := maskQuery(tt.in); got != tt.want {
			t.Errorf("maskQuery(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := maskQuery("a=" + strings.Repeat("x", 5000)); len(got) > journalURLLimit+10 {
		t.Errorf("a long query is kept whole: %d bytes", len(got))
	}
}

func TestJournal_RecordHeaders(t *testing.T) {
	h := http.Header{}
	h.Set("Authorization", "Bearer abc")
	h.Set("X-Api-Key", "k")
	h.Set("X-Big", strings.Repeat("b", 60<<10))
	h.Set("Accept", "application/json")
	for i := range 20 {
		h.Set(fmt.Sprintf("X-Fill-%02d", i), strings.Repeat("f", 900))
	}
	got, size := recordHeaders(h)
	if got["Authorization"] != "Bearer ***" || got["X-Api-Key"] != "***" || got["Accept"] != "application/json" {
		t.Fatalf("headers %v", got)
	}
	if v := got["X-Big"]; len(v) > journalHeaderValueLimit+16 || !strings.HasSuffix(v, "[cut]") {
		t.Fatalf("X-Big kept %d bytes", len(v))
	}
	total := 0
	for k, v := range got {
		total += len(k) + len(v) + journalHeaderOverhead
	}
	if total != size || size > journalHeadersLimit+200 || got[journalOmittedHeader] == "" {
		t.Fatalf("size %d (counted %d), omitted %q", total, size, got[journalOmittedHeader])
	}
}

func TestJournal_ByteBudget(t *testing.T) {
	j := newJournal(100, 10*journalEntryOverhead)
	for i := range 30 {
		j.add(JournalEntry{Path: fmt.Sprint("/", i), size: journalEntryOverhead * (1 + i%3)})
	}
	if j.Bytes() > 10*journalEntryOverhead || j.Len() == 0 {
		t.Fatalf("%d entries, %d bytes over a budget of %d", j.Len(), j.Bytes(), 10*journalEntryOverhead)
	}
	if got := j.list(journalFilter{Limit: 1}); got[0].Path != "/29" {
		t.Fatalf("newest is %s", got[0].Path)
	}
	j.add(JournalEntry{Path: "/huge", size: 100 * journalEntryOverhead})
	if j.Len() != 1 {
		t.Fatalf("an entry over the whole budget is kept alone: %d entries", j.Len())
	}
	if n := j.Clear(""); n != 1 || j.Bytes() != 0 {
		t.Fatalf("clear: %d, %d bytes left", n, j.Bytes())
	}
	j.add(JournalEntry{Path: "/after"})
	if got := j.list(journalFilter{Limit: 5}); len(got) != 1 || got[0].Path != "/after" {
		t.Fatalf("after clear: %+v", got)
	}
}

func TestJournal_CappedBuffer(t *testing.T) {
	c := cappedBuffer{limit: 4}
	if n, _ := c.Write([]byte("ab")); n != 2 || c.truncated {
		t.Fatal("first write")
	}
	if n, _ := c.Write([]byte("cdef")); n != 4 || !c.truncated || c.buf.String() != "abcd" {
		t.Fatalf("second write: %d %v %q", n, c.truncated, c.buf.String())
	}
	if !strings.HasPrefix(c.buf.String(), "ab") {
		t.Fatal("kept the start")
	}
}

// FuzzMaskJSONText: masking never breaks JSON, and what a decoder would
// read as clientSecret from the masked text is never the value sent.
func FuzzMaskJSONText(f *testing.F) {
	for _, s := range []string{`{"clientSecret":"x"}`, `{"client\u017fecret":"x"}`, `{"a":[{"token":{"b":"}"}}]}`, `{"clientSecret":"ab\`,
		`{"CLIENTSECRET":1}`, `"x":`, `{"secret" : "a\"b"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := maskJSONText([]byte(in))
		var before, after struct {
			ClientSecret any `json:"clientSecret"`
		}
		if json.Unmarshal([]byte(in), &before) != nil {
			return
		}
		if err := json.Unmarshal(out, &after); err != nil {
			t.Fatalf("masking %s broke it: %s (%v)", in, out, err)
		}
		if before.ClientSecret != nil && before.ClientSecret != "" && after.ClientSecret != journalMask {
			t.Fatalf("%s masked to %s: clientSecret reads %v", in, out, after.ClientSecret)
		}
	})
}
