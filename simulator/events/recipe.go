package events

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/pixsandbox/pixsandbox/fixtures"
	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
	"github.com/pixsandbox/pixsandbox/simulator/wire"
)

// Core is what the recipes drive: the core's public operations, the same the
// PIX API and the control plane call (*simulator.Simulator implements it).
type Core interface {
	ClockNow() pix.ClockReport
	AdvanceClock(ctx context.Context, d time.Duration, wait pix.ClockWait) (pix.ClockReport, error)
	Account(ctx context.Context, id pix.AccountID) (pix.Account, pix.BalanceReport, error)
	Accounts(ctx context.Context) ([]pix.AccountOverview, error)
	AccountSettings(ctx context.Context, id pix.AccountID) (pix.Settings, error)
	DictKey(ctx context.Context, key string) (pix.DictEntry, error)
	CreateCashOut(ctx context.Context, id pix.AccountID, req pix.CashOutRequest, sc scenarios.Scenario) (pix.Transaction, error)
	CreateTransfer(ctx context.Context, id pix.AccountID, req pix.TransferRequest, sc scenarios.Scenario) (pix.Transaction, bool, error)
	CreateCashIn(ctx context.Context, id pix.AccountID, req pix.CashInRequest, sc scenarios.Scenario) (pix.Transaction, pix.Charge, error)
	CreateCob(ctx context.Context, id pix.AccountID, req pix.CobRequest, sc scenarios.Scenario) (pix.Cob, error)
	CreateRefund(ctx context.Context, id pix.AccountID, orig pix.RefundOriginal, req pix.RefundRequest, sc scenarios.Scenario) (pix.Refund, bool, error)
	RefundOf(ctx context.Context, id pix.AccountID, e2e, refundID string) (pix.Refund, error)
	Pay(ctx context.Context, p pix.Payment) (pix.PaymentResult, error)
	PixIn(ctx context.Context, p pix.Payment) (pix.PaymentResult, error)
	Transaction(ctx context.Context, ref string) (pix.Transaction, error)
	ListTransactions(ctx context.Context, id pix.AccountID, f pix.TransactionFilter) ([]pix.Transaction, int, error)
	SettleTransaction(ctx context.Context, ref string) (pix.Transaction, error)
	FailTransaction(ctx context.Context, ref string, code pix.Code) (pix.Transaction, error)
	OpenMED(ctx context.Context, in pix.MEDOpen) (pix.MED, error)
	AnalyzeMED(ctx context.Context, id int64, result, details string) (pix.MED, error)
	RefundMED(ctx context.Context, id int64) (pix.MED, error)
	WebhookDeliveries(ctx context.Context, id pix.AccountID, txID int64, limit int) ([]webhook.Delivery, error)
}

// Defaults of Params.
const (
	DefaultAccount   pix.AccountID = 1
	DefaultAmount                  = "10.00"
	DefaultErrorCode               = pix.CodeOrderRejected
)

// Params are the choices a caller may make; zero values take the defaults.
type Params struct {
	Account pix.AccountID // the account whose webhook it is; default 1
	Amount  string        // BRL, at most 2 decimals; default 10.00
	// Key is the DICT key the PIX goes to: the destination of a PIX out
	// (default a key outside the sandbox: the first plain e-mail key of
	// fixtures/dict.json), the account's own key credited by a PIX received
	// (default its first), the other sandbox account's key of
	// refundout.received (default the first key of the first other account).
	Key string
	// ErrorCode is the failure of the *.failed events: a code of the
	// contract's errorCode table; default ORDER_REJECTED.
	ErrorCode pix.Code
}

// Result is what a recipe did.
type Result struct {
	Event   Event
	Account pix.AccountID
	// TransactionID is the transaction the webhook is about: its deliveries'
	// transactionId (for a MED event, the PIX the MED contests).
	TransactionID int64
	MEDID         int64 // the MED of a med.* event
	// Steps says what was done, one line each, in order.
	Steps []string
	// ClockMoved is how far the recipe moved the simulation clock (zero but
	// for cashin.expired).
	ClockMoved time.Duration
	// Deliveries are the webhook's deliveries, one per active target of the
	// account for the event's type (listeners included); none when no target
	// listens.
	Deliveries []webhook.Delivery
}

// Trigger runs the recipe of the event name against core. Unknown names are
// KindNotFound; bad parameters KindInvalid naming accountId, amount, key or
// errorCode; a step the core refuses is returned with the step named in its
// message (what came before it stays done).
func Trigger(ctx context.Context, core Core, name string, p Params) (Result, error) {
	ev, ok := Lookup(name)
	if !ok {
		return Result{}, pix.Errorf(pix.KindNotFound, pix.CodeNotFound, "unknown event %q; known events: %s", name, strings.Join(Names(), ", "))
	}
	r := &run{ctx: ctx, core: core, ev: ev, p: p}
	if err := r.params(); err != nil {
		return Result{}, err
	}
	r.res = Result{Event: ev, Account: r.p.Account}
	if err := ev.run(r); err != nil {
		return r.res, err
	}
	ds, err := core.WebhookDeliveries(ctx, r.p.Account, r.res.TransactionID, 1000)
	if err != nil {
		return r.res, err
	}
	for _, d := range ds {
		if d.EventType == ev.EventType {
			r.res.Deliveries = append(r.res.Deliveries, d)
		}
	}
	return r.res, nil
}

// run is one recipe under way.
type run struct {
	ctx    context.Context
	core   Core
	ev     Event
	p      Params
	amount pix.Cents
	res    Result
}

// params checks the parameters and fills in the defaults.
func (r *run) params() error {
	var vs []pix.Violation
	if r.p.Account == 0 {
		r.p.Account = DefaultAccount
	} else if r.p.Account < 0 {
		vs = append(vs, pix.Violation{Field: "accountId", Message: "must be a positive account number"})
	}
	if r.p.Amount == "" {
		r.p.Amount = DefaultAmount
	}
	if a, err := pix.ParseDecimal(r.p.Amount); err != nil || a < 1 {
		vs = append(vs, pix.Violation{Field: "amount", Message: "must be BRL of at least 0.01 with at most 2 decimals, e.g. 10.00"})
	} else {
		r.amount = a
	}
	if r.p.ErrorCode == "" {
		r.p.ErrorCode = DefaultErrorCode
	} else if _, ok := pix.LookupFailure(r.p.ErrorCode); !ok {
		vs = append(vs, pix.Violation{Field: "errorCode", Message: "must be one of TAX_ID_MISMATCH, INVALID_TAX_ID, BLOCKED_ACCOUNT, ACCOUNT_CLOSED, ORDER_REJECTED, PAYMENT_EXPIRED, SETTLEMENT_TIMEOUT"})
	}
	if len(vs) > 0 {
		return pix.Invalid(pix.CodeInvalidRequest, vs...)
	}
	if _, _, err := r.core.Account(r.ctx, r.p.Account); err != nil {
		return err
	}
	return nil
}

// step records what was done.
func (r *run) step(format string, args ...any) {
	r.res.Steps = append(r.res.Steps, fmt.Sprintf(format, args...))
}

// refused names the step in a refusal of the core. The parameters were
// valid, so a refusal of a step's input (KindInvalid: an amount above the
// balance or a limit) is the world's, not the request's: KindUnprocessable.
// Other kinds are kept.
func refused(step string, err error) error {
	var e *pix.Error
	if err == nil || !errors.As(err, &e) {
		return err
	}
	out := *e
	out.Message, out.Violations = step+": "+e.Error(), nil
	if out.Kind == pix.KindInvalid {
		out.Kind = pix.KindUnprocessable
	}
	return &out
}

// description is the description of what the recipe creates.
func (r *run) description() string { return "sandbox event " + r.ev.Name }

// externalID is a fresh externalId of what the recipe creates.
func (r *run) externalID() string {
	return "evt-" + strings.ReplaceAll(r.ev.Name, ".", "-") + "-" + randomHex(6)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// --- PIX received ---

// ownKey is the account's key a PIX received goes to: Key, which must be the
// account's, or its first key.
func (r *run) ownKey() (string, error) {
	if r.p.Key != "" {
		e, err := r.core.DictKey(r.ctx, r.p.Key)
		if err != nil || e.AccountID != r.p.Account {
			return "", pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "key", Message: fmt.Sprintf("must be a PIX key of account %d for %s", r.p.Account, r.ev.Name)})
		}
		return e.Key, nil
	}
	a, _, err := r.core.Account(r.ctx, r.p.Account)
	if err != nil {
		return "", err
	}
	if len(a.PixKeys) == 0 {
		return "", pix.Errorf(pix.KindConflict, pix.CodeInvalidRequest, "account %d has no PIX key to receive a PIX at", r.p.Account)
	}
	return a.PixKeys[0].Key, nil
}

// receive has a payer outside the sandbox send the amount to the account.
func (r *run) receive() (pix.PaymentResult, error) {
	key, err := r.ownKey()
	if err != nil {
		return pix.PaymentResult{}, err
	}
	in, err := r.core.PixIn(r.ctx, pix.Payment{Key: key, Amount: r.amount.Decimal2()})
	if err != nil {
		return in, refused("POST /_sandbox/pix-in", err)
	}
	r.step("POST /_sandbox/pix-in: %s received at %s from a payer outside the sandbox: transaction %d, endToEndId %s (RECEIVE to cash_in)",
		r.amount, key, in.TransactionID, in.EndToEndID)
	return in, nil
}

func (r *run) pixIn() error {
	in, err := r.receive()
	r.res.TransactionID = in.TransactionID
	return err
}

func (r *run) cobPaid() error {
	txid := strings.ToUpper(randomHex(16)) // 32 of [0-9A-F]: a valid txid
	c, err := r.core.CreateCob(r.ctx, r.p.Account, pix.CobRequest{TxID: txid, Original: r.amount.Decimal2(), SolicitacaoPagador: r.description()}, scenarios.None)
	if err != nil {
		return refused("PUT /cob/{txid}", err)
	}
	r.step("PUT /cob/%s: a cob of %s, %s", c.TxID, r.amount, c.Status)
	paid, err := r.core.Pay(r.ctx, pix.Payment{TxID: c.TxID})
	if err != nil {
		return refused("POST /_sandbox/payments", err)
	}
	r.step("POST /_sandbox/payments: paid by a payer outside the sandbox: transaction %d, endToEndId %s", paid.TransactionID, paid.EndToEndID)
	r.res.TransactionID = paid.TransactionID
	return nil
}

// cashIn creates a cash-in charge, expiring after exp (0: the route's default).
func (r *run) cashIn(exp time.Duration) (pix.Transaction, error) {
	req := pix.CashInRequest{Value: r.amount.Decimal2(), Description: r.description(), ExternalID: r.externalID(),
		PayerName: "Pagador da Silva", PayerDocument: "52998224725"}
	if exp > 0 {
		req.ExpirationTime = itoa(int64(exp / time.Second))
	}
	t, ch, err := r.core.CreateCashIn(r.ctx, r.p.Account, req, scenarios.None)
	if err != nil {
		return t, refused("POST /api/pix/cash-in", err)
	}
	r.step("POST /api/pix/cash-in: charge %d (externalId %s) of %s, expiring at %s", t.ID, t.ExternalID, r.amount, wire.Time(ch.ExpiresAt))
	r.res.TransactionID = t.ID
	return t, nil
}

func (r *run) cashInPaid() error {
	t, err := r.cashIn(0)
	if err != nil {
		return err
	}
	paid, err := r.core.Pay(r.ctx, pix.Payment{TransactionID: itoa(t.ID)})
	if err != nil {
		return refused("POST /_sandbox/payments", err)
	}
	r.step("POST /_sandbox/payments: paid by a payer outside the sandbox, endToEndId %s", paid.EndToEndID)
	return nil
}

func (r *run) cashInExpired() error {
	st, err := r.core.AccountSettings(r.ctx, r.p.Account)
	if err != nil {
		return err
	}
	exp := st.EffectiveMinExpiration()
	t, err := r.cashIn(exp)
	if err != nil {
		return err
	}
	clk, err := r.core.AdvanceClock(r.ctx, exp, pix.ClockWaitJobs)
	if err != nil {
		return refused("POST /_sandbox/clock/advance", err)
	}
	r.res.ClockMoved = exp
	if t, err = r.core.Transaction(r.ctx, itoa(t.ID)); err != nil {
		return err
	}
	jobs := "jobs"
	if clk.JobsRun == 1 {
		jobs = "job"
	}
	r.step("POST /_sandbox/clock/advance: the clock moved %s, to %s, running %d %s: the charge is %s %s", exp, wire.Time(clk.Now), clk.JobsRun, jobs, t.Status, t.ErrorCode)
	if t.Status != pix.TxStatusError {
		return pix.Errorf(pix.KindConflict, pix.CodeInvalidRequest, "charge %d is %s after its expiration, not ERROR (was it paid meanwhile?)", t.ID, t.Status)
	}
	return nil
}

// --- PIX sent ---

// destination is Key (default a key outside the sandbox) as the DICT knows it.
func (r *run) destination() (pix.DictEntry, error) {
	key := r.p.Key
	if key == "" {
		key = DefaultKey()
	}
	e, err := r.core.DictKey(r.ctx, key)
	if pix.ErrorKind(err) == pix.KindNotFound {
		return e, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "key", Message: fmt.Sprintf("%q is not in the DICT directory: give a key of fixtures/dict.json or one added with POST /_sandbox/dict/keys", key)})
	}
	return e, err
}

// DefaultKey is the destination of a PIX out when none is given: the first
// e-mail key of the fixture DICT directory that forces no scenario.
func DefaultKey() string {
	if set, err := fixtures.Embedded(); err == nil {
		for _, k := range set.DICT() {
			if k.Type == "EMAIL" && k.Scenario == "" {
				return k.Key
			}
		}
	}
	return "dane.powell@example.net"
}

func (r *run) cashOut() (pix.Transaction, error) {
	dest, err := r.destination()
	if err != nil {
		return pix.Transaction{}, err
	}
	key, keyType := pix.CashOutKeyFor(dest.Type, dest.Key)
	t, err := r.core.CreateCashOut(r.ctx, r.p.Account, pix.CashOutRequest{Value: r.amount.Decimal2(), ExternalID: r.externalID(), Description: r.description(),
		Key: key, KeyType: string(keyType), Name: dest.Name, Document: dest.Document}, scenarios.None)
	if err != nil {
		return t, refused("POST /api/pix/cash-out", err)
	}
	r.step("POST /api/pix/cash-out: transaction %d (externalId %s), %s to %s (%s), %s", t.ID, t.ExternalID, r.amount, dest.Key, dest.Name, t.Status)
	return t, nil
}

func (r *run) transfer(key string) (pix.Transaction, error) {
	t, _, err := r.core.CreateTransfer(r.ctx, r.p.Account, pix.TransferRequest{IdempotencyKey: uuid.NewString(), PixKey: key,
		Description: r.description(), Currency: "BRL", Amount: r.amount.Decimal2()}, scenarios.None)
	if err != nil {
		return t, refused("POST /dict/pix", err)
	}
	r.step("POST /dict/pix: transaction %d, %s to %s, %s", t.ID, r.amount, key, t.Status)
	return t, nil
}

// end settles (or, with fail, fails with ErrorCode) the pending transaction
// id now. If its own settlement ran first (a real clock), the outcome it
// reached is accepted when it is the one asked for.
func (r *run) end(id int64, fail bool) (pix.Transaction, error) {
	ref, want, verb := itoa(id), pix.TxStatusConfirmed, "settle"
	var t pix.Transaction
	var err error
	if fail {
		want, verb = pix.TxStatusError, "fail"
		t, err = r.core.FailTransaction(r.ctx, ref, r.p.ErrorCode)
	} else {
		t, err = r.core.SettleTransaction(r.ctx, ref)
	}
	if pix.ErrorKind(err) == pix.KindConflict {
		t, err = r.core.Transaction(r.ctx, ref)
	}
	if err != nil {
		return t, refused("POST /_sandbox/transactions/"+ref+"/"+verb, err)
	}
	if t.Status != want {
		return t, pix.Errorf(pix.KindConflict, pix.CodeTransactionNotSettleable, "transaction %d ended %s before it could be %sed here", t.ID, t.Status, verb)
	}
	line := fmt.Sprintf("POST /_sandbox/transactions/%d/%s: %s", t.ID, verb, t.Status)
	if fail {
		line += " " + string(t.ErrorCode)
	}
	r.step("%s", line)
	return t, nil
}

func (r *run) pixOut(transfer, fail bool) error {
	var t pix.Transaction
	var err error
	if transfer {
		var dest pix.DictEntry
		if dest, err = r.destination(); err == nil {
			t, err = r.transfer(dest.Key)
		}
	} else {
		t, err = r.cashOut()
	}
	if err != nil {
		return err
	}
	r.res.TransactionID = t.ID
	_, err = r.end(t.ID, fail)
	return err
}

func (r *run) cashOutConfirmed() error   { return r.pixOut(false, false) }
func (r *run) cashOutFailed() error      { return r.pixOut(false, true) }
func (r *run) transferLiquidated() error { return r.pixOut(true, false) }
func (r *run) transferFailed() error     { return r.pixOut(true, true) }

// --- Refunds ---

// refundOf refunds the PIX in, received by account, in full.
func (r *run) refundOf(account pix.AccountID, in int64) (pix.Refund, error) {
	rf, _, err := r.core.CreateRefund(r.ctx, account, pix.RefundOriginal{TransactionID: itoa(in)},
		pix.RefundRequest{ID: randomHex(16), Amount: r.amount, Nature: pix.NatureOriginal, Description: r.description()}, scenarios.None)
	if err != nil {
		return rf, refused("POST /api/pix/refund-in/"+itoa(in), err)
	}
	r.step("POST /api/pix/refund-in/%d: account %d refunds %s, refund %s (transaction %d), %s", in, account, rf.Amount, rf.ID, rf.TransactionID, rf.Status)
	return rf, nil
}

func (r *run) refundIn(fail bool) error {
	in, err := r.receive()
	if err != nil {
		return err
	}
	rf, err := r.refundOf(r.p.Account, in.TransactionID)
	if err != nil {
		return err
	}
	r.res.TransactionID = rf.TransactionID
	_, err = r.end(rf.TransactionID, fail)
	return err
}

func (r *run) refundInRefunded() error { return r.refundIn(false) }
func (r *run) refundInFailed() error   { return r.refundIn(true) }

// payee is the other sandbox account of refundout.received and its key: Key's
// holder, or the first other account with a key.
func (r *run) payee() (pix.AccountID, string, error) {
	if r.p.Key != "" {
		e, err := r.core.DictKey(r.ctx, r.p.Key)
		if err != nil || e.AccountID == 0 || e.AccountID == r.p.Account {
			return 0, "", pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "key", Message: fmt.Sprintf("must be a PIX key of another sandbox account than %d for %s", r.p.Account, r.ev.Name)})
		}
		return e.AccountID, e.Key, nil
	}
	all, err := r.core.Accounts(r.ctx)
	if err != nil {
		return 0, "", err
	}
	for _, a := range all {
		if a.Account.ID != r.p.Account && len(a.Account.PixKeys) > 0 {
			return a.Account.ID, a.Account.PixKeys[0].Key, nil
		}
	}
	return 0, "", pix.Errorf(pix.KindConflict, pix.CodeInvalidRequest, "%s needs a second sandbox account with a PIX key: create one with POST /_sandbox/accounts", r.ev.Name)
}

func (r *run) refundOutReceived() error {
	other, key, err := r.payee()
	if err != nil {
		return err
	}
	start := r.core.ClockNow().Now
	t, err := r.transfer(key)
	if err != nil {
		return err
	}
	if t, err = r.end(t.ID, false); err != nil {
		return err
	}
	r.step("account %d received it: transaction %d", other, t.RelatedID)
	rf, err := r.refundOf(other, t.RelatedID)
	if err != nil {
		return err
	}
	if _, err := r.end(rf.TransactionID, false); err != nil {
		return err
	}
	back, _, err := r.core.ListTransactions(r.ctx, r.p.Account, pix.TransactionFilter{From: start, To: r.core.ClockNow().Now,
		Type: pix.TxTypeRefundOut, EndToEndID: rf.RtrID, Page: 1, Size: 1})
	if err != nil {
		return err
	}
	if len(back) == 0 {
		return pix.Errorf(pix.KindInternal, pix.CodeInternal, "the refund %s settled but account %d has no REFUND_OUT of it", rf.RtrID, r.p.Account)
	}
	r.step("account %d got the refund back: transaction %d (REFUND_OUT)", r.p.Account, back[0].ID)
	r.res.TransactionID = back[0].ID
	return nil
}

// --- MED ---

// med opens a MED against a PIX the account receives now, then analyses it
// with result ("" leaves it open) and, with refund, refunds and settles it.
func (r *run) med(result string, refund bool) error {
	in, err := r.receive()
	if err != nil {
		return err
	}
	m, err := r.core.OpenMED(r.ctx, pix.MEDOpen{AccountID: r.p.Account, EndToEndID: in.EndToEndID, Cause: "UNAUTHORIZED_TRANSACTION", Description: r.description()})
	if err != nil {
		return refused("POST /_sandbox/med", err)
	}
	r.step("POST /_sandbox/med: MED %d opened by %s against it, %s", m.ID, m.RequestingBank.Name, m.Status)
	r.res.TransactionID, r.res.MEDID = in.TransactionID, m.ID
	if result == "" {
		return nil
	}
	id := m.ID
	if m, err = r.core.AnalyzeMED(r.ctx, id, result, r.description()); err != nil {
		return refused(fmt.Sprintf("POST /_sandbox/med/%d/analyze", id), err)
	}
	r.step("POST /_sandbox/med/%d/analyze: %s %s, %s blocked", m.ID, m.Status, m.AnalysisResult, m.BlockedAmount)
	if !refund {
		return nil
	}
	if m, err = r.core.RefundMED(r.ctx, id); err != nil {
		return refused(fmt.Sprintf("POST /_sandbox/med/%d/refund", id), err)
	}
	rf, err := r.core.RefundOf(r.ctx, r.p.Account, in.EndToEndID, m.RefundID)
	if err != nil {
		return err
	}
	r.step("POST /_sandbox/med/%d/refund: refund %s of %s (transaction %d, natureza %s), %s", m.ID, rf.ID, rf.Amount, rf.TransactionID, rf.Nature, rf.Status)
	r.res.TransactionID = rf.TransactionID
	_, err = r.end(rf.TransactionID, false)
	return err
}

func (r *run) medCreated() error  { return r.med("", false) }
func (r *run) medAccepted() error { return r.med(pix.MEDResultApproved, false) }
func (r *run) medRejected() error { return r.med(pix.MEDResultRejected, false) }
func (r *run) medRefunded() error { return r.med(pix.MEDResultApproved, true) }
