package refs

import (
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// A cause written by Ref or MEDRef parses back into its parts.
func TestRefParsesBack(t *testing.T) {
	for _, tc := range []struct {
		ref, kind, what string
		n               int64
	}{
		{Ref(pix.Transaction{Kind: pix.TxCashOut, ID: 42}, "hold"), string(pix.TxCashOut), "hold", 42},
		{MEDRef(7, "block"), MEDKind, "block", 7},
	} {
		kind, n, what, ok := Parse(tc.ref)
		if !ok || kind != tc.kind || n != tc.n || what != tc.what {
			t.Errorf("Parse(%q) = %q %d %q %v", tc.ref, kind, n, what, ok)
		}
	}
	if _, _, _, ok := Parse(OpeningBalance); ok {
		t.Errorf("Parse(%q) names a number", OpeningBalance)
	}
}

func TestQuoteShortens(t *testing.T) {
	if got := Quote(strings.Repeat("x", 100)); len(got) != 80+len(`"..."`) {
		t.Errorf("Quote of 100 bytes = %s", got)
	}
	// A cut never splits a character: strconv.Quote would show its bytes
	// escaped (\xc3) in the message.
	if got := Quote(strings.Repeat("x", 79) + "ção"); got != `"`+strings.Repeat("x", 79)+`..."` {
		t.Errorf("Quote cut inside a character: %s", got)
	}
}
