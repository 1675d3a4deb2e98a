package httpapi

import (
	"fmt"
	"strings"
	"testing"
)

func TestJournal_RingKeepsTheNewest(t *testing.T) {
	j := newJournal(3)
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
	if newJournal(0) != nil {
		t.Fatal("a journal of size 0 must be off")
	}
}

func TestJournal_MaskBody(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{name: "nested secret", in: `{"a":{"clientSecret":"x","n":1.50}}`, want: `{"a":{"clientSecret":"***","n":1.50}}`},
		{name: "nothing to mask kept as sent", in: `{"b":1, "a":2}`, want: `{"b":1, "a":2}`},
		{name: "cut JSON still masked", in: `{"clientId":"c","clientSecret":"abc`, want: `{"clientId":"c","clientSecret":"***"`},
		{name: "not JSON", in: `hello`, want: `hello`},
		{name: "secret in array", in: `[{"privateKey":"k"}]`, want: `[{"privateKey":"***"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := maskBody([]byte(tt.in), map[string]bool{}); got != tt.want {
				t.Fatalf("maskBody(%s) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
	refs := map[string]bool{}
	maskBody([]byte(`{"transactionId":"t-1","data":{"endToEndId":"E1","id":7}}`), refs)
	if !refs["t-1"] || !refs["E1"] || len(refs) != 2 {
		t.Fatalf("refs %v", refs)
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
