package core

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/agenda"
	"github.com/pixsandbox/pixsandbox/simulator/ledger"
	"github.com/pixsandbox/pixsandbox/simulator/med"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/refs"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

// jobCobExpire ends a cob still ATIVA at criacao + expiracao
// (REMOVIDA_PELO_PSP).
const jobCobExpire = "cob.expire"

func cobExpireJobID(a pix.AccountID, txid string) string {
	return "cobexp-" + itoa(int64(a)) + "-" + txid
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
		if c.LocID, c.Location, c.PixCode, err = newLocation(tx, a.Name, pix.LocationRef{Kind: pix.LocationCob, AccountID: id, TxID: c.TxID}); err != nil {
			return err
		}
		if err := tx.PutCob(c); err != nil {
			return err
		}
		if err := tx.PutNewJob(agenda.Job{ID: cobExpireJobID(id, c.TxID), Kind: jobCobExpire, Due: c.ExpiresAt(), Payload: chargeRef(id, c.TxID)}); err != nil {
			return err
		}
		return scheduleAutoPay(tx, sc, "cob-"+itoa(int64(id))+"-"+c.TxID, now, c.ExpiresAt(), pix.Payment{TxID: c.TxID})
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
	return view(ctx, s.store, func(tx storage.Tx) (pix.Cob, error) {
		c, err := tx.Cob(id, txid)
		return c, refs.NotFound(err, "cob %s not found", txid)
	})
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

// payCob pays an ATIVA cob: a PIX_IN transaction with the cob's txid, CONCLUIDA,
// and a RECEIVE webhook (spec "Events > Envelope V2").
func (s *Simulator) payCob(tx storage.Tx, ref pix.LocationRef, amount *pix.Cents, payer pix.Counterpart, from ledger.Pocket, e2e string, now time.Time) (pix.Transaction, error) {
	c, err := tx.Cob(ref.AccountID, ref.TxID)
	if err != nil {
		return pix.Transaction{}, refs.NotFound(err, "cob %s not found", ref.TxID)
	}
	if c.Status != pix.CobStatusAtiva || !now.Before(c.ExpiresAt()) {
		if c.Status == pix.CobStatusAtiva || c.Status == pix.CobStatusRemovidaPeloPSP {
			c.RefusedAt = now
			if err := tx.PutCob(c); err != nil {
				return pix.Transaction{}, err
			}
		}
		if c.Status == pix.CobStatusAtiva {
			return pix.Transaction{}, errChargeEnded("cob " + c.TxID + " expired at " + c.ExpiresAt().UTC().Format(timeFormat))
		}
		return pix.Transaction{}, errChargeEnded("cob " + c.TxID + " is " + string(c.Status) + ": it accepts no payment")
	}
	paid := c.Amount
	if amount != nil {
		if c.ChangeMode == pix.CobModalidadeFixed && *amount != c.Amount {
			return pix.Transaction{}, errWrongAmount(c.Amount, *amount)
		}
		paid = *amount
	}
	t, err := s.receivePix(tx, c.AccountID, from, paid, payer, e2e, c.TxID, c.Key, c.PayerRequest, now)
	if err != nil {
		return pix.Transaction{}, err
	}
	c.Status, c.TransactionID, c.EndToEndID, c.PaidAmount, c.PaidAt, c.EndedAt = pix.CobStatusConcluida, t.ID, e2e, paid, now, now
	if err := tx.DeleteJob(cobExpireJobID(c.AccountID, c.TxID)); err != nil {
		return pix.Transaction{}, err
	}
	if err := med.ScheduleForCharge(tx, c.Scenario, t, now); err != nil {
		return pix.Transaction{}, err
	}
	return t, tx.PutCob(c)
}
