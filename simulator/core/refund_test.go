package core_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// received makes the account receive amount by pix-in and returns that PIX.
func (p *pixOut) received(a pix.CreatedAccount, amount string) pix.Transaction {
	p.t.Helper()
	res, err := p.env.Sim.PixIn(p.ctx, pix.Payment{Key: a.Account.PixKeys[1].Key, Amount: amount})
	if err != nil {
		p.t.Fatal(err)
	}
	return p.tx(res.TransactionID)
}

func (p *pixOut) refund(a pix.CreatedAccount, orig pix.RefundOriginal, id, amount string, sc scenarios.Scenario) (pix.Refund, error) {
	c, err := pix.ParseDecimal(amount)
	if err != nil {
		p.t.Fatal(err)
	}
	r, _, err := p.env.Sim.CreateRefund(p.ctx, a.Account.ID, orig, pix.RefundRequest{ID: id, Amount: c, Nature: pix.NatureOriginal}, sc)
	return r, err
}

// TestRefund_OneBalanceBothRoutes: a 60 + 40 refund of 100 succeeds through the
// two routes, one more centavo is refused on both.
func TestRefund_OneBalanceBothRoutes(t *testing.T) {
	p := newPixOut(t)
	a := p.account(0)
	s := newSink(t)
	p.target(a.Account.ID, webhook.EventRefundIn, s)
	o := p.received(a, "100")
	bacen := pix.RefundOriginal{EndToEndID: o.EndToEndID}
	std := pix.RefundOriginal{TransactionID: fmt.Sprint(o.ID)}

	r1, err := p.refund(a, bacen, "r1", "60.00", scenarios.None)
	if err != nil || r1.Status != pix.RefundStatusEmProcessamento || !pix.ValidEndToEndID(r1.RtrID) || r1.RtrID[0] != 'D' {
		t.Fatalf("first refund: %+v %v", r1, err)
	}
	// Held while processing: available → blocked.
	if b := p.balance(a.Account.ID); b != (pix.Balance{Available: 40_00, Blocked: 60_00}) {
		t.Fatalf("while processing: %+v", b)
	}
	r2, err := p.refund(a, std, "r2", "40", scenarios.None)
	if err != nil {
		t.Fatalf("second refund (refund-in route, by id): %v", err)
	}
	for _, orig := range []pix.RefundOriginal{bacen, std, {TransactionID: o.UUID}} {
		if _, err := p.refund(a, orig, "r3", "0.01", scenarios.None); pix.ErrorCode(err) != pix.CodeRefundExceedsBalance {
			t.Fatalf("one centavo more via %+v: %v", orig, err)
		}
	}
	// Both routes see the same refunds: the id is the refund-in externalId.
	same, replayed, err := p.env.Sim.CreateRefund(p.ctx, a.Account.ID, std, pix.RefundRequest{ID: "r1", Amount: 60_00}, scenarios.None)
	if err != nil || !replayed || same.RtrID != r1.RtrID {
		t.Fatalf("r1 through the other route: %+v %v %v", same, replayed, err)
	}
	if _, _, err := p.env.Sim.CreateRefund(p.ctx, a.Account.ID, bacen, pix.RefundRequest{ID: "r1", Amount: 59_00}, scenarios.None); pix.ErrorCode(err) != pix.CodeRefundIDConflict {
		t.Fatalf("same id, another valor: %v", err)
	}
	p.advance(2 * time.Second)
	got, err := p.env.Sim.RefundOf(p.ctx, a.Account.ID, o.EndToEndID, r2.ID)
	if err != nil || got.Status != pix.RefundStatusDevolvido || got.SettledAt.IsZero() {
		t.Fatalf("settled: %+v %v", got, err)
	}
	if b := p.balance(a.Account.ID); b != (pix.Balance{}) {
		t.Fatalf("after settlement: %+v", b)
	}
	if rt := p.tx(r2.TransactionID); rt.Kind != pix.TxRefundIn || rt.Status != pix.TxStatusConfirmed || rt.RelatedID != o.ID {
		t.Fatalf("refund transaction = %+v", rt)
	}
	bodies, _ := s.received()
	if len(bodies) != 2 || bodies[0]["type"] != "REFUND" || bodies[1]["type"] != "REFUND" {
		t.Fatalf("webhooks = %v", bodies)
	}
	// The two refunds settle at one instant and their webhooks are sent
	// concurrently: the second to settle lists both, whichever arrives last.
	d := bodies[1]["data"].(map[string]any)
	if len(d["refunds"].([]any)) != 2 {
		d = bodies[0]["data"].(map[string]any)
	}
	if d["status"] != "REFUNDED" || d["endToEndId"] != o.EndToEndID || d["creditDebitType"] != "DEBIT" || len(d["refunds"].([]any)) != 2 {
		t.Fatalf("REFUND data = %v", d)
	}
	p.invariants()
}

func TestRefund_Errors(t *testing.T) {
	p := newPixOut(t)
	a := p.account(100_00)
	o := p.received(a, "10")
	key, doc := p.externalKey()
	out, _ := p.env.Sim.CreateCashOut(p.ctx, a.Account.ID, cashOut("1", key, "EMAIL", doc), scenarios.None)
	p.advance(2 * time.Second)
	sent := p.tx(out.ID)
	for name, tc := range map[string]struct {
		orig pix.RefundOriginal
		want *pix.Error
	}{
		"unknown e2e":        {pix.RefundOriginal{EndToEndID: "E00000000202603021200aaaaaaaaaaa"}, &pix.Error{Kind: pix.KindNotFound}},
		"not a receipt":      {pix.RefundOriginal{EndToEndID: sent.EndToEndID}, &pix.Error{Kind: pix.KindNotFound, Code: pix.CodeRefundNotAReceipt}},
		"not a receipt (id)": {pix.RefundOriginal{TransactionID: fmt.Sprint(sent.ID)}, &pix.Error{Kind: pix.KindNotFound, Code: pix.CodeRefundNotAReceipt}},
		"unknown parent":     {pix.RefundOriginal{TransactionID: "999999"}, &pix.Error{Kind: pix.KindNotFound}},
	} {
		if _, err := p.refund(a, tc.orig, "x", "1.00", scenarios.None); !pix.Match(tc.want, err) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// Another account never reaches this account's PIX.
	b := p.account(100_00)
	if _, err := p.refund(b, pix.RefundOriginal{TransactionID: fmt.Sprint(o.ID)}, "x", "1.00", scenarios.None); !pix.Match(&pix.Error{Kind: pix.KindNotFound}, err) {
		t.Fatalf("other account: %v", err)
	}
	// A refund that fails at processing returns the hold and the refundable balance.
	fail, _ := scenarios.Lookup("REFUND_FAILURE")
	r, err := p.refund(a, pix.RefundOriginal{EndToEndID: o.EndToEndID}, "f1", "10.00", fail)
	if err != nil {
		t.Fatal(err)
	}
	p.advance(2 * time.Second)
	got, _ := p.env.Sim.RefundOf(p.ctx, a.Account.ID, o.EndToEndID, r.ID)
	if got.Status != pix.RefundStatusNaoRealizado || got.Motivo == "" || p.tx(r.TransactionID).Status != pix.TxStatusError {
		t.Fatalf("failed refund = %+v", got)
	}
	if _, err := p.refund(a, pix.RefundOriginal{EndToEndID: o.EndToEndID}, "f2", "10.00", scenarios.None); err != nil {
		t.Fatalf("the whole amount is refundable again: %v", err)
	}
	// A refund the account cannot cover ends NAO_REALIZADO at once (Gap G-44).
	c := p.account(0)
	oc := p.received(c, "10")
	if _, err := p.env.Sim.AdvanceClock(p.ctx, 0, pix.ClockWaitWebhooks); err != nil {
		t.Fatal(err)
	}
	cashOutAll := cashOut("10", key, "EMAIL", doc)
	if _, err := p.env.Sim.CreateCashOut(p.ctx, c.Account.ID, cashOutAll, scenarios.None); err != nil {
		t.Fatal(err)
	}
	r, err = p.refund(c, pix.RefundOriginal{EndToEndID: oc.EndToEndID}, "n1", "5.00", scenarios.None)
	if err != nil || r.Status != pix.RefundStatusNaoRealizado {
		t.Fatalf("uncovered refund: %+v %v", r, err)
	}
	p.invariants()
}

// TestRefund_Window: day 89 is accepted and day 90 refused.
func TestRefund_Window(t *testing.T) {
	p := newPixOut(t)
	a := p.account(0)
	o1, o2 := p.received(a, "10"), p.received(a, "10")
	p.advance(89 * 24 * time.Hour)
	if _, err := p.refund(a, pix.RefundOriginal{EndToEndID: o1.EndToEndID}, "d89", "1.00", scenarios.None); err != nil {
		t.Fatalf("day 89: %v", err)
	}
	p.advance(24 * time.Hour)
	if _, err := p.refund(a, pix.RefundOriginal{EndToEndID: o2.EndToEndID}, "d90", "1.00", scenarios.None); !pix.Match(&pix.Error{Kind: pix.KindUnprocessable, Code: pix.CodeRefundDeadlineExpired}, err) {
		t.Fatalf("day 90: %v", err)
	}
}

// TestRefund_ToSandboxPayer: a refund of a PIX from another sandbox account goes
// back to it (REFUND_OUT, refund_out webhook).
func TestRefund_ToSandboxPayer(t *testing.T) {
	p := newPixOut(t)
	payer, receiver := p.account(50_00), p.account(0)
	s := newSink(t)
	p.target(payer.Account.ID, webhook.EventRefundOut, s)
	tr, _, err := p.env.Sim.CreateTransfer(p.ctx, payer.Account.ID, transferReq(receiver.Account.PixKeys[3].Key, "20"), scenarios.None)
	if err != nil {
		t.Fatal(err)
	}
	p.advance(2 * time.Second)
	in := p.tx(p.tx(tr.ID).RelatedID)
	if _, err := p.refund(receiver, pix.RefundOriginal{EndToEndID: in.EndToEndID}, "back", "5.00", scenarios.None); err != nil {
		t.Fatal(err)
	}
	p.advance(2 * time.Second)
	if p.balance(payer.Account.ID).Available != 35_00 || p.balance(receiver.Account.ID).Available != 15_00 {
		t.Fatalf("payer %+v receiver %+v", p.balance(payer.Account.ID), p.balance(receiver.Account.ID))
	}
	if bodies, _ := s.received(); len(bodies) != 1 || bodies[0]["data"].(map[string]any)["creditDebitType"] != "DEBIT" {
		t.Fatalf("refund_out webhooks = %v", bodies)
	}
	p.invariants()
}

// TestRefund_Forced: the control plane's settle and fail end a refund in
// processing at once, without moving the clock: DEVOLVIDO (the hold leaves),
// or NAO_REALIZADO with the code on its transaction and the code's message as
// motivo (the hold returns); each sends its REFUND, and the refund's own
// settlement later does nothing more.
func TestRefund_Forced(t *testing.T) {
	p := newPixOut(t)
	a := p.account(0)
	s := newSink(t)
	p.target(a.Account.ID, webhook.EventRefundIn, s)
	o := p.received(a, "30")
	ok, err := p.refund(a, pix.RefundOriginal{EndToEndID: o.EndToEndID}, "ok", "10.00", scenarios.None)
	if err != nil {
		t.Fatal(err)
	}
	bad, err := p.refund(a, pix.RefundOriginal{EndToEndID: o.EndToEndID}, "bad", "10.00", scenarios.None)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := p.env.Sim.SettleTransaction(p.ctx, fmt.Sprint(ok.TransactionID)); err != nil || got.Status != pix.TxStatusConfirmed {
		t.Fatalf("settle: %+v %v", got, err)
	}
	got, err := p.env.Sim.FailTransaction(p.ctx, fmt.Sprint(bad.TransactionID), pix.CodeAccountClosed)
	if err != nil || got.Status != pix.TxStatusError || got.ErrorCode != pix.CodeAccountClosed {
		t.Fatalf("fail: %+v %v", got, err)
	}
	if r, _ := p.env.Sim.RefundOf(p.ctx, a.Account.ID, o.EndToEndID, "ok"); r.Status != pix.RefundStatusDevolvido {
		t.Fatalf("settled refund: %+v", r)
	}
	if r, _ := p.env.Sim.RefundOf(p.ctx, a.Account.ID, o.EndToEndID, "bad"); r.Status != pix.RefundStatusNaoRealizado || r.Motivo != got.ErrorMessage || r.Motivo == "" {
		t.Fatalf("failed refund: %+v", r)
	}
	if b := p.balance(a.Account.ID); b != (pix.Balance{Available: 20_00}) {
		t.Fatalf("balance: %+v", b)
	}
	if _, err := p.env.Sim.SettleTransaction(p.ctx, fmt.Sprint(ok.TransactionID)); !pix.Match(&pix.Error{Kind: pix.KindConflict, Code: pix.CodeTransactionNotSettleable}, err) {
		t.Fatalf("settling a DEVOLVIDO refund again: %v", err)
	}
	if err := p.env.Sim.WaitWebhooks(p.ctx); err != nil {
		t.Fatal(err)
	}
	p.advance(2 * time.Second) // the refunds' own settlement time: nothing more happens
	bodies, _ := s.received()
	statuses := map[any]int{}
	for _, b := range bodies {
		statuses[b["data"].(map[string]any)["status"]]++
	}
	if len(bodies) != 2 || statuses["REFUNDED"] != 1 || statuses["ERROR"] != 1 {
		t.Fatalf("refund_in webhooks = %v", bodies)
	}
	if b := p.balance(a.Account.ID); b != (pix.Balance{Available: 20_00}) {
		t.Fatalf("balance after the settlement time: %+v", b)
	}
	p.invariants()
}

// TestMED_Timeline: a MED runs from OPEN to an automatic MED_FRAUDE refund by
// advancing the clock alone; each webhook delivered; the balance blocked then
// debited.
func TestMED_Timeline(t *testing.T) {
	p := newPixOut(t)
	a := p.account(0)
	s := newSink(t)
	for _, ev := range []string{webhook.EventMedCreated, webhook.EventMedAccepted, webhook.EventRefundIn} {
		p.target(a.Account.ID, ev, s)
	}
	o := p.received(a, "80")
	m, err := p.env.Sim.OpenMED(p.ctx, pix.MEDOpen{AccountID: a.Account.ID, EndToEndID: o.EndToEndID, Cause: "SCAM"})
	if err != nil || m.Status != pix.MEDStatusOpen || !m.IsReconciled || m.OriginalTransactionID != o.ID || m.ContestedAmount != 80_00 {
		t.Fatalf("opened: %+v %v", m, err)
	}
	p.advance(time.Hour) // acknowledged: the contested amount is blocked
	if got, _ := p.env.Sim.GetMED(p.ctx, m.ID); got.Status != pix.MEDStatusReceived || got.BlockedAmount != 80_00 {
		t.Fatalf("received: %+v", got)
	}
	if b := p.balance(a.Account.ID); b != (pix.Balance{Blocked: 80_00}) {
		t.Fatalf("blocked: %+v", b)
	}
	p.advance(7*24*time.Hour - time.Hour) // analysed at the deadline: approved
	got, _ := p.env.Sim.GetMED(p.ctx, m.ID)
	if got.Status != pix.MEDStatusAnalyzed || got.AnalysisResult != pix.MEDResultApproved {
		t.Fatalf("analysed: %+v", got)
	}
	p.advance(24*time.Hour + 2*time.Second) // refunded, then settled
	got, _ = p.env.Sim.GetMED(p.ctx, m.ID)
	r, err := p.env.Sim.RefundOf(p.ctx, a.Account.ID, o.EndToEndID, got.RefundID)
	if err != nil || r.Nature != pix.NatureMedFraude || r.Status != pix.RefundStatusDevolvido || r.Amount != 80_00 || r.MEDID != m.ID {
		t.Fatalf("MED refund: %+v %v", r, err)
	}
	if b := p.balance(a.Account.ID); b != (pix.Balance{}) {
		t.Fatalf("debited: %+v", b)
	}
	bodies, _ := s.received()
	var events []string
	for _, b := range bodies {
		if e, ok := b["event"].(string); ok {
			events = append(events, e)
		} else {
			events = append(events, b["type"].(string))
		}
	}
	if fmt.Sprint(events) != "[med_created med_accepted REFUND]" {
		t.Fatalf("webhooks = %v", events)
	}
	// Clients cannot send MED natures; the MED refund counts against the balance.
	if _, err := p.refund(a, pix.RefundOriginal{EndToEndID: o.EndToEndID}, "more", "0.01", scenarios.None); pix.ErrorCode(err) != pix.CodeRefundExceedsBalance {
		t.Fatalf("after the MED refund: %v", err)
	}
	p.invariants()
}

func TestMED_RejectCancelAndBounds(t *testing.T) {
	p := newPixOut(t)
	a := p.account(0)
	o := p.received(a, "50")
	key, doc := p.externalKey()
	// Spend part of it: the block is bounded by what is available.
	if _, err := p.env.Sim.CreateCashOut(p.ctx, a.Account.ID, cashOut("30", key, "EMAIL", doc), scenarios.None); err != nil {
		t.Fatal(err)
	}
	p.advance(2 * time.Second)
	m, _ := p.env.Sim.OpenMED(p.ctx, pix.MEDOpen{AccountID: a.Account.ID, EndToEndID: o.EndToEndID, Cause: "OPERATIONAL_FLAW"})
	m, err := p.env.Sim.ReceiveMED(p.ctx, m.ID)
	if err != nil || m.BlockedAmount != 20_00 {
		t.Fatalf("received: %+v %v", m, err)
	}
	if _, err := p.env.Sim.ReceiveMED(p.ctx, m.ID); !pix.Match(&pix.Error{Kind: pix.KindConflict}, err) {
		t.Fatalf("receive twice: %v", err)
	}
	m, err = p.env.Sim.AnalyzeMED(p.ctx, m.ID, pix.MEDResultApproved, "ok")
	if err != nil {
		t.Fatal(err)
	}
	m, err = p.env.Sim.RefundMED(p.ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	p.advance(2 * time.Second)
	r, _ := p.env.Sim.RefundOf(p.ctx, a.Account.ID, o.EndToEndID, m.RefundID)
	if r.Nature != pix.NatureMedOperacional || r.Status != pix.RefundStatusDevolvido || r.Amount != 20_00 { // 30 of 50 were spent
		t.Fatalf("bounded MED refund = %+v", r)
	}
	// Rejected and cancelled MEDs release their block.
	o2 := p.received(a, "10")
	m2, _ := p.env.Sim.OpenMED(p.ctx, pix.MEDOpen{AccountID: a.Account.ID, EndToEndID: o2.EndToEndID, Cause: "SCAM"})
	if m2, err = p.env.Sim.AnalyzeMED(p.ctx, m2.ID, pix.MEDResultRejected, "no fraud"); err != nil || m2.BlockedAmount != 0 {
		t.Fatalf("rejected: %+v %v", m2, err)
	}
	m3, _ := p.env.Sim.OpenMED(p.ctx, pix.MEDOpen{AccountID: a.Account.ID, EndToEndID: o2.EndToEndID, Cause: "SCAM"})
	p.env.Sim.ReceiveMED(p.ctx, m3.ID)
	if m3, err = p.env.Sim.CancelMED(p.ctx, m3.ID); err != nil || m3.Status != pix.MEDStatusCancelled || m3.Reason != pix.MEDReasonRefundCancellation {
		t.Fatalf("cancelled: %+v %v", m3, err)
	}
	if b := p.balance(a.Account.ID); b != (pix.Balance{Available: 10_00}) {
		t.Fatalf("balance = %+v", b)
	}
	// Unreconciled: recorded, no money moves.
	u, err := p.env.Sim.OpenMED(p.ctx, pix.MEDOpen{AccountID: a.Account.ID, EndToEndID: "E00000000202603021200aaaaaaaaaaa", Cause: "SCAM", Amount: "5", RequestingBank: pix.BankRef{ISPB: "00000000"}})
	if err != nil || u.IsReconciled || u.RequestingBank.Name == "" {
		t.Fatalf("unreconciled: %+v %v", u, err)
	}
	if _, err := p.env.Sim.OpenMED(p.ctx, pix.MEDOpen{AccountID: a.Account.ID, EndToEndID: o2.EndToEndID, Cause: "NOPE"}); !pix.Match(&pix.Error{Kind: pix.KindInvalid}, err) {
		t.Fatalf("bad cause: %v", err)
	}
	p.invariants()
}

func TestMED_Scenarios(t *testing.T) {
	p := newPixOut(t)
	a := p.account(0)
	results := map[string]pix.MEDStatus{}
	for _, name := range []string{"MED_APPROVED", "MED_REJECTED", "MED_CANCELLED"} {
		sc, _ := scenarios.Lookup(name)
		tx, _, err := p.env.Sim.CreateCashIn(p.ctx, a.Account.ID, cashInReq(name, "10"), sc)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.env.Sim.Pay(p.ctx, pix.Payment{TransactionID: fmt.Sprint(tx.ID)}); err != nil {
			t.Fatal(err)
		}
		results[name] = ""
	}
	p.advance(time.Hour + 24*time.Hour + 24*time.Hour + 5*time.Second)
	meds, total, err := p.env.Sim.ListMEDs(p.ctx, a.Account.ID, pix.MEDFilter{Page: 1, Size: 10})
	if err != nil || total != 3 {
		t.Fatalf("meds = %d %v", total, err)
	}
	for _, m := range meds {
		results[m.Scenario] = m.Status
		if m.Scenario == "MED_APPROVED" && (m.AnalysisResult != pix.MEDResultApproved || m.RefundID == "") {
			t.Errorf("MED_APPROVED = %+v", m)
		}
		if m.Scenario == "MED_REJECTED" && m.AnalysisResult != pix.MEDResultRejected {
			t.Errorf("MED_REJECTED = %+v", m)
		}
	}
	if results["MED_APPROVED"] != pix.MEDStatusAnalyzed || results["MED_REJECTED"] != pix.MEDStatusAnalyzed || results["MED_CANCELLED"] != pix.MEDStatusCancelled {
		t.Fatalf("results = %v", results)
	}
	if b := p.balance(a.Account.ID); b != (pix.Balance{Available: 20_00}) {
		t.Fatalf("balance = %+v (one refunded, two released)", b)
	}
	// Filters and the rate limit.
	rec := true
	if _, n, _ := p.env.Sim.ListMEDs(p.ctx, a.Account.ID, pix.MEDFilter{Status: pix.MEDStatusCancelled, IsReconciled: &rec, Page: 1, Size: 10}); n != 1 {
		t.Fatalf("filtered = %d", n)
	}
	if _, err := p.env.Sim.SetAccountSettings(p.ctx, a.Account.ID, pix.Settings{MEDRateLimit: 2}); err != nil {
		t.Fatal(err)
	}
	p.advance(time.Minute)
	var last error
	for i := 0; i < 3; i++ {
		_, _, last = p.env.Sim.ListMEDs(p.ctx, a.Account.ID, pix.MEDFilter{Page: 1, Size: 10})
	}
	if !pix.Match(&pix.Error{Kind: pix.KindRateLimited}, last) {
		t.Fatalf("third request in a minute with a limit of 2: %v", last)
	}
	p.advance(time.Minute)
	if _, _, err := p.env.Sim.ListMEDs(p.ctx, a.Account.ID, pix.MEDFilter{Page: 1, Size: 10}); err != nil {
		t.Fatalf("next minute: %v", err)
	}
	p.invariants()
}
