package core

import (
	"context"

	"github.com/pixsandbox/pixsandbox/simulator/agenda"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/refs"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

// settingsOf returns an account's settings, or the defaults for its document.
func settingsOf(tx storage.Tx, a pix.Account) (pix.Settings, error) {
	st, ok, err := tx.Settings(a.ID)
	if err != nil || ok {
		return st, err
	}
	return pix.DefaultSettings(a.Document), nil
}

// AccountSettings returns an account's limits and fee (control plane).
func (s *Simulator) AccountSettings(ctx context.Context, id pix.AccountID) (pix.Settings, error) {
	var st pix.Settings
	err := s.store.View(ctx, func(tx storage.Tx) error {
		a, err := tx.Account(id)
		if err != nil {
			return refs.NotFound(err, "account %d not found", id)
		}
		st, err = settingsOf(tx, a)
		return err
	})
	return st, err
}

// SetAccountSettings replaces an account's limits and fee (control plane). A zero
// limit means no limit.
func (s *Simulator) SetAccountSettings(ctx context.Context, id pix.AccountID, st pix.Settings) (pix.Settings, error) {
	var vs []pix.Violation
	for _, f := range []struct {
		name string
		v    pix.Cents
	}{{"perTransactionLimit", st.Limits.PerTransaction}, {"dailyLimit", st.Limits.Daily}, {"nightLimit", st.Limits.Night}, {"fee", st.Fee}, {"cashInFee", st.CashInFee}} {
		if f.v < 0 || f.v > pix.MaxCents {
			vs = append(vs, pix.Violation{Field: f.name, Message: "must be between 0 and 9999999999.99"})
		}
	}
	if st.SplitSchedule != "" {
		if _, err := agenda.ParseSchedule(st.SplitSchedule); err != nil {
			vs = append(vs, pix.Violation{Field: "splitSchedule", Message: `must be a cron spec such as "CRON_TZ=America/Sao_Paulo 0 18 * * *"`})
		}
	}
	if len(vs) > 0 {
		return pix.Settings{}, pix.Invalid(pix.CodeInvalidRequest, vs...)
	}
	err := s.store.Update(ctx, func(tx storage.Tx) error {
		if _, err := tx.Account(id); err != nil {
			return refs.NotFound(err, "account %d not found", id)
		}
		return tx.PutSettings(id, st)
	})
	return st, err
}
