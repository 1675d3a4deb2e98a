package core_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// TestCashIn_ReceiveWebhook: a paid cash-in charge sends V2 RECEIVE
// (LIQUIDATED, data.id its transactionId, txId its txid) by default, an
// expired one RECEIVE with status ERROR; the account setting and the server
// option choose the flat CashIn payload instead (Gap G-38).
func TestCashIn_ReceiveWebhook(t *testing.T) {
	p := newPixOut(t)
	a := p.account(0)
	s := newSink(t)
	p.target(a.Account.ID, webhook.EventCashIn, s)

	tx, ch, err := p.env.Sim.CreateCashIn(p.ctx, a.Account.ID, cashInReq("rcv-1", "25"), scenarios.None)
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.env.Sim.Pay(p.ctx, pix.Payment{TransactionID: fmt.Sprint(tx.ID), PayerName: "Beltrano", PayerDocument: "11144477735"})
	if err != nil {
		t.Fatal(err)
	}
	p.advance(0)
	bodies, _ := s.received()
	if len(bodies) != 1 || bodies[0]["type"] != "RECEIVE" {
		t.Fatalf("webhooks = %v", bodies)
	}
	d := bodies[0]["data"].(map[string]any)
	for k, want := range map[string]any{"id": float64(tx.ID), "txId": ch.TxID, "status": "LIQUIDATED", "endToEndId": res.EndToEndID} {
		if d[k] != want {
			t.Errorf("RECEIVE data.%s = %#v, want %#v", k, d[k], want)
		}
	}
	if pay := d["payment"].(map[string]any); pay["amount"] != "25.00" || pay["currency"] != "BRL" {
		t.Errorf("RECEIVE data.payment = %v", pay)
	}
	if da := d["debtorAccount"].(map[string]any); da["name"] != "Beltrano" || da["document"] != "***.444.777-**" {
		t.Errorf("RECEIVE data.debtorAccount = %v", da)
	}

	// Expiry: RECEIVE with status ERROR.
	req := cashInReq("rcv-2", "10")
	req.ExpirationTime = "30" // the spec's floor, accepted by the default provider minimum
	tx2, _, err := p.env.Sim.CreateCashIn(p.ctx, a.Account.ID, req, scenarios.None)
	if err != nil {
		t.Fatal(err)
	}
	p.advance(30 * time.Second)
	bodies, _ = s.received()
	if len(bodies) != 2 || bodies[1]["type"] != "RECEIVE" {
		t.Fatalf("expiry webhooks = %v", bodies)
	}
	d = bodies[1]["data"].(map[string]any)
	if d["id"] != float64(tx2.ID) || d["status"] != "ERROR" || d["errorCode"] != "PAYMENT_EXPIRED" || d["endToEndId"] != nil || d["errorMessage"] == "" {
		t.Errorf("expiry RECEIVE data = %v", d)
	}

	// The account setting: the flat CashIn payload.
	if _, err := p.env.Sim.SetAccountSettings(p.ctx, a.Account.ID, pix.Settings{CashInWebhook: pix.CashInWebhookCashIn}); err != nil {
		t.Fatal(err)
	}
	tx3, _, err := p.env.Sim.CreateCashIn(p.ctx, a.Account.ID, cashInReq("rcv-3", "5"), scenarios.None)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.env.Sim.Pay(p.ctx, pix.Payment{TransactionID: fmt.Sprint(tx3.ID)}); err != nil {
		t.Fatal(err)
	}
	p.advance(0)
	bodies, _ = s.received()
	if len(bodies) != 3 || bodies[2]["event"] != "CashIn" || bodies[2]["transactionId"] != fmt.Sprint(tx3.ID) {
		t.Fatalf("with cashInWebhook CashIn: %v", bodies)
	}
	p.invariants()
}

// TestCashIn_ServerCashInWebhookOption: the server's default shape is the
// flat CashIn when configured so; an account may still choose RECEIVE.
func TestCashIn_ServerCashInWebhookOption(t *testing.T) {
	p := &pixOut{t: t, env: simulatortest.New(t, simulatortest.Options{CashInWebhook: pix.CashInWebhookCashIn}), ctx: t.Context()}
	a := p.account(0)
	s := newSink(t)
	p.target(a.Account.ID, webhook.EventCashIn, s)
	payCharge := func(ext string) {
		t.Helper()
		tx, _, err := p.env.Sim.CreateCashIn(p.ctx, a.Account.ID, cashInReq(ext, "5"), scenarios.None)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.env.Sim.Pay(p.ctx, pix.Payment{TransactionID: fmt.Sprint(tx.ID)}); err != nil {
			t.Fatal(err)
		}
		p.advance(0)
	}
	payCharge("srv-1")
	if _, err := p.env.Sim.SetAccountSettings(p.ctx, a.Account.ID, pix.Settings{CashInWebhook: pix.CashInWebhookReceive}); err != nil {
		t.Fatal(err)
	}
	payCharge("srv-2")
	bodies, _ := s.received()
	if len(bodies) != 2 || bodies[0]["event"] != "CashIn" || bodies[1]["type"] != "RECEIVE" {
		t.Fatalf("webhooks = %v", bodies)
	}
}

// TestCashOut_WebhookKeyAsSent: the CashOut webhook's pixKey is details.key
// exactly as sent, not the DICT's form of it.
func TestCashOut_WebhookKeyAsSent(t *testing.T) {
	p := newPixOut(t)
	a := p.account(100_00)
	s := newSink(t)
	p.target(a.Account.ID, webhook.EventCashOut, s)
	_, doc := p.externalKey()
	evp := uuid.NewString()
	for _, c := range []struct{ keyType, key string }{
		{"PHONE", "11987654321"},
		{"RANDOM", strings.ReplaceAll(evp, "-", "")},
		{"RANDOM", strings.ToUpper(evp)},
		{"EMAIL", "Fulano.Tal@Example.COM"},
	} {
		tx, err := p.env.Sim.CreateCashOut(p.ctx, a.Account.ID, cashOut("1", c.key, c.keyType, doc), scenarios.None)
		if err != nil {
			t.Fatalf("%s %s: %v", c.keyType, c.key, err)
		}
		if tx.PixKey == c.key && c.keyType != "RANDOM" {
			t.Errorf("%s %s: the DICT form is the key itself; the case proves nothing", c.keyType, c.key)
		}
	}
	p.advance(2 * time.Second)
	bodies, _ := s.received()
	got := map[string]bool{}
	for _, b := range bodies {
		got[fmt.Sprint(b["pixKey"])] = true
	}
	for _, want := range []string{"11987654321", strings.ReplaceAll(evp, "-", ""), strings.ToUpper(evp), "Fulano.Tal@Example.COM"} {
		if !got[want] {
			t.Errorf("no CashOut webhook with pixKey %q: %v", want, got)
		}
	}
}

// TestResendWebhook_Identifiers: the cash-out response's UUID transactionId
// is accepted; a transaction that has sent no webhook yet is 400 with a
// message saying so; another account's UUID is 404.
func TestResendWebhook_Identifiers(t *testing.T) {
	p := newPixOut(t)
	a := p.account(100_00)
	b := p.account(100_00)
	s := newSink(t)
	key, doc := p.externalKey()
	pending, _ := scenarios.Lookup("SETTLEMENT_PENDING")
	waiting, err := p.env.Sim.CreateCashOut(p.ctx, a.Account.ID, cashOut("1", key, "EMAIL", doc), pending)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.env.Sim.ResendWebhook(p.ctx, a.Account.ID, waiting.UUID, s.srv.URL)
	if e, ok := err.(*pix.Error); !ok || e.Kind != pix.KindInvalid || len(e.Violations) != 1 || e.Violations[0].Field != "transactionIdentifier" ||
		!strings.Contains(e.Violations[0].Message, "no cash_out webhook yet") {
		t.Fatalf("pending cash-out: %#v", err)
	}

	settled, err := p.env.Sim.CreateCashOut(p.ctx, a.Account.ID, cashOut("2", key, "EMAIL", doc), scenarios.None)
	if err != nil {
		t.Fatal(err)
	}
	p.advance(2 * time.Second)
	at, err := p.env.Sim.ResendWebhook(p.ctx, a.Account.ID, settled.UUID, s.srv.URL)
	if err != nil || !webhook.Success(at.StatusCode) {
		t.Fatalf("resend by UUID: %+v %v", at, err)
	}
	if bodies, _ := s.received(); len(bodies) != 1 || bodies[0]["externalId"] != settled.ExternalID {
		t.Fatalf("resent = %v", bodies)
	}
	if _, err := p.env.Sim.ResendWebhook(p.ctx, b.Account.ID, settled.UUID, s.srv.URL); !pix.Match(&pix.Error{Kind: pix.KindNotFound}, err) {
		t.Fatalf("another account's UUID: %v", err)
	}
	// An externalId shaped like a UUID is still found as an externalId.
	ext := cashOut("3", key, "EMAIL", doc)
	ext.ExternalID = uuid.NewString()
	if _, err := p.env.Sim.CreateCashOut(p.ctx, a.Account.ID, ext, scenarios.None); err != nil {
		t.Fatal(err)
	}
	p.advance(2 * time.Second)
	if _, err := p.env.Sim.ResendWebhook(p.ctx, a.Account.ID, ext.ExternalID, s.srv.URL); err != nil {
		t.Fatalf("resend by a UUID-shaped externalId: %v", err)
	}
}
