package simulator

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/agenda"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/refs"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

// Job kinds of PIX in.
const (
	jobCobExpire    = "cob.expire"    // ATIVA at criacao + expiracao → REMOVIDA_PELO_PSP
	jobCashInExpire = "cashin.expire" // PENDING at expirationDate → ERROR PAYMENT_EXPIRED
	jobAutoPay      = "charge.autopay"
	jobSplitsRun    = "splits.run"
)

// LocationHost is the host of every BR Code location URL the sandbox issues.
const LocationHost = "qr.pixsandbox.example"

// merchantCity is field 60 of every BR Code.
const merchantCity = "SAO PAULO"

func cobExpireJobID(a pix.AccountID, txid string) string {
	return "cobexp-" + itoa(int64(a)) + "-" + txid
}
func cashInExpireJobID(id int64) string { return "cashinexp-" + itoa(id) }
func autoPayJobID(ref string) string    { return "autopay-" + ref }

// newLocation issues a BR Code location for a charge: a loc id, a URL without
// scheme ending in a random token, and the dynamic BR Code pointing at it.
func (s *Simulator) newLocation(tx storage.Tx, holder string, ref pix.LocationRef) (locID int64, location, code string, err error) {
	if locID, err = tx.NextID("location"); err != nil {
		return 0, "", "", err
	}
	token := strings.ReplaceAll(uuid.NewString(), "-", "")
	location = LocationHost + "/qr/v2/" + token
	if code, err = pix.NewDynamicBRCode(location, holder, merchantCity).Encode(); err != nil {
		return 0, "", "", err
	}
	return locID, location, code, tx.PutLocation(token, ref)
}

// CreateCob creates an immediate charge (spec "Endpoints > PUT /cob/{txid}"):
// 409 when the account already has the txid (spec; the Central Bank would replace
// an ATIVA one, Gap G-35). chave, when given, must be a key of the account;
// absent, the account's EVP key is used. A durable job expires it at criacao +
// expiracao.
func (s *Simulator) CreateCob(ctx context.Context, id pix.AccountID, req pix.CobRequest, sc scenarios.Scenario) (pix.Cob, error) {
	now := s.clock.Now()
	c, err := req.Validate()
	if err != nil {
		return pix.Cob{}, err
	}
	err = s.store.Update(ctx, func(tx storage.Tx) error {
		if _, err := tx.Cob(id, c.TxID); err == nil {
			return pix.Errorf(pix.KindConflict, pix.CodeInvalidRequest, "txid %s already exists", c.TxID)
		} else if !errors.Is(err, storage.ErrNotFound) {
			return err
		}
		a, err := tx.Account(id)
		if err != nil {
			return refs.NotFound(err, "account %d not found", id)
		}
		if c.Key == "" {
			c.Key = accountKey(a)
		} else if !ownsKey(a, c.Key) {
			return pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "chave", Message: "must be a key of this account"})
		}
		c.AccountID, c.CreatedAt, c.Scenario = id, now, sc.Name
		if c.LocID, c.Location, c.PixCode, err = s.newLocation(tx, a.Name, pix.LocationRef{Kind: pix.LocationCob, AccountID: id, TxID: c.TxID}); err != nil {
			return err
		}
		if err := tx.PutCob(c); err != nil {
			return err
		}
		if err := tx.PutJob(agenda.Job{ID: cobExpireJobID(id, c.TxID), Kind: jobCobExpire, Due: c.ExpiresAt(), Payload: chargeRef(id, c.TxID)}); err != nil {
			return err
		}
		return s.scheduleAutoPay(tx, sc, "cob-"+itoa(int64(id))+"-"+c.TxID, now, c.ExpiresAt(), pix.Payment{TxID: c.TxID})
	})
	if err != nil {
		return pix.Cob{}, err
	}
	return c, nil // the store wakes the agenda when the expiry is due before its next look
}

// Cob returns an account's cob (GET /cob/{txid}).
func (s *Simulator) Cob(ctx context.Context, id pix.AccountID, txid string) (pix.Cob, error) {
	if !pix.ValidTxID(txid) {
		return pix.Cob{}, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "txid", Message: "must be 26 to 35 characters of [a-zA-Z0-9]"})
	}
	var c pix.Cob
	err := s.store.View(ctx, func(tx storage.Tx) (err error) {
		c, err = tx.Cob(id, txid)
		return refs.NotFound(err, "cob %s not found", txid)
	})
	return c, err
}

// RemoveCob moves an ATIVA cob to REMOVIDA_PELO_USUARIO_RECEBEDOR (PATCH
// /cob/{txid} with that status, as the Central Bank API has it). A cob no longer
// ATIVA cannot change (409).
func (s *Simulator) RemoveCob(ctx context.Context, id pix.AccountID, txid string) (pix.Cob, error) {
	if !pix.ValidTxID(txid) {
		return pix.Cob{}, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "txid", Message: "must be 26 to 35 characters of [a-zA-Z0-9]"})
	}
	now := s.clock.Now()
	var c pix.Cob
	err := s.store.Update(ctx, func(tx storage.Tx) (err error) {
		if c, err = tx.Cob(id, txid); err != nil {
			return refs.NotFound(err, "cob %s not found", txid)
		}
		if !c.Status.CanBecome(pix.CobStatusRemovidaPeloUsuarioRecebedor) {
			return pix.Errorf(pix.KindConflict, pix.CodeInvalidRequest, "cob %s is %s and can no longer change", txid, c.Status)
		}
		c.Status, c.EndedAt, c.Revision = pix.CobStatusRemovidaPeloUsuarioRecebedor, now, c.Revision+1
		if err := tx.DeleteJob(cobExpireJobID(id, txid)); err != nil {
			return err
		}
		return tx.PutCob(c)
	})
	return c, err
}

// CreateCashIn creates a cash-in charge (spec "Endpoints > POST
// /api/pix/cash-in"): a transaction PENDING until paid, with a dynamic BR Code,
// expiring at expirationDate.
//
// Returns CodeHTTPError, CodePixInvalidAmount or
// CodeProviderExpirationBelowMinimum on invalid input, the code forced by sc
// (PROVIDER_FAILURE: 500), or CodePixDuplicateExternalID.
func (s *Simulator) CreateCashIn(ctx context.Context, id pix.AccountID, req pix.CashInRequest, sc scenarios.Scenario) (pix.Transaction, pix.Charge, error) {
	now := s.clock.Now()
	var st pix.Settings
	if err := s.store.View(ctx, func(tx storage.Tx) error {
		a, err := tx.Account(id)
		if err != nil {
			return refs.NotFound(err, "account %d not found", id)
		}
		st, err = settingsOf(tx, a)
		return err
	}); err != nil {
		return pix.Transaction{}, pix.Charge{}, err
	}
	in, err := req.Validate(st.EffectiveMinExpiration())
	if err != nil {
		return pix.Transaction{}, pix.Charge{}, err
	}
	if err := sc.RejectAtRequest(scenarios.OpCashIn); err != nil {
		return pix.Transaction{}, pix.Charge{}, err
	}
	var t pix.Transaction
	var ch pix.Charge
	err = s.store.Update(ctx, func(tx storage.Tx) error {
		a, err := tx.Account(id)
		if err != nil {
			return err
		}
		if prev, err := tx.TransactionByExternalID(id, in.ExternalID); err == nil {
			return &pix.Error{Kind: pix.KindInvalid, Code: pix.CodePixDuplicateExternalID,
				Message: "transaction.externalId " + refs.Quote(in.ExternalID) + " was already used by this account",
				Details: map[string]any{"externalId": in.ExternalID, "existingTransactionId": prev.ID}}
		} else if !errors.Is(err, storage.ErrNotFound) {
			return err
		}
		txID, err := tx.NextID("transaction")
		if err != nil {
			return err
		}
		chargeTxID := strings.ReplaceAll(uuid.NewString(), "-", "")
		t = pix.Transaction{ID: txID, UUID: uuid.NewString(), AccountID: id, Kind: pix.TxCashIn, Status: pix.TxStatusPending,
			Amount: in.Amount, ExternalID: in.ExternalID, Description: in.Description, TxID: chargeTxID, CreatedAt: now, Scenario: sc.Name,
			Counterpart: pix.Counterpart{Name: in.PayerName, Document: in.PayerDocument}}
		ch = pix.Charge{TransactionID: txID, AccountID: id, CorrelationID: uuid.NewString(), TxID: chargeTxID,
			ExpiresAt: now.Add(in.Expiration), GenerateQrCode: in.GenerateQrCode, PayerName: in.PayerName,
			PayerDocument: in.PayerDocument, AdditionalInfo: in.AdditionalInfo, Splits: in.Splits, Scenario: sc.Name}
		if ch.LocID, ch.Location, ch.PixCode, err = s.newLocation(tx, a.Name, pix.LocationRef{Kind: pix.LocationCashIn, AccountID: id, TransactionID: txID}); err != nil {
			return err
		}
		if err := tx.PutTransaction(t); err != nil {
			return err
		}
		if err := tx.PutCharge(ch); err != nil {
			return err
		}
		if err := tx.PutJob(agenda.Job{ID: cashInExpireJobID(txID), Kind: jobCashInExpire, Due: ch.ExpiresAt, Payload: []byte(itoa(txID))}); err != nil {
			return err
		}
		return s.scheduleAutoPay(tx, sc, "cashin-"+itoa(txID), now, ch.ExpiresAt, pix.Payment{TransactionID: itoa(txID)})
	})
	if err != nil {
		return pix.Transaction{}, pix.Charge{}, err
	}
	return t, ch, nil // the store wakes the agenda when the expiry is due before its next look
}

// CashInCharge returns a cash-in charge by its transaction (control plane).
func (s *Simulator) CashInCharge(ctx context.Context, id int64) (pix.Charge, error) {
	var c pix.Charge
	err := s.store.View(ctx, func(tx storage.Tx) (err error) {
		c, err = tx.Charge(id)
		return refs.NotFound(err, "cash-in charge %d not found", id)
	})
	return c, err
}

// scheduleAutoPay schedules the payer of a Payer scenario: AUTO_PAYMENT pays
// Delay after creation; LATE_PAYMENT pays Delay after expiry (and is refused).
func (s *Simulator) scheduleAutoPay(tx storage.Tx, sc scenarios.Scenario, ref string, now, expiresAt time.Time, p pix.Payment) error {
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

// cobExpireJob moves a cob still ATIVA at its expiry to REMOVIDA_PELO_PSP (spec
// table; Gap G-36: the Central Bank keeps an expired cob ATIVA).
func (s *Simulator) cobExpireJob(ctx context.Context, now time.Time, j agenda.Job) error {
	id, txid, ok := parseChargeRef(j.Payload)
	if !ok {
		return nil
	}
	return s.store.Update(ctx, func(tx storage.Tx) error {
		c, err := tx.Cob(id, txid)
		if errors.Is(err, storage.ErrNotFound) {
			return nil
		}
		if err != nil || c.Status != pix.CobStatusAtiva {
			return err
		}
		c.Status, c.EndedAt = pix.CobStatusRemovidaPeloPSP, now
		return tx.PutCob(c)
	})
}

// cashInExpireJob ends a cash-in charge still PENDING at its expirationDate:
// ERROR with PAYMENT_EXPIRED, visible in the listing, and a cash_in webhook
// saying so (Gap G-37).
func (s *Simulator) cashInExpireJob(ctx context.Context, now time.Time, j agenda.Job) error {
	id, err := strconv.ParseInt(string(j.Payload), 10, 64)
	if err != nil {
		return nil
	}
	return s.store.Update(ctx, func(tx storage.Tx) error {
		t, err := tx.Transaction(id)
		if errors.Is(err, storage.ErrNotFound) {
			return nil
		}
		if err != nil || t.Status != pix.TxStatusPending {
			return err
		}
		ch, err := tx.Charge(id)
		if err != nil {
			return err
		}
		f, _ := pix.LookupFailure(pix.CodePaymentExpired)
		t.Status, t.ErrorCode, t.ErrorMessage, t.ProcessedAt = pix.TxStatusError, f.Code, "charge expired before it was paid", now
		if err := tx.PutTransaction(t); err != nil {
			return err
		}
		return s.emitCashIn(tx, t, ch, now)
	})
}

// chargeRef encodes an account and a txid for a job payload.
func chargeRef(id pix.AccountID, txid string) []byte { return []byte(itoa(int64(id)) + "/" + txid) }

func parseChargeRef(b []byte) (pix.AccountID, string, bool) {
	a, txid, ok := strings.Cut(string(b), "/")
	n, err := strconv.ParseInt(a, 10, 64)
	return pix.AccountID(n), txid, ok && err == nil
}

// accountKey is the key a charge names when the request gives none: the
// account's EVP key, else its first.
func accountKey(a pix.Account) string {
	for _, k := range a.PixKeys {
		if k.Type == pix.KeyTypeEVP {
			return k.Key
		}
	}
	if len(a.PixKeys) > 0 {
		return a.PixKeys[0].Key
	}
	return ""
}

func ownsKey(a pix.Account, key string) bool {
	for _, k := range a.PixKeys {
		if k.Key == key {
			return true
		}
	}
	return false
}
