package state_test

import (
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
	"github.com/pixsandbox/pixsandbox/conformance/contract/state"
)

// listed is a listing of one item, transaction "5", changed at path.
func listed(seq uint64, changes ...string) *contract.Exchange {
	body := listingOK
	for i := 0; i+1 < len(changes); i += 2 {
		body = mut(body, changes[i], changes[i+1])
	}
	return exch("GET /api/transactions", "", 200, body, at(seq, time.Duration(seq)*time.Second))
}

func cobRead(seq uint64, changes ...string) *contract.Exchange {
	body := cobOK
	for i := 0; i+1 < len(changes); i += 2 {
		body = mut(body, changes[i], changes[i+1])
	}
	return exch("GET "+cobPath, "", 200, body, at(seq, time.Duration(seq)*time.Second))
}

func refundRead(seq uint64, changes ...string) *contract.Exchange {
	body := refundOK
	for i := 0; i+1 < len(changes); i += 2 {
		body = mut(body, changes[i], changes[i+1])
	}
	return exch("GET "+refundPath, "", 200, body, at(seq, time.Duration(seq)*time.Second))
}

func medRead(seq uint64, changes ...string) *contract.Exchange {
	body := medOK
	for i := 0; i+1 < len(changes); i += 2 {
		body = mut(body, changes[i], changes[i+1])
	}
	return exch("GET /api/med", "", 200, body, at(seq, time.Duration(seq)*time.Second))
}

func TestModel_ContradictingReads(t *testing.T) {
	const pending = `"Pendente"`
	tests := []struct {
		name, rule, field string // rule "" = no finding
		exs               []*contract.Exchange
	}{
		{"a listing read twice alike", "", "", []*contract.Exchange{listed(1), listed(2)}},
		{"an item's externalId changed", "state.read-contradicts", "data[0].externalId", []*contract.Exchange{listed(1), listed(2, "data[0].externalId", `"other"`)}},
		{"an item's operationType changed", "state.read-contradicts", "data[0].operationType", []*contract.Exchange{listed(1), listed(2, "data[0].operationType", `"Refund out"`)}},
		{"an ended item's amount changed", "state.read-contradicts", "data[0].originalAmount", []*contract.Exchange{listed(1), listed(2, "data[0].originalAmount", "49.00")}},
		{"the same amount written otherwise", "", "", []*contract.Exchange{listed(1), listed(2, "data[0].originalAmount", "50")}},
		{"a pending item's amount may change", "", "", []*contract.Exchange{listed(1, "data[0].status", pending), listed(2, "data[0].status", pending, "data[0].originalAmount", "49.00"), listed(3, "data[0].originalAmount", "49.00")}},
		{"an ended item pending again", "state.listing-transition", "data[0].status", []*contract.Exchange{listed(1), listed(2, "data[0].status", pending)}},
		{"an item confirmed, then in error", "state.listing-transition", "data[0].status", []*contract.Exchange{listed(1), listed(2, "data[0].status", `"Error"`)}},
		{"an item pending, then confirmed", "", "", []*contract.Exchange{listed(1, "data[0].status", pending), listed(2)}},
		{"two reads in flight together", "", "", []*contract.Exchange{listed(1), func() *contract.Exchange {
			ex := listed(2, "data[0].status", pending, "data[0].externalId", `"other"`)
			ex.Start = epoch.Add(500 * time.Millisecond)
			return ex
		}()}},
		{"another account's transaction 5", "", "", []*contract.Exchange{listed(1), func() *contract.Exchange {
			ex := listed(2, "data[0].externalId", `"other"`)
			tokenOf("2", epoch)(ex)
			return ex
		}()}},
		{"a refund's valor changed", "state.read-contradicts", "valor", []*contract.Exchange{refundRead(1), refundRead(2, "valor", `"9.00"`)}},
		{"a refund's rtrId changed", "state.read-contradicts", "rtrId", []*contract.Exchange{refundRead(1), refundRead(2, "rtrId", `"D13140088202603021200abcdefghijz"`)}},
		{"a refund returned", "", "", []*contract.Exchange{refundRead(1), refundRead(2, "status", `"DEVOLVIDO"`)}},
		{"a cob's revisao lower", "state.read-contradicts", "revisao", []*contract.Exchange{cobRead(1, "revisao", "2"), cobRead(2, "revisao", "1")}},
		{"a cob's valor changed within a revisao", "state.read-contradicts", "valor.original", []*contract.Exchange{cobRead(1), cobRead(2, "valor.original", `"16.00"`)}},
		{"a cob's valor changed by a new revisao", "", "", []*contract.Exchange{cobRead(1), cobRead(2, "revisao", "1", "valor.original", `"16.00"`)}},
		{"a MED's endToEnd changed", "state.read-contradicts", "data[0].endToEnd", []*contract.Exchange{medRead(1), medRead(2, "data[0].endToEnd", `"E13140088202603021200abcdefghijz"`)}},
		{"a MED analysed", "", "", []*contract.Exchange{medRead(1), medRead(2, "data[0].status", `"ANALYZED"`, "data[0].analysisResult", `"APPROVED"`)}},
		{"a reset forgets the transactions", "", "", []*contract.Exchange{listed(1),
			exch("POST /_sandbox/reset", "", 200, `{}`, at(2, 2*time.Second), header("Authorization", "")), listed(3, "data[0].externalId", `"other"`)}},
		{"a transfer's amount under one id", "state.read-contradicts", "payment.amount", []*contract.Exchange{
			exch("POST /dict/pix", transferReq, 200, transferOK, idem, at(1, time.Second)),
			exch("POST /dict/pix", transferReq, 200, mut(transferOK, "payment.amount", "12.35"), idem, at(2, 2*time.Second))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := observeAll(state.Bounds{}, tt.exs...)
			if tt.rule == "" {
				if len(fs) > 0 {
					t.Fatalf("findings:%s", describe(fs))
				}
				return
			}
			last := tt.exs[len(tt.exs)-1].Seq
			if len(fs) != 1 || fs[0].Rule != tt.rule || fs[0].Field != tt.field || fs[0].Exchange != last {
				t.Fatalf("want one %s finding on %s, exchange %d; got:%s", tt.rule, tt.field, last, describe(fs))
			}
			if f := fs[0]; f.Expected == "" || f.Seen == "" || len(f.Related) == 0 {
				t.Errorf("finding without its evidence: %+v", f)
			}
		})
	}
}

// TestModel_ContradictionOnce: a value changed is reported once, then
// compared as it now is.
func TestModel_ContradictionOnce(t *testing.T) {
	fs := observeAll(state.Bounds{}, listed(1), listed(2, "data[0].externalId", `"other"`), listed(3, "data[0].externalId", `"other"`))
	if len(fs) != 1 {
		t.Fatalf("findings:%s", describe(fs))
	}
}
