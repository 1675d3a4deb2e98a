package core_test

import (
	"context"

	"fmt"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

// TestInvariants_HistoryAgreesWithLedger: a history of every kind (cash-out
// settled and failed, DICT transfer between sandbox accounts, PIX received,
// charge paid with splits, refunds on both routes, a refund to a sandbox payer,
// a MED approved and refunded) checks clean, and counts what it checked.
func TestInvariants_HistoryAgreesWithLedger(t *testing.T) {
	p := newPixOut(t)
	a := p.account(200_00)
	b := p.account(0)
	if _, err := p.env.Sim.SetAccountSettings(p.ctx, a.Account.ID, pix.Settings{Limits: pix.DefaultSettings(a.Account.Document).Limits, Fee: 1_25, CashInFee: 0_40}); err != nil {
		t.Fatal(err)
	}
	key, doc := p.externalKey()
	if _, err := p.env.Sim.CreateCashOut(p.ctx, a.Account.ID, cashOut("10", key, "EMAIL", doc), scenarios.None); err != nil {
		t.Fatal(err)
	}
	fail, _ := scenarios.Lookup(string(pix.CodeAccountClosed))
	if _, err := p.env.Sim.CreateCashOut(p.ctx, a.Account.ID, cashOut("5", key, "EMAIL", doc), fail); err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.env.Sim.CreateTransfer(p.ctx, a.Account.ID, transferReq(b.Account.PixKeys[1].Key, "30"), scenarios.None); err != nil {
		t.Fatal(err)
	}
	// A PIX to the account's own key: its two sides share an end-to-end id.
	self, _, err := p.env.Sim.CreateTransfer(p.ctx, a.Account.ID, transferReq(a.Account.PixKeys[1].Key, "4"), scenarios.None)
	if err != nil {
		t.Fatal(err)
	}
	o := p.received(a, "50")
	split := pix.SplitRequest{PixKey: key, PixKeyType: "EMAIL", Name: "Fulano", Document: doc, Type: "FIXED", Value: "3", Immediate: true}
	var ch pix.Transaction
	ch, _, err = p.env.Sim.CreateCashIn(p.ctx, a.Account.ID, cashInReq("inv-1", "20", split), scenarios.None)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.env.Sim.Pay(p.ctx, pix.Payment{TransactionID: fmt.Sprint(ch.ID)}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.refund(a, pix.RefundOriginal{EndToEndID: o.EndToEndID}, "r1", "10", scenarios.None); err != nil {
		t.Fatal(err)
	}
	if _, err := p.refund(a, pix.RefundOriginal{TransactionID: fmt.Sprint(o.ID)}, "r2", "15", scenarios.None); err != nil {
		t.Fatal(err)
	}
	p.invariants() // with holds pending
	p.advance(2 * time.Second)
	// b refunds part of a's transfer: a sandbox payer receives a REFUND_OUT.
	var in pix.Transaction
	page, _, err := p.env.Sim.ListTransactions(p.ctx, b.Account.ID, pix.TransactionFilter{From: time.Unix(0, 0), To: p.env.Sim.Clock().Now(), Page: 1, Size: 10})
	if err != nil || len(page) != 1 {
		t.Fatalf("b's history: %v %v", page, err)
	}
	in = page[0]
	if _, err := p.refund(b, pix.RefundOriginal{EndToEndID: in.EndToEndID}, "back", "7", scenarios.None); err != nil {
		t.Fatal(err)
	}
	// A refund of the PIX to its own key: both refund sides in one account.
	if _, err := p.refund(a, pix.RefundOriginal{TransactionID: fmt.Sprint(p.tx(self.ID).RelatedID)}, "self", "1", scenarios.None); err != nil {
		t.Fatal(err)
	}
	m, err := p.env.Sim.OpenMED(p.ctx, pix.MEDOpen{AccountID: a.Account.ID, EndToEndID: o.EndToEndID, Cause: "SCAM"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.env.Sim.AnalyzeMED(p.ctx, m.ID, pix.MEDResultApproved, ""); err != nil {
		t.Fatal(err)
	}
	p.invariants() // a MED block in force
	if _, err := p.env.Sim.RefundMED(p.ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	p.invariants() // the block carried into the MED's refund
	p.advance(2 * time.Second)
	rep, err := p.env.Sim.CheckInvariants(p.ctx)
	if err != nil || len(rep.Violations) > 0 {
		t.Fatalf("invariants: %v %v", rep.Violations, err)
	}
	if rep.Transactions < 10 || rep.Refunds < 4 {
		t.Fatalf("checked %d transactions and %d refunds", rep.Transactions, rep.Refunds)
	}
}

// TestInvariants_EndToEndIDsUniqueAcrossRestarts: a restart on the same data
// dir, with the clock restored in the same minute, draws new end-to-end ids
// and keys rather than replaying the first start's random stream.
func TestInvariants_EndToEndIDsUniqueAcrossRestarts(t *testing.T) {
	dir := t.TempDir()
	p := &pixOut{t: t, env: simulatortest.Open(t, simulatortest.Options{Dir: dir}), ctx: context.Background()}
	a := p.account(0)
	first := p.received(a, "1")
	p.env.Close()
	p.env = simulatortest.Open(t, simulatortest.Options{Dir: dir})
	defer p.env.Close()
	// The same requests as the first start: the same draws if the stream replayed.
	b := p.account(0)
	second := p.received(a, "1")
	for _, k := range b.Account.PixKeys {
		for _, ka := range a.Account.PixKeys {
			if k.Key == ka.Key {
				t.Fatalf("two accounts hold key %s", k.Key)
			}
		}
	}
	if first.EndToEndID == second.EndToEndID {
		t.Fatalf("two PIX with endToEndId %s", first.EndToEndID)
	}
	p.invariants()
}
