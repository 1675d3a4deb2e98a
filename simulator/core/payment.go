package core

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/agenda"
	"github.com/pixsandbox/pixsandbox/simulator/brcode"
	"github.com/pixsandbox/pixsandbox/simulator/ledger"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/refs"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
	"github.com/pixsandbox/pixsandbox/simulator/webhook/outbox"
)

// webhookEventCashIn is the registration event type of PIX received.
const webhookEventCashIn = webhook.EventCashIn

// jobAutoPay is the payer of the AUTO_PAYMENT and LATE_PAYMENT scenarios.
const jobAutoPay = "charge.autopay"

// LocationHost is the host of every BR Code location URL the sandbox issues.
const LocationHost = "qr.pixsandbox.example"

// merchantCity is field 60 of every BR Code.
const merchantCity = "SAO PAULO"

// Pay pays a charge as the payer's bank would (control plane, POST
// /_sandbox/payments): the charge named by its BR Code, its txid or its
// transaction id. The payer defaults to a person at a bank outside the sandbox.
// Paying a charge that is no longer payable is 409; a wrong amount is 422.
func (s *Simulator) Pay(ctx context.Context, p pix.Payment) (pix.PaymentResult, error) {
	now := s.clock.Now()
	payer, err := s.payer(p)
	if err != nil {
		return pix.PaymentResult{}, err
	}
	var res pix.PaymentResult
	err = s.store.Update(ctx, func(tx storage.Tx) (err error) {
		res, err = s.payCharge(tx, p, payer, ledger.WorldPocket, now)
		return err
	})
	if err != nil {
		return pix.PaymentResult{}, err
	}
	s.agenda.Wake()
	return res, nil
}

// PixIn credits the sandbox account holding key with a PIX received by key, no
// charge (control plane, POST /_sandbox/pix-in; also how tests fund accounts).
func (s *Simulator) PixIn(ctx context.Context, p pix.Payment) (pix.PaymentResult, error) {
	now := s.clock.Now()
	amount, err := pix.ParseDecimal(p.Amount)
	if err != nil || amount < 1 {
		return pix.PaymentResult{}, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "amount", Message: "is required: at least 0.01 with at most 2 decimals"})
	}
	payer, err := s.payer(p)
	if err != nil {
		return pix.PaymentResult{}, err
	}
	var res pix.PaymentResult
	err = s.store.Update(ctx, func(tx storage.Tx) error {
		e, err := tx.DictEntry(p.Key)
		if errors.Is(err, storage.ErrNotFound) || (err == nil && e.AccountID == 0) {
			return pix.Errorf(pix.KindNotFound, pix.CodeDictKeyNotFound, "key %s is not a key of a sandbox account", refs.Quote(p.Key))
		} else if err != nil {
			return err
		}
		e2e := s.endToEndID('E', payer.ISPB, now)
		t, err := s.receivePix(tx, e.AccountID, ledger.WorldPocket, amount, payer, e2e, "", e.Key, "", now)
		res = pix.PaymentResult{EndToEndID: e2e, TransactionID: t.ID, Amount: t.Amount, Fee: t.Fee}
		return err
	})
	if err != nil {
		return pix.PaymentResult{}, err
	}
	s.agenda.Wake()
	return res, nil
}

// payer is the counterpart of an external payment, from the request or a
// default person (valid CPF) at a participant outside the sandbox.
func (s *Simulator) payer(p pix.Payment) (pix.Counterpart, error) {
	c := pix.Counterpart{Name: p.PayerName, Document: p.PayerDocument, ISPB: p.PayerISPB}
	var vs []pix.Violation
	if c.Name == "" {
		c.Name = "Pagador da Silva"
	}
	if c.Document == "" {
		c.Document = "52998224725"
	} else if !pix.ValidDocument(c.Document) {
		vs = append(vs, pix.Violation{Field: "payer.document", Message: "must be a CPF or CNPJ with valid check digits"})
	}
	if c.ISPB == "" {
		c.ISPB = s.banks.ForKey(c.Document).ISPB
	}
	b, ok := s.banks.ByISPB[c.ISPB]
	if !ok || b.Code == "" || c.ISPB == s.banks.Sandbox.ISPB {
		vs = append(vs, pix.Violation{Field: "payer.ispb", Message: "must be a participant outside the sandbox (GET /_sandbox/banks)"})
	}
	if len(vs) > 0 {
		return c, pix.Invalid(pix.CodeInvalidRequest, vs...)
	}
	c.BankName, c.BankCode = b.Name, b.Code
	return c, nil
}

// payCharge pays the charge p names with money from `from` (the world for an
// external payer). The end-to-end id is the payer's PSP's.
func (s *Simulator) payCharge(tx storage.Tx, p pix.Payment, payer pix.Counterpart, from ledger.Pocket, now time.Time) (pix.PaymentResult, error) {
	ref, err := resolveCharge(tx, p)
	if err != nil {
		return pix.PaymentResult{}, err
	}
	var amount *pix.Cents
	if p.Amount != "" {
		a, err := pix.ParseDecimal(p.Amount)
		if err != nil || a < 1 {
			return pix.PaymentResult{}, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "amount", Message: "must be at least 0.01 with at most 2 decimals"})
		}
		amount = &a
	}
	e2e := s.endToEndID('E', payer.ISPB, now)
	t, err := s.payResolved(tx, ref, amount, payer, from, e2e, now)
	if err != nil {
		return pix.PaymentResult{}, err
	}
	return pix.PaymentResult{EndToEndID: e2e, TransactionID: t.ID, Amount: t.Amount, Fee: t.Fee}, nil
}

// payResolved pays a resolved charge: a cob or a cash-in charge.
func (s *Simulator) payResolved(tx storage.Tx, ref pix.LocationRef, amount *pix.Cents, payer pix.Counterpart, from ledger.Pocket, e2e string, now time.Time) (pix.Transaction, error) {
	if ref.Kind == pix.LocationCob {
		return s.payCob(tx, ref, amount, payer, from, e2e, now)
	}
	return s.payCashIn(tx, ref, amount, payer, from, e2e, now)
}

// resolveCharge finds the charge a payment names.
func resolveCharge(tx storage.Tx, p pix.Payment) (pix.LocationRef, error) {
	switch {
	case p.PixCode != "":
		code, err := brcode.Parse(strings.TrimSpace(p.PixCode))
		if err != nil {
			return pix.LocationRef{}, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "pixCode", Message: "is not a valid BR Code: " + err.Error()})
		}
		token := code.URL[strings.LastIndexByte(code.URL, '/')+1:]
		ref, err := tx.Location(token)
		if errors.Is(err, storage.ErrNotFound) || code.URL == "" {
			return ref, pix.Errorf(pix.KindNotFound, pix.CodeNotFound, "no charge of this sandbox at location %s", refs.Quote(code.URL))
		}
		return ref, err
	case p.TxID != "":
		accounts, err := tx.CobAccounts(p.TxID)
		if err != nil {
			return pix.LocationRef{}, err
		}
		switch len(accounts) {
		case 1:
			return pix.LocationRef{Kind: pix.LocationCob, AccountID: accounts[0], TxID: p.TxID}, nil
		case 0:
			ch, err := tx.ChargeByTxID(p.TxID)
			if err != nil {
				return pix.LocationRef{}, refs.NotFound(err, "no charge with txid %s", refs.Quote(p.TxID))
			}
			return pix.LocationRef{Kind: pix.LocationCashIn, AccountID: ch.AccountID, TransactionID: ch.TransactionID}, nil
		default:
			return pix.LocationRef{}, pix.Errorf(pix.KindConflict, pix.CodeInvalidRequest, "several accounts have a cob with txid %s; pay by pixCode", p.TxID)
		}
	case p.TransactionID != "":
		n, err := strconv.ParseInt(p.TransactionID, 10, 64)
		if err != nil {
			return pix.LocationRef{}, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "transactionId", Message: "must be the number of a cash-in charge"})
		}
		ch, err := tx.Charge(n)
		if err != nil {
			return pix.LocationRef{}, refs.NotFound(err, "no cash-in charge with transactionId %d", n)
		}
		return pix.LocationRef{Kind: pix.LocationCashIn, AccountID: ch.AccountID, TransactionID: n}, nil
	}
	return pix.LocationRef{}, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "body", Message: "must name the charge with pixCode, txid or transactionId"})
}

// errChargeEnded refuses a payment of a charge that accepts none (409).
func errChargeEnded(what string) error {
	return pix.Errorf(pix.KindConflict, pix.CodeInvalidRequest, "%s", what)
}

// errWrongAmount refuses a payment of the wrong amount (422).
func errWrongAmount(want, got pix.Cents) error {
	return pix.Errorf(pix.KindUnprocessable, pix.CodeInvalidRequest, "amount %s differs from the charge's %s", got, want)
}

// receivePix credits a PIX received (by key, for a cob, or from another sandbox
// account): a PIX_IN transaction, the amount less the account's cash-in fee, and
// a RECEIVE webhook to its cash_in targets.
func (s *Simulator) receivePix(tx storage.Tx, to pix.AccountID, from ledger.Pocket, amount pix.Cents, payer pix.Counterpart, e2e, txid, key, description string, now time.Time) (pix.Transaction, error) {
	id, err := tx.NextID("transaction")
	if err != nil {
		return pix.Transaction{}, err
	}
	t := pix.Transaction{ID: id, UUID: uuid.NewString(), AccountID: to, Kind: pix.TxPixIn, Status: pix.TxStatusConfirmed,
		Amount: amount, EndToEndID: e2e, PixKey: key, Description: description, TxID: txid, Counterpart: payer,
		CreatedAt: now, ProcessedAt: now}
	if t.Fee, err = s.credit(tx, t, from, now); err != nil {
		return pix.Transaction{}, err
	}
	if err := tx.PutTransaction(t); err != nil {
		return pix.Transaction{}, err
	}
	return t, outbox.Emit(tx, to, webhookEventCashIn, "RECEIVE", t.ID, webhook.ReceivePayload(t), now)
}

// credit moves a received amount into the account and takes the cash-in fee
// (capped at the amount), returning the fee.
func (s *Simulator) credit(tx storage.Tx, t pix.Transaction, from ledger.Pocket, now time.Time) (pix.Cents, error) {
	if _, err := tx.Move(ledger.Entry{At: now, From: from, To: ledger.AvailableOf(t.AccountID), Amount: t.Amount, Ref: refs.Ref(t, "receive")}); err != nil {
		return 0, err
	}
	a, err := tx.Account(t.AccountID)
	if err != nil {
		return 0, err
	}
	st, err := settingsOf(tx, a)
	if err != nil {
		return 0, err
	}
	fee := min(st.CashInFee, t.Amount)
	if fee > 0 {
		if _, err := tx.Move(ledger.Entry{At: now, From: ledger.AvailableOf(t.AccountID), To: ledger.WorldPocket, Amount: fee, Ref: refs.Ref(t, "fee")}); err != nil {
			return 0, err
		}
	}
	return fee, nil
}

// autoPayJob is the payer of the AUTO_PAYMENT and LATE_PAYMENT scenarios. A
// refused payment (an ended charge) is recorded on the charge (RefusedAt, set by
// payCob/payCashIn in this same transaction) and not retried.
func (s *Simulator) autoPayJob(ctx context.Context, now time.Time, j agenda.Job) error {
	var p pix.Payment
	if err := json.Unmarshal(j.Payload, &p); err != nil {
		return nil
	}
	payer, err := s.payer(pix.Payment{})
	if err != nil {
		return err
	}
	return s.store.Update(ctx, func(tx storage.Tx) error {
		_, err := s.payCharge(tx, p, payer, ledger.WorldPocket, now)
		if pix.ErrorKind(err) == pix.KindConflict {
			s.log.Info("scenario payment refused", "charge", string(j.Payload), "reason", err)
			return nil // commit the recorded refusal
		}
		return err
	})
}

func encodePayment(p pix.Payment) ([]byte, error) { return json.Marshal(p) }

// newLocation issues a BR Code location for a charge: a loc id, a URL without
// scheme ending in a random token, and the dynamic BR Code pointing at it.
func newLocation(tx storage.Tx, holder string, ref pix.LocationRef) (locID int64, location, code string, err error) {
	if locID, err = tx.NextID("location"); err != nil {
		return 0, "", "", err
	}
	token := strings.ReplaceAll(uuid.NewString(), "-", "")
	location = LocationHost + "/qr/v2/" + token
	if code, err = brcode.NewDynamic(location, holder, merchantCity).Encode(); err != nil {
		return 0, "", "", err
	}
	return locID, location, code, tx.PutLocation(token, ref)
}

// scheduleAutoPay schedules the payer of a Payer scenario: AUTO_PAYMENT pays
// Delay after creation; LATE_PAYMENT pays Delay after expiry (and is refused).
func scheduleAutoPay(tx storage.Tx, sc scenarios.Scenario, ref string, now, expiresAt time.Time, p pix.Payment) error {
	if sc.Phase != scenarios.Payer {
		return nil
	}
	due := now.Add(sc.Delay)
	if sc.AfterExpiry {
		due = expiresAt.Add(sc.Delay)
	}
	payload, err := encodePayment(p)
	if err != nil {
		return err
	}
	return tx.PutJob(agenda.Job{ID: autoPayJobID(ref), Kind: jobAutoPay, Due: due, Payload: payload})
}

func autoPayJobID(ref string) string { return "autopay-" + ref }
