package core_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/brcode"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

func cobReq(txid, value string) pix.CobRequest {
	return pix.CobRequest{TxID: txid, Expiracao: "3600", Original: value}
}

func cashInReq(ext, value string, splits ...pix.SplitRequest) pix.CashInRequest {
	return pix.CashInRequest{Value: value, Description: "pedido", ExternalID: ext, PayerName: "Ciclano", PayerDocument: "52998224725", Splits: splits}
}

func TestCob_Lifecycle(t *testing.T) {
	p := newPixOut(t)
	a := p.account(0)
	s := newSink(t)
	p.target(a.Account.ID, webhook.EventCashIn, s)
	const txid = "cobLifecycle0000000000000001"

	c, err := p.env.Sim.CreateCob(p.ctx, a.Account.ID, cobReq(txid, "25.00"), scenarios.None)
	if err != nil {
		t.Fatal(err)
	}
	if c.Status != pix.CobStatusAtiva || c.Revision != 0 || c.LocID == 0 || c.Key == "" {
		t.Fatalf("created = %+v", c)
	}
	code, err := brcode.Parse(c.PixCode)
	if err != nil || !strings.HasPrefix(code.URL, "qr.pixsandbox.example/qr/v2/") || code.TxID != "***" || code.PointOfInitiation != "12" {
		t.Fatalf("BR Code %q: %+v, %v", c.PixCode, code, err)
	}
	if _, err := p.env.Sim.CreateCob(p.ctx, a.Account.ID, cobReq(txid, "1.00"), scenarios.None); !pix.Match(&pix.Error{Kind: pix.KindConflict}, err) {
		t.Fatalf("same txid again: %v", err)
	}
	// Another account may use the same txid: txids are unique per receiver.
	b := p.account(0)
	if _, err := p.env.Sim.CreateCob(p.ctx, b.Account.ID, cobReq(txid, "1.00"), scenarios.None); err != nil {
		t.Fatalf("same txid, other account: %v", err)
	}
	// Wrong amount (modalidadeAlteracao 0) is refused; the right one pays.
	if _, err := p.env.Sim.Pay(p.ctx, pix.Payment{PixCode: c.PixCode, Amount: "24.99"}); !pix.Match(&pix.Error{Kind: pix.KindUnprocessable}, err) {
		t.Fatalf("wrong amount: %v", err)
	}
	res, err := p.env.Sim.Pay(p.ctx, pix.Payment{PixCode: c.PixCode})
	if err != nil || !pix.ValidEndToEndID(res.EndToEndID) {
		t.Fatalf("pay: %+v %v", res, err)
	}
	p.advance(0) // the webhook's delivery job is due now
	got, _ := p.env.Sim.Cob(p.ctx, a.Account.ID, txid)
	if got.Status != pix.CobStatusConcluida || got.EndToEndID != res.EndToEndID || got.TransactionID != res.TransactionID {
		t.Fatalf("paid cob = %+v", got)
	}
	if bal := p.balance(a.Account.ID); bal.Available != 25_00 {
		t.Fatalf("balance = %+v", bal)
	}
	if _, err := p.env.Sim.Pay(p.ctx, pix.Payment{PixCode: c.PixCode}); !pix.Match(&pix.Error{Kind: pix.KindConflict}, err) {
		t.Fatalf("pay twice: %v", err)
	}
	bodies, _ := s.received()
	if len(bodies) != 1 || bodies[0]["type"] != "RECEIVE" {
		t.Fatalf("webhooks = %v", bodies)
	}
	d := bodies[0]["data"].(map[string]any)
	if d["txId"] != txid || d["status"] != "LIQUIDATED" || d["payment"].(map[string]any)["amount"] != "25.00" || d["endToEndId"] != res.EndToEndID {
		t.Fatalf("RECEIVE data = %v", d)
	}

	// Removal by the receiver, and expiry by the PSP.
	c2, _ := p.env.Sim.CreateCob(p.ctx, a.Account.ID, cobReq("cobLifecycle0000000000000002", "5.00"), scenarios.None)
	if r, err := p.env.Sim.RemoveCob(p.ctx, a.Account.ID, c2.TxID); err != nil || r.Status != pix.CobStatusRemovidaPeloUsuarioRecebedor || r.Revision != 1 {
		t.Fatalf("remove: %+v %v", r, err)
	}
	if _, err := p.env.Sim.RemoveCob(p.ctx, a.Account.ID, c2.TxID); !pix.Match(&pix.Error{Kind: pix.KindConflict}, err) {
		t.Fatalf("remove twice: %v", err)
	}
	if _, err := p.env.Sim.Pay(p.ctx, pix.Payment{TxID: c2.TxID}); !pix.Match(&pix.Error{Kind: pix.KindConflict}, err) {
		t.Fatalf("pay removed: %v", err)
	}
	c3, _ := p.env.Sim.CreateCob(p.ctx, a.Account.ID, cobReq("cobLifecycle0000000000000003", "5.00"), scenarios.None)
	p.advance(3599 * time.Second)
	if got, _ := p.env.Sim.Cob(p.ctx, a.Account.ID, c3.TxID); got.Status != pix.CobStatusAtiva {
		t.Fatalf("before expiry: %s", got.Status)
	}
	p.advance(time.Second)
	if got, _ := p.env.Sim.Cob(p.ctx, a.Account.ID, c3.TxID); got.Status != pix.CobStatusRemovidaPeloPSP {
		t.Fatalf("after expiry: %s", got.Status)
	}
	if _, err := p.env.Sim.Pay(p.ctx, pix.Payment{PixCode: c3.PixCode}); !pix.Match(&pix.Error{Kind: pix.KindConflict}, err) {
		t.Fatalf("pay expired: %v", err)
	}
	p.invariants()
}

func TestCob_ChangeableAmountAndValidation(t *testing.T) {
	p := newPixOut(t)
	a := p.account(0)
	r := cobReq("cobChangeable00000000000001", "10.00")
	r.ModalidadeAlteracao = "1"
	c, err := p.env.Sim.CreateCob(p.ctx, a.Account.ID, r, scenarios.None)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.env.Sim.Pay(p.ctx, pix.Payment{TxID: c.TxID, Amount: "12.34"}); err != nil {
		t.Fatal(err)
	}
	if bal := p.balance(a.Account.ID); bal.Available != 12_34 {
		t.Fatalf("balance = %+v", bal)
	}
	for name, req := range map[string]pix.CobRequest{
		"short txid":     cobReq("abc", "1.00"),
		"bad value":      cobReq("cobValidation000000000000001", "1.0"),
		"zero value":     cobReq("cobValidation000000000000001", "0.00"),
		"bad cpf":        {TxID: "cobValidation000000000000001", Original: "1.00", HasDevedor: true, DebtorCPF: "12345678900", DebtorName: "X"},
		"not own key":    {TxID: "cobValidation000000000000001", Original: "1.00", Chave: "pix@bcb.gov.br"},
		"long solicitac": {TxID: "cobValidation000000000000001", Original: "1.00", SolicitacaoPagador: strings.Repeat("x", 141)},
	} {
		if _, err := p.env.Sim.CreateCob(p.ctx, a.Account.ID, req, scenarios.None); !pix.Match(&pix.Error{Kind: pix.KindInvalid}, err) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestCashIn_LifecycleAndExpiry(t *testing.T) {
	p := newPixOut(t)
	a := p.account(0)
	// The flat CashIn payload, chosen in the account's settings (Gap G-38);
	// TestCashIn_ReceiveWebhook covers the default, V2 RECEIVE.
	if _, err := p.env.Sim.SetAccountSettings(p.ctx, a.Account.ID, pix.Settings{CashInFee: 99, CashInWebhook: pix.CashInWebhookCashIn}); err != nil {
		t.Fatal(err)
	}
	s := newSink(t)
	p.target(a.Account.ID, webhook.EventCashIn, s)
	req := cashInReq("ci-1", "50")
	req.AdditionalInfo = map[string]string{"pedido": "42"}
	tx, ch, err := p.env.Sim.CreateCashIn(p.ctx, a.Account.ID, req, scenarios.None)
	if err != nil {
		t.Fatal(err)
	}
	if tx.Status != pix.TxStatusPending || !ch.ExpiresAt.Equal(tx.CreatedAt.Add(86400*time.Second)) || !pix.IsUUIDv4(ch.CorrelationID) {
		t.Fatalf("created = %+v / %+v", tx, ch)
	}
	if _, err := brcode.Parse(ch.PixCode); err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.env.Sim.CreateCashIn(p.ctx, a.Account.ID, req, scenarios.None); pix.ErrorCode(err) != pix.CodePixDuplicateExternalID {
		t.Fatalf("duplicate externalId: %v", err)
	}
	res, err := p.env.Sim.Pay(p.ctx, pix.Payment{TransactionID: fmt.Sprint(tx.ID), PayerName: "Beltrano", PayerDocument: "11144477735"})
	if err != nil || res.Fee != 99 {
		t.Fatalf("pay: %+v %v", res, err)
	}
	p.advance(0)
	got := p.tx(tx.ID)
	if got.Status != pix.TxStatusConfirmed || got.Counterpart.Name != "Beltrano" || got.EndToEndID != res.EndToEndID {
		t.Fatalf("paid = %+v", got)
	}
	if bal := p.balance(a.Account.ID); bal.Available != 50_00-99 {
		t.Fatalf("balance = %+v", bal)
	}
	bodies, _ := s.received()
	if len(bodies) != 1 {
		t.Fatalf("webhooks = %v", bodies)
	}
	w := bodies[0]
	for k, want := range map[string]any{"event": "CashIn", "status": "CONFIRMED", "movementType": "CREDIT", "transactionId": fmt.Sprint(tx.ID),
		"externalId": "ci-1", "correlationId": ch.CorrelationID, "feeAmount": 0.99, "originalAmount": 50.0, "finalAmount": 49.01,
		"errorCode": nil, "endToEndId": res.EndToEndID} {
		if w[k] != want {
			t.Errorf("CashIn %s = %#v, want %#v", k, w[k], want)
		}
	}
	if w["metadata"].(map[string]any)["pedido"] != "42" {
		t.Errorf("metadata = %v", w["metadata"])
	}

	// Expiry: a charge unpaid at expirationDate ends in ERROR PAYMENT_EXPIRED.
	req = cashInReq("ci-2", "10")
	req.ExpirationTime = "60"
	tx2, _, err := p.env.Sim.CreateCashIn(p.ctx, a.Account.ID, req, scenarios.None)
	if err != nil {
		t.Fatal(err)
	}
	p.advance(60 * time.Second)
	if got := p.tx(tx2.ID); got.Status != pix.TxStatusError || got.ErrorCode != pix.CodePaymentExpired {
		t.Fatalf("expired charge = %+v", got)
	}
	if _, err := p.env.Sim.Pay(p.ctx, pix.Payment{TransactionID: fmt.Sprint(tx2.ID)}); !pix.Match(&pix.Error{Kind: pix.KindConflict}, err) {
		t.Fatalf("pay expired: %v", err)
	}
	if bodies, _ := s.received(); len(bodies) != 2 || bodies[1]["status"] != "ERROR" || bodies[1]["errorCode"] != "PAYMENT_EXPIRED" {
		t.Fatalf("expiry webhook = %v", bodies)
	}

	// The provider minimum (the spec's 30 by default; 60 here) and the
	// provider-failure scenario.
	if _, err := p.env.Sim.SetAccountSettings(p.ctx, a.Account.ID, pix.Settings{MinExpiration: time.Minute}); err != nil {
		t.Fatal(err)
	}
	req = cashInReq("ci-3", "10")
	req.ExpirationTime = "45"
	if _, _, err := p.env.Sim.CreateCashIn(p.ctx, a.Account.ID, req, scenarios.None); pix.ErrorCode(err) != pix.CodeProviderExpirationBelowMinimum {
		t.Fatalf("below the provider minimum: %v", err)
	}
	pf, _ := scenarios.Lookup("PROVIDER_FAILURE")
	if _, _, err := p.env.Sim.CreateCashIn(p.ctx, a.Account.ID, cashInReq("ci-4", "10"), pf); !pix.Match(&pix.Error{Kind: pix.KindUnavailableProvider, Code: pix.CodeHTTPError}, err) {
		t.Fatalf("provider failure: %v", err)
	}
	p.invariants()
}

func TestCharges_PayerScenarios(t *testing.T) {
	p := newPixOut(t)
	a := p.account(0)
	auto, _ := scenarios.Lookup("AUTO_PAYMENT")
	late, _ := scenarios.Lookup("LATE_PAYMENT")
	tx, _, err := p.env.Sim.CreateCashIn(p.ctx, a.Account.ID, cashInReq("auto", "7"), auto)
	if err != nil {
		t.Fatal(err)
	}
	c, err := p.env.Sim.CreateCob(p.ctx, a.Account.ID, cobReq("cobAutoPayment0000000000001", "3.00"), auto)
	if err != nil {
		t.Fatal(err)
	}
	r := cobReq("cobLatePayment0000000000001", "4.00")
	r.Expiracao = "60"
	lateCob, err := p.env.Sim.CreateCob(p.ctx, a.Account.ID, r, late)
	if err != nil {
		t.Fatal(err)
	}
	p.advance(9 * time.Second)
	if p.tx(tx.ID).Status != pix.TxStatusPending {
		t.Fatal("AUTO_PAYMENT paid early")
	}
	p.advance(time.Second)
	if p.tx(tx.ID).Status != pix.TxStatusConfirmed {
		t.Fatal("AUTO_PAYMENT did not pay the cash-in charge at +10 s")
	}
	if got, _ := p.env.Sim.Cob(p.ctx, a.Account.ID, c.TxID); got.Status != pix.CobStatusConcluida {
		t.Fatalf("AUTO_PAYMENT cob = %s", got.Status)
	}
	p.advance(time.Minute)
	got, _ := p.env.Sim.Cob(p.ctx, a.Account.ID, lateCob.TxID)
	if got.Status != pix.CobStatusRemovidaPeloPSP || !got.RefusedAt.Equal(lateCob.ExpiresAt().Add(time.Second)) {
		t.Fatalf("LATE_PAYMENT cob = %+v", got)
	}
	if bal := p.balance(a.Account.ID); bal.Available != 10_00 {
		t.Fatalf("balance = %+v (the late payment must not be credited)", bal)
	}
	p.invariants()
}

// TestSplits_Conservation: FIXED and PERCENTAGE, immediate and scheduled; received
// = splits paid + remainder kept + fees, to the centavo; available never negative.
func TestSplits_Conservation(t *testing.T) {
	p := newPixOut(t)
	a := p.account(0)
	if _, err := p.env.Sim.SetAccountSettings(p.ctx, a.Account.ID, pix.Settings{CashInFee: 1_00, SplitSchedule: "CRON_TZ=America/Sao_Paulo 0 18 * * *"}); err != nil {
		t.Fatal(err)
	}
	key, doc := p.externalKey()
	split := func(typ, value string, immediate bool) pix.SplitRequest {
		return pix.SplitRequest{PixKey: key, PixKeyType: "EMAIL", Name: "Parceiro", Document: doc, Type: typ, Value: value, Immediate: immediate}
	}
	// 33.33% of 100.01 is 33.3333... → 33.33 (rounded down); 12.5% → 12.50.
	tx, _, err := p.env.Sim.CreateCashIn(p.ctx, a.Account.ID, cashInReq("split-1", "100.01",
		split("PERCENTAGE", "33.33", true), split("FIXED", "10", true), split("PERCENTAGE", "12.5", false), split("FIXED", "0.01", false)), scenarios.None)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.env.Sim.Pay(p.ctx, pix.Payment{TransactionID: fmt.Sprint(tx.ID)}); err != nil {
		t.Fatal(err)
	}
	// Immediate splits held at once: 100.01 − 1.00 fee − 33.33 − 10.00.
	if bal := p.balance(a.Account.ID); bal != (pix.Balance{Available: 100_01 - 1_00 - 33_33 - 10_00, Blocked: 43_33}) {
		t.Fatalf("after payment: %+v", bal)
	}
	p.advance(2 * time.Second)
	if bal := p.balance(a.Account.ID); bal != (pix.Balance{Available: 55_68}) {
		t.Fatalf("after immediate splits settled: %+v", bal)
	}
	// The schedule runs at 18:00 São Paulo (21:00 UTC); the epoch is 12:00 UTC.
	p.advance(9*time.Hour - 3*time.Second)
	if bal := p.balance(a.Account.ID); bal.Available != 55_68 {
		t.Fatalf("scheduled splits ran early: %+v", bal)
	}
	p.advance(3 * time.Second) // 21:00 UTC: scheduled splits held, settle 2 s later
	p.advance(2 * time.Second)
	var splitsPaid pix.Cents
	var n int
	for id := tx.ID + 1; id < tx.ID+10; id++ {
		got, err := p.env.Sim.Transaction(p.ctx, fmt.Sprint(id))
		if err != nil || got.Kind != pix.TxSplit {
			continue
		}
		n++
		if got.Status != pix.TxStatusConfirmed || got.RelatedID != tx.ID {
			t.Fatalf("split %d = %+v", id, got)
		}
		splitsPaid += got.Amount
	}
	remainder := p.balance(a.Account.ID)
	if n != 4 || splitsPaid != 33_33+10_00+12_50+1 || splitsPaid+remainder.Available+remainder.Blocked+1_00 != 100_01 {
		t.Fatalf("%d splits paid %s, kept %+v, fee 1.00: does not add up to 100.01", n, splitsPaid, remainder)
	}
	p.invariants()
}

func TestSplits_FailureAndShortfall(t *testing.T) {
	p := newPixOut(t)
	a := p.account(0)
	key, doc := p.externalKey()
	sp := pix.SplitRequest{PixKey: key, PixKeyType: "EMAIL", Name: "P", Document: doc, Type: "FIXED", Value: "30", Immediate: true}
	fail, _ := scenarios.Lookup("SPLIT_FAILURE")
	tx, _, err := p.env.Sim.CreateCashIn(p.ctx, a.Account.ID, cashInReq("sf-1", "50", sp), fail)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.env.Sim.Pay(p.ctx, pix.Payment{TransactionID: fmt.Sprint(tx.ID)}); err != nil {
		t.Fatal(err)
	}
	p.advance(2 * time.Second)
	split := p.tx(tx.ID + 1)
	if split.Kind != pix.TxSplit || split.Status != pix.TxStatusError || split.ErrorCode != pix.CodeOrderRejected {
		t.Fatalf("failed split = %+v", split)
	}
	if bal := p.balance(a.Account.ID); bal != (pix.Balance{Available: 50_00}) {
		t.Fatalf("a failed split's amount stays: %+v", bal)
	}
	// A fee that leaves less than the splits: the split that cannot be covered
	// fails at once and available never goes below zero.
	if _, err := p.env.Sim.SetAccountSettings(p.ctx, a.Account.ID, pix.Settings{CashInFee: 5_00}); err != nil {
		t.Fatal(err)
	}
	b := p.account(0)
	if _, err := p.env.Sim.SetAccountSettings(p.ctx, b.Account.ID, pix.Settings{CashInFee: 5_00}); err != nil {
		t.Fatal(err)
	}
	all := sp
	all.Value = "20"
	tx, _, err = p.env.Sim.CreateCashIn(p.ctx, b.Account.ID, cashInReq("sf-2", "20", all), scenarios.None)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.env.Sim.Pay(p.ctx, pix.Payment{TransactionID: fmt.Sprint(tx.ID)}); err != nil {
		t.Fatal(err)
	}
	if got := p.tx(tx.ID + 1); got.Status != pix.TxStatusError || got.ErrorCode != pix.CodeOrderRejected {
		t.Fatalf("uncovered split = %+v", got)
	}
	if bal := p.balance(b.Account.ID); bal != (pix.Balance{Available: 15_00}) {
		t.Fatalf("balance = %+v", bal)
	}
	p.invariants()
}

// TestCharge_PaidByTransfer: a charge paid by another sandbox account's POST
// /dict/pix shows the debit on the payer and the credit on the receiver, each
// with its webhook.
func TestCharge_PaidByTransfer(t *testing.T) {
	p := newPixOut(t)
	payer, receiver := p.account(100_00), p.account(0)
	sp, sr := newSink(t), newSink(t)
	p.target(payer.Account.ID, webhook.EventCashOut, sp)
	p.target(receiver.Account.ID, webhook.EventCashIn, sr)
	c, err := p.env.Sim.CreateCob(p.ctx, receiver.Account.ID, cobReq("cobPaidByTransfer00000000001", "40.00"), scenarios.None)
	if err != nil {
		t.Fatal(err)
	}
	req := transferReq(c.Key, "40.00")
	req.TxID = c.TxID
	tr, _, err := p.env.Sim.CreateTransfer(p.ctx, payer.Account.ID, req, scenarios.None)
	if err != nil {
		t.Fatal(err)
	}
	p.advance(2 * time.Second)
	if got := p.tx(tr.ID); got.Status != pix.TxStatusConfirmed {
		t.Fatalf("transfer = %+v", got)
	}
	paid, _ := p.env.Sim.Cob(p.ctx, receiver.Account.ID, c.TxID)
	if paid.Status != pix.CobStatusConcluida || paid.EndToEndID != p.tx(tr.ID).EndToEndID {
		t.Fatalf("cob = %+v", paid)
	}
	if p.balance(payer.Account.ID).Available != 60_00 || p.balance(receiver.Account.ID).Available != 40_00 {
		t.Fatalf("payer %+v receiver %+v", p.balance(payer.Account.ID), p.balance(receiver.Account.ID))
	}
	wp, _ := sp.received()
	wr, _ := sr.received()
	if len(wp) != 1 || wp[0]["data"].(map[string]any)["txId"] != c.TxID || len(wr) != 1 || wr[0]["data"].(map[string]any)["txId"] != c.TxID {
		t.Fatalf("webhooks: payer %v receiver %v", wp, wr)
	}
	// A transfer naming a charge it cannot pay (wrong amount) is rejected by the
	// receiving bank: ERROR ORDER_REJECTED, the payer's hold released.
	c2, _ := p.env.Sim.CreateCob(p.ctx, receiver.Account.ID, cobReq("cobPaidByTransfer00000000002", "5.00"), scenarios.None)
	req = transferReq(c2.Key, "4.00")
	req.TxID = c2.TxID
	tr, _, _ = p.env.Sim.CreateTransfer(p.ctx, payer.Account.ID, req, scenarios.None)
	p.advance(2 * time.Second)
	if got := p.tx(tr.ID); got.Status != pix.TxStatusError || got.ErrorCode != pix.CodeOrderRejected {
		t.Fatalf("transfer with the wrong amount = %+v", got)
	}
	if p.balance(payer.Account.ID).Available != 60_00 {
		t.Fatalf("payer = %+v", p.balance(payer.Account.ID))
	}
	p.invariants()
}

func TestPixIn(t *testing.T) {
	p := newPixOut(t)
	a := p.account(0)
	res, err := p.env.Sim.PixIn(p.ctx, pix.Payment{Key: a.Account.PixKeys[1].Key, Amount: "12.5"})
	if err != nil || res.Amount != 12_50 {
		t.Fatalf("pix-in: %+v %v", res, err)
	}
	if p.balance(a.Account.ID).Available != 12_50 {
		t.Fatal("not credited")
	}
	key, _ := p.externalKey()
	if _, err := p.env.Sim.PixIn(p.ctx, pix.Payment{Key: key, Amount: "1"}); !pix.Match(&pix.Error{Kind: pix.KindNotFound}, err) {
		t.Fatalf("key outside the sandbox: %v", err)
	}
	if _, err := p.env.Sim.PixIn(p.ctx, pix.Payment{Key: a.Account.PixKeys[1].Key, Amount: "0.001"}); !pix.Match(&pix.Error{Kind: pix.KindInvalid}, err) {
		t.Fatalf("bad amount: %v", err)
	}
	p.invariants()
}
