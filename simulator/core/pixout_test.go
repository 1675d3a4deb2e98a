package core_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/core"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// sink records webhook deliveries and answers with a scripted status sequence
// (the last one repeats).
type sink struct {
	mu       sync.Mutex
	bodies   []map[string]any
	ids      []string
	statuses []int
	srv      *httptest.Server
}

func newSink(t *testing.T, statuses ...int) *sink {
	s := &sink{statuses: statuses}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		s.mu.Lock()
		s.bodies = append(s.bodies, m)
		s.ids = append(s.ids, r.Header.Get("webhook-id"))
		st := 200
		if n := len(s.bodies) - 1; n < len(s.statuses) {
			st = s.statuses[n]
		} else if len(s.statuses) > 0 {
			st = s.statuses[len(s.statuses)-1]
		}
		s.mu.Unlock()
		w.WriteHeader(st)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *sink) received() ([]map[string]any, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.bodies...), append([]string(nil), s.ids...)
}

type pixOut struct {
	t   *testing.T
	env *simulatortest.Env
	ctx context.Context
}

func newPixOut(t *testing.T) *pixOut {
	return &pixOut{t: t, env: simulatortest.New(t, simulatortest.Options{}), ctx: context.Background()}
}

func (p *pixOut) account(balance pix.Cents) pix.CreatedAccount {
	p.t.Helper()
	a, err := p.env.Sim.CreateAccount(p.ctx, pix.NewAccount{Balance: balance})
	if err != nil {
		p.t.Fatal(err)
	}
	return a
}

func (p *pixOut) balance(id pix.AccountID) pix.Balance {
	p.t.Helper()
	b, err := p.env.Sim.AccountBalance(p.ctx, id)
	if err != nil {
		p.t.Fatal(err)
	}
	return b.Balance
}

func (p *pixOut) advance(d time.Duration) {
	p.t.Helper()
	if _, err := p.env.Sim.AdvanceClock(p.ctx, d, pix.ClockWaitWebhooks); err != nil {
		p.t.Fatal(err)
	}
}

func (p *pixOut) target(id pix.AccountID, eventType string, s *sink) {
	p.t.Helper()
	if _, _, err := p.env.Sim.RegisterWebhookTarget(p.ctx, webhook.Target{AccountID: int64(id), URL: s.srv.URL, EventType: eventType, Active: true}, false); err != nil {
		p.t.Fatal(err)
	}
}

func (p *pixOut) tx(id int64) pix.Transaction {
	p.t.Helper()
	t, err := p.env.Sim.Transaction(p.ctx, fmt.Sprint(id))
	if err != nil {
		p.t.Fatal(err)
	}
	return t
}

func (p *pixOut) invariants() {
	p.t.Helper()
	rep, err := p.env.Sim.CheckInvariants(p.ctx)
	if err != nil || len(rep.Violations) > 0 {
		p.t.Fatalf("invariants: %v %v", rep.Violations, err)
	}
}

// externalKey is a DICT key of a holder outside the sandbox, with its document.
func (p *pixOut) externalKey() (key, document string) {
	for _, k := range p.env.Fixtures.DICT() {
		if k.Scenario == "" && k.Type == "EMAIL" {
			return k.Key, k.Document
		}
	}
	p.t.Fatal("no external email key in the fixtures")
	return "", ""
}

// settledCashOut makes a cash-out of 1.00 of account id to an external key
// and settles it: the clock moves past the settlement delay and the webhooks
// due are delivered when it returns.
func (p *pixOut) settledCashOut(id pix.AccountID) {
	p.t.Helper()
	key, doc := p.externalKey()
	if _, err := p.env.Sim.CreateCashOut(p.ctx, id, cashOut("1.00", key, "EMAIL", doc), scenarios.None); err != nil {
		p.t.Fatal(err)
	}
	p.advance(core.DefaultSettlementDelay)
}

func cashOut(value, key, keyType, document string) pix.CashOutRequest {
	return pix.CashOutRequest{Value: value, ExternalID: uuid.NewString(), Key: key, KeyType: keyType, Name: "Fulano de Tal", Document: document}
}

func TestCashOut_BalanceEffectsAndWebhook(t *testing.T) {
	p := newPixOut(t)
	a := p.account(100_00)
	if _, err := p.env.Sim.SetAccountSettings(p.ctx, a.Account.ID, pix.Settings{Limits: pix.DefaultSettings(a.Account.Document).Limits, Fee: 1_50}); err != nil {
		t.Fatal(err)
	}
	s := newSink(t)
	p.target(a.Account.ID, webhook.EventCashOut, s)
	key, doc := p.externalKey()

	tx, err := p.env.Sim.CreateCashOut(p.ctx, a.Account.ID, cashOut("10.25", key, "EMAIL", doc), scenarios.None)
	if err != nil {
		t.Fatal(err)
	}
	if tx.Status != pix.TxStatusPending || !pix.IsUUIDv4(tx.UUID) {
		t.Fatalf("accepted = %+v", tx)
	}
	// Accepted: available -= amount + fee, blocked += the same.
	if got, want := p.balance(a.Account.ID), (pix.Balance{Available: 100_00 - 11_75, Blocked: 11_75}); got != want {
		t.Fatalf("after acceptance balance = %+v, want %+v", got, want)
	}
	p.advance(time.Second)
	if got := p.tx(tx.ID); got.Status != pix.TxStatusPending {
		t.Fatalf("settled before the settlement delay: %s", got.Status)
	}
	p.advance(time.Second)
	got := p.tx(tx.ID)
	if got.Status != pix.TxStatusConfirmed || !pix.ValidEndToEndID(got.EndToEndID) || got.EndToEndID[0] != 'E' {
		t.Fatalf("after settlement = %+v", got)
	}
	// Settled: the hold left the account; blocked back to its previous value.
	if got, want := p.balance(a.Account.ID), (pix.Balance{Available: 100_00 - 11_75}); got != want {
		t.Fatalf("after settlement balance = %+v, want %+v", got, want)
	}
	bodies, _ := s.received()
	if len(bodies) != 1 {
		t.Fatalf("webhooks = %d, want 1", len(bodies))
	}
	w := bodies[0]
	for k, want := range map[string]any{"event": "CashOut", "status": "CONFIRMED", "transactionType": "PIX", "movementType": "DEBIT",
		"transactionId": fmt.Sprint(tx.ID), "externalId": tx.ExternalID, "endToEndId": got.EndToEndID, "pixKey": key,
		"feeAmount": 1.5, "originalAmount": 10.25, "finalAmount": 11.75, "errorCode": nil, "errorMessage": nil} {
		if w[k] != want {
			t.Errorf("webhook %s = %#v, want %#v", k, w[k], want)
		}
	}
	cp := w["counterpart"].(map[string]any)
	if cp["document"] == doc || cp["bank"].(map[string]any)["bankISPB"] == "" {
		t.Errorf("counterpart = %v", cp)
	}
	p.invariants()
}

func TestCashOut_Failures(t *testing.T) {
	for _, f := range pix.FailureReasons {
		t.Run(string(f.Code), func(t *testing.T) {
			p := newPixOut(t)
			a := p.account(50_00)
			s := newSink(t)
			p.target(a.Account.ID, webhook.EventCashOut, s)
			key, doc := p.externalKey()
			sc, _ := scenarios.Lookup(string(f.Code))
			tx, err := p.env.Sim.CreateCashOut(p.ctx, a.Account.ID, cashOut("20", key, "EMAIL", doc), sc)
			if err != nil {
				t.Fatal(err)
			}
			p.advance(2 * time.Second)
			got := p.tx(tx.ID)
			if got.Status != pix.TxStatusError || got.ErrorCode != f.Code || got.ErrorMessage != f.Message {
				t.Fatalf("transaction = %+v", got)
			}
			// Failed: the hold returns to available.
			if b := p.balance(a.Account.ID); b != (pix.Balance{Available: 50_00}) {
				t.Fatalf("balance = %+v", b)
			}
			bodies, _ := s.received()
			if len(bodies) != 1 || bodies[0]["status"] != "ERROR" || bodies[0]["errorCode"] != string(f.Code) || bodies[0]["errorMessage"] != f.Message {
				t.Fatalf("webhooks = %v", bodies)
			}
			p.invariants()
		})
	}
}

func TestCashOut_SettlementChecks(t *testing.T) {
	p := newPixOut(t)
	a := p.account(1000_00)
	key, doc := p.externalKey()
	other, _ := pix.CPFCheckDigits("123456789")
	for name, tc := range map[string]struct {
		req  pix.CashOutRequest
		want pix.Code
	}{
		"bad check digits":     {cashOut("1", key, "EMAIL", "12345678900"), pix.CodeInvalidTaxID},
		"document of another":  {cashOut("1", key, "EMAIL", other), pix.CodeTaxIDMismatch},
		"magic key":            {cashOut("1", "blocked-account@scenario.pixsandbox.example", "EMAIL", doc), pix.CodeBlockedAccount},
		"unknown key, settles": {cashOut("1", "someone@example.org", "EMAIL", doc), ""},
	} {
		tx, err := p.env.Sim.CreateCashOut(p.ctx, a.Account.ID, tc.req, scenarios.None)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		p.advance(2 * time.Second)
		got := p.tx(tx.ID)
		if got.ErrorCode != tc.want || (tc.want == "") != (got.Status == pix.TxStatusConfirmed) {
			t.Errorf("%s: status %s code %q, want %q", name, got.Status, got.ErrorCode, tc.want)
		}
	}
	p.invariants()
}

func TestCashOut_RequestErrors(t *testing.T) {
	p := newPixOut(t)
	a := p.account(100_00)
	key, doc := p.externalKey()
	ok := cashOut("1", key, "EMAIL", doc)
	if _, err := p.env.Sim.CreateCashOut(p.ctx, a.Account.ID, ok, scenarios.None); err != nil {
		t.Fatal(err)
	}
	first, _ := p.env.Sim.Transaction(p.ctx, "1")
	_ = first
	dup, err := p.env.Sim.CreateCashOut(p.ctx, a.Account.ID, ok, scenarios.None)
	if !pix.Match(&pix.Error{Kind: pix.KindInvalid, Code: pix.CodePixDuplicateExternalID}, err) {
		t.Fatalf("duplicate externalId: %v, %v", dup, err)
	}
	if d := err.(*pix.Error).Details; d["externalId"] != ok.ExternalID || d["existingTransactionId"].(int64) <= 0 {
		t.Fatalf("duplicate details = %v", d)
	}
	tests := []struct {
		name string
		req  pix.CashOutRequest
		code pix.Code
	}{
		{"insufficient", cashOut("200", key, "EMAIL", doc), pix.CodePixInsufficientBalance},
		{"amount 3 decimals", cashOut("1.001", key, "EMAIL", doc), pix.CodePixInvalidAmount},
		{"amount zero", cashOut("0", key, "EMAIL", doc), pix.CodePixInvalidAmount},
		{"bad key", cashOut("1", "not-an-email", "EMAIL", doc), pix.CodePixInvalidPixKey},
		{"phone with +55", cashOut("1", "+5511987654321", "PHONE", doc), pix.CodePixInvalidPixKey},
		{"bad key type", cashOut("1", key, "CPF", doc), pix.CodeHTTPError},
		{"document 10 digits", cashOut("1", key, "EMAIL", "1234567890"), pix.CodeHTTPError},
	}
	for _, tt := range tests {
		if _, err := p.env.Sim.CreateCashOut(p.ctx, a.Account.ID, tt.req, scenarios.None); pix.ErrorCode(err) != tt.code {
			t.Errorf("%s: code %q, want %q (%v)", tt.name, pix.ErrorCode(err), tt.code, err)
		}
	}
	// Nothing but the first cash-out moved money.
	if b := p.balance(a.Account.ID); b != (pix.Balance{Available: 99_00, Blocked: 1_00}) {
		t.Fatalf("balance = %+v", b)
	}
}

func TestCashOut_Limits(t *testing.T) {
	p := newPixOut(t)
	a := p.account(10_000_00)
	key, doc := p.externalKey()
	set := func(l pix.Limits) {
		if _, err := p.env.Sim.SetAccountSettings(p.ctx, a.Account.ID, pix.Settings{Limits: l}); err != nil {
			t.Fatal(err)
		}
	}
	try := func(v string) pix.Code {
		_, err := p.env.Sim.CreateCashOut(p.ctx, a.Account.ID, cashOut(v, key, "EMAIL", doc), scenarios.None)
		return pix.ErrorCode(err)
	}
	set(pix.Limits{PerTransaction: 100_00})
	if c := try("100.01"); c != pix.CodePixTransactionLimitExceeded {
		t.Fatalf("per-transaction: %q", c)
	}
	set(pix.Limits{Daily: 300_00})
	if c := try("200"); c != "" {
		t.Fatalf("within the daily limit: %q", c)
	}
	if c := try("100.01"); c != pix.CodePixDailyLimitExceeded {
		t.Fatalf("daily: %q", c)
	}
	// A failed cash-out gives its amount back to the day.
	sc, _ := scenarios.Lookup("ORDER_REJECTED")
	if _, err := p.env.Sim.CreateCashOut(p.ctx, a.Account.ID, cashOut("100", key, "EMAIL", doc), sc); err != nil {
		t.Fatal(err)
	}
	p.advance(2 * time.Second)
	if c := try("100"); c != "" {
		t.Fatalf("after a failed cash-out the day's total must drop: %q", c)
	}
	// Night: 20:00 in São Paulo is 23:00 UTC; the epoch is 12:00 UTC.
	set(pix.Limits{Night: 1_000_00})
	night := time.Date(2026, 3, 2, 23, 30, 0, 0, time.UTC)
	if _, err := p.env.Sim.SetClock(p.ctx, night, pix.ClockWaitWebhooks); err != nil {
		t.Fatal(err)
	}
	if c := try("600"); c != "" {
		t.Fatalf("within the night limit: %q", c)
	}
	if c := try("400.01"); c != pix.CodePixNightLimitExceeded {
		t.Fatalf("night: %q", c)
	}
	if _, err := p.env.Sim.SetClock(p.ctx, night.Add(13*time.Hour), pix.ClockWaitWebhooks); err != nil { // 09:30 next day in São Paulo
		t.Fatal(err)
	}
	if c := try("999"); c != "" {
		t.Fatalf("day after the night: %q", c)
	}
	p.invariants()
}

// TestCashOut_Concurrent: 50 concurrent cash-outs whose total exceeds the
// available balance. The accepted ones never exceed it, available never goes
// below zero, and available + blocked + settled out equals the start.
func TestCashOut_Concurrent(t *testing.T) {
	p := newPixOut(t)
	const start = 1_000_00
	a := p.account(start)
	if _, err := p.env.Sim.SetAccountSettings(p.ctx, a.Account.ID, pix.Settings{Fee: 10}); err != nil {
		t.Fatal(err)
	}
	key, doc := p.externalKey()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var accepted []pix.Transaction
	var rejected int
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tx, err := p.env.Sim.CreateCashOut(p.ctx, a.Account.ID, cashOut("33.33", key, "EMAIL", doc), scenarios.None)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				accepted = append(accepted, tx)
			case pix.ErrorCode(err) == pix.CodePixInsufficientBalance:
				rejected++
			default:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	held := pix.Cents(len(accepted)) * (33_33 + 10)
	if held > start || len(accepted) != start/(33_33+10) || rejected != 50-len(accepted) {
		t.Fatalf("accepted %d (held %s), rejected %d", len(accepted), held, rejected)
	}
	if b := p.balance(a.Account.ID); b.Available != start-held || b.Blocked != held || b.Available < 0 {
		t.Fatalf("after acceptance: %+v", b)
	}
	p.advance(2 * time.Second)
	var out pix.Cents
	for _, tx := range accepted {
		if got := p.tx(tx.ID); got.Status == pix.TxStatusConfirmed {
			out += got.Hold()
		}
	}
	b := p.balance(a.Account.ID)
	if b.Available+b.Blocked+out != start || b.Blocked != 0 {
		t.Fatalf("after settlement: %+v + settled out %s != %d", b, out, start)
	}
	p.invariants()
}

func transferReq(key, amount string) pix.TransferRequest {
	return pix.TransferRequest{IdempotencyKey: uuid.NewString(), PixKey: key, Currency: "BRL", Amount: amount}
}

func TestTransfer_IdempotencyConcurrent(t *testing.T) {
	p := newPixOut(t)
	a := p.account(100_00)
	key, _ := p.externalKey()
	req := transferReq(key, "7.50")
	var wg sync.WaitGroup
	ids := make([]int64, 20)
	replays := make([]bool, 20)
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tx, replayed, err := p.env.Sim.CreateTransfer(p.ctx, a.Account.ID, req, scenarios.None)
			if err != nil {
				t.Error(err)
			}
			ids[i], replays[i] = tx.ID, replayed
		}()
	}
	wg.Wait()
	fresh := 0
	for i := range ids {
		if ids[i] != ids[0] {
			t.Fatalf("answers name different transfers: %v", ids)
		}
		if !replays[i] {
			fresh++
		}
	}
	if fresh != 1 {
		t.Fatalf("%d requests created a transfer, want 1", fresh)
	}
	if b := p.balance(a.Account.ID); b != (pix.Balance{Available: 92_50, Blocked: 7_50}) {
		t.Fatalf("balance = %+v: money moved more than once", b)
	}
	other := req
	other.Amount = "8.00"
	if _, _, err := p.env.Sim.CreateTransfer(p.ctx, a.Account.ID, other, scenarios.None); !pix.Match(&pix.Error{Kind: pix.KindUnprocessable, Code: pix.CodeIdempotencyKeyConflict}, err) {
		t.Fatalf("same key, different body: %v", err)
	}
	// A request refused before acceptance does not bind its key.
	fix := transferReq("nobody@example.invalid", "1")
	if _, _, err := p.env.Sim.CreateTransfer(p.ctx, a.Account.ID, fix, scenarios.None); pix.ErrorCode(err) != pix.CodeDictKeyNotFound {
		t.Fatalf("unknown key: %v", err)
	}
	fix.PixKey = key
	if _, replayed, err := p.env.Sim.CreateTransfer(p.ctx, a.Account.ID, fix, scenarios.None); err != nil || replayed {
		t.Fatalf("corrected retry with the same key: replayed=%v err=%v", replayed, err)
	}
	p.invariants()
}

func TestTransfer_Lifecycle(t *testing.T) {
	p := newPixOut(t)
	a := p.account(100_00)
	b := p.account(5_00)
	sa, sb := newSink(t), newSink(t)
	p.target(a.Account.ID, webhook.EventCashOut, sa)
	p.target(b.Account.ID, webhook.EventCashIn, sb)

	// To another sandbox account: visible on both sides.
	req := transferReq(b.Account.PixKeys[3].Key, "12.34")
	req.Description = "almoço"
	tx, _, err := p.env.Sim.CreateTransfer(p.ctx, a.Account.ID, req, scenarios.None)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.balance(a.Account.ID); got != (pix.Balance{Available: 87_66, Blocked: 12_34}) {
		t.Fatalf("payer after acceptance: %+v", got)
	}
	p.advance(2 * time.Second)
	out := p.tx(tx.ID)
	if out.Status != pix.TxStatusConfirmed || out.Status.TransferType() != "COMPLETED" || out.RelatedID == 0 {
		t.Fatalf("transfer = %+v", out)
	}
	in := p.tx(out.RelatedID)
	if in.Kind != pix.TxPixIn || in.AccountID != b.Account.ID || in.EndToEndID != out.EndToEndID || in.Amount != 12_34 {
		t.Fatalf("receiving side = %+v", in)
	}
	if got := p.balance(a.Account.ID); got != (pix.Balance{Available: 87_66}) {
		t.Fatalf("payer after settlement: %+v", got)
	}
	if got := p.balance(b.Account.ID); got != (pix.Balance{Available: 17_34}) {
		t.Fatalf("receiver after settlement: %+v", got)
	}
	wa, _ := sa.received()
	wb, _ := sb.received()
	if len(wa) != 1 || wa[0]["type"] != "TRANSFER" || len(wb) != 1 || wb[0]["type"] != "RECEIVE" {
		t.Fatalf("webhooks: payer %v receiver %v", wa, wb)
	}
	d := wa[0]["data"].(map[string]any)
	if d["status"] != "LIQUIDATED" || d["idempotencyKey"] != req.IdempotencyKey || d["payment"].(map[string]any)["amount"] != "12.34" ||
		d["creditDebitType"] != "DEBIT" || d["remittanceInformation"] != "almoço" || d["txId"] != nil {
		t.Fatalf("TRANSFER data = %v", d)
	}
	if cd := d["creditorAccount"].(map[string]any); cd["document"] == b.Account.Document || cd["ispb"] != "13140088" {
		t.Fatalf("creditorAccount = %v", cd)
	}

	// Expiration before a slow settlement: ERROR PAYMENT_EXPIRED, hold released.
	key, _ := p.externalKey()
	slow, _ := scenarios.Lookup("SLOW_SETTLEMENT")
	req = transferReq(key, "10")
	req.Expiration = "60"
	tx, _, err = p.env.Sim.CreateTransfer(p.ctx, a.Account.ID, req, slow)
	if err != nil {
		t.Fatal(err)
	}
	p.advance(10 * time.Minute)
	if got := p.tx(tx.ID); got.Status != pix.TxStatusError || got.ErrorCode != pix.CodePaymentExpired || !got.ProcessedAt.Equal(got.CreatedAt.Add(time.Minute)) {
		t.Fatalf("expired transfer = %+v", got)
	}
	if got := p.balance(a.Account.ID); got != (pix.Balance{Available: 87_66}) {
		t.Fatalf("after expiry: %+v", got)
	}

	// ispbDeny, insufficient balance, HIGH priority settles at once.
	entry, _ := p.env.Sim.DictKey(p.ctx, key)
	req = transferReq(key, "1")
	req.IspbDeny = []string{entry.ISPB}
	if _, _, err := p.env.Sim.CreateTransfer(p.ctx, a.Account.ID, req, scenarios.None); pix.ErrorCode(err) != pix.CodeIspbDenied {
		t.Fatalf("ispbDeny: %v", err)
	}
	if _, _, err := p.env.Sim.CreateTransfer(p.ctx, a.Account.ID, transferReq(key, "1000"), scenarios.None); pix.ErrorCode(err) != pix.CodePixInsufficientBalance {
		t.Fatalf("insufficient: %v", err)
	}
	req = transferReq(key, "1")
	req.Priority, req.CreditorDocument = "HIGH", entry.Document
	tx, _, err = p.env.Sim.CreateTransfer(p.ctx, a.Account.ID, req, scenarios.None)
	if err != nil {
		t.Fatal(err)
	}
	p.advance(0)
	if got := p.tx(tx.ID); got.Status != pix.TxStatusConfirmed {
		t.Fatalf("HIGH priority not settled at once: %s", got.Status)
	}
	p.invariants()
}

func TestForcedOutcomes(t *testing.T) {
	p := newPixOut(t)
	a := p.account(100_00)
	key, doc := p.externalKey()
	pending, _ := scenarios.Lookup("SETTLEMENT_PENDING")
	t1, _ := p.env.Sim.CreateCashOut(p.ctx, a.Account.ID, cashOut("10", key, "EMAIL", doc), pending)
	t2, _ := p.env.Sim.CreateCashOut(p.ctx, a.Account.ID, cashOut("10", key, "EMAIL", doc), pending)
	p.advance(time.Hour)
	if p.tx(t1.ID).Status != pix.TxStatusPending {
		t.Fatal("SETTLEMENT_PENDING settled by itself")
	}
	if got, err := p.env.Sim.SettleTransaction(p.ctx, t1.UUID); err != nil || got.Status != pix.TxStatusConfirmed {
		t.Fatalf("settle: %+v %v", got, err)
	}
	if got, err := p.env.Sim.FailTransaction(p.ctx, fmt.Sprint(t2.ID), pix.CodeOrderRejected); err != nil || got.ErrorCode != pix.CodeOrderRejected {
		t.Fatalf("fail: %+v %v", got, err)
	}
	if _, err := p.env.Sim.SettleTransaction(p.ctx, fmt.Sprint(t2.ID)); !pix.Match(&pix.Error{Kind: pix.KindConflict}, err) {
		t.Fatalf("settle a failed transaction: %v", err)
	}
	if _, err := p.env.Sim.FailTransaction(p.ctx, fmt.Sprint(t1.ID), "NOPE"); !pix.Match(&pix.Error{Kind: pix.KindInvalid}, err) {
		t.Fatalf("unknown errorCode: %v", err)
	}
	if b := p.balance(a.Account.ID); b != (pix.Balance{Available: 90_00}) {
		t.Fatalf("balance = %+v", b)
	}
	p.invariants()
}

// TestWebhook_Retries: a receiver that answers 500, 500, then 200 receives the
// delivery three times with the same event id; the log shows the three attempts.
func TestWebhook_Retries(t *testing.T) {
	p := newPixOut(t)
	a := p.account(100_00)
	s := newSink(t, 500, 500, 200)
	p.target(a.Account.ID, webhook.EventCashOut, s)
	key, doc := p.externalKey()
	tx, err := p.env.Sim.CreateCashOut(p.ctx, a.Account.ID, cashOut("1", key, "EMAIL", doc), scenarios.None)
	if err != nil {
		t.Fatal(err)
	}
	p.advance(2 * time.Second) // settles; first attempt
	p.advance(5 * time.Second) // second
	if _, ids := s.received(); len(ids) != 2 {
		t.Fatalf("after the first retry: %d deliveries", len(ids))
	}
	p.advance(30 * time.Second) // third
	_, ids := s.received()
	if len(ids) != 3 || ids[0] == "" || ids[0] != ids[1] || ids[1] != ids[2] {
		t.Fatalf("event ids = %v", ids)
	}
	ds, err := p.env.Sim.WebhookDeliveries(p.ctx, 0, tx.ID, 10)
	if err != nil || len(ds) != 1 {
		t.Fatalf("deliveries = %v, %v", ds, err)
	}
	d := ds[0]
	if d.Status != webhook.StatusDelivered || len(d.Attempts) != 3 ||
		d.Attempts[0].StatusCode != 500 || d.Attempts[1].StatusCode != 500 || d.Attempts[2].StatusCode != 200 {
		t.Fatalf("delivery = %+v", d)
	}
	if !d.Attempts[1].SentAt.Equal(d.Attempts[0].SentAt.Add(5*time.Second)) || !d.Attempts[2].SentAt.Equal(d.Attempts[1].SentAt.Add(30*time.Second)) {
		t.Fatalf("attempt times = %v, %v, %v", d.Attempts[0].SentAt, d.Attempts[1].SentAt, d.Attempts[2].SentAt)
	}
}

// A settled cash-out or transfer leaves none of its jobs pending: the
// settlement removes its own job and, for a transfer, its expiration.
func TestSettlement_LeavesNoJobPending(t *testing.T) {
	p := newPixOut(t)
	a := p.account(100_00)
	key, doc := p.externalKey()
	if _, err := p.env.Sim.CreateCashOut(p.ctx, a.Account.ID, cashOut("1", key, "EMAIL", doc), scenarios.None); err != nil {
		t.Fatal(err)
	}
	req := transferReq(key, "2")
	req.Expiration = "3600"
	if _, _, err := p.env.Sim.CreateTransfer(p.ctx, a.Account.ID, req, scenarios.None); err != nil {
		t.Fatal(err)
	}
	pending := func() []string {
		jobs, err := p.env.Sim.PendingJobs(p.ctx, 100)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, j := range jobs {
			if strings.HasPrefix(j.ID, "settle-") || strings.HasPrefix(j.ID, "expire-") {
				ids = append(ids, j.ID)
			}
		}
		return ids
	}
	if got := pending(); len(got) != 3 {
		t.Fatalf("before settlement: pending %v, want a settlement each and the transfer's expiration", got)
	}
	p.advance(time.Minute)
	if got := pending(); len(got) != 0 {
		t.Fatalf("after settlement: pending %v, want none", got)
	}
}
