package simulator

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

// limitCounters names the running totals a cash-out or DICT transfer counts against.
func (r rules) limitCounters(id pix.AccountID, t pix.Transaction) (day, night string) {
	day = "limit/" + itoa(int64(id)) + "/day/" + pix.DayKey(t.CreatedAt)
	if r.isNight(t.CreatedAt) {
		night = "limit/" + itoa(int64(id)) + "/night/" + pix.NightKey(t.CreatedAt)
	}
	return day, night
}

// countsTowardLimits reports whether a PIX out of kind k counts in the limit
// totals: the client's own payments, cash-out and DICT transfer (a failed one
// gives its amount back). Splits, paid by the account's schedule, do not.
func countsTowardLimits(k pix.TxKind) bool { return k == pix.TxCashOut || k == pix.TxTransfer }

// countLimits adds (or, with sign -1, removes) a cash-out's amount to the
// running totals of its day and night.
func (r rules) countLimits(tx storage.Tx, t pix.Transaction, sign pix.Cents) error {
	day, night := r.limitCounters(t.AccountID, t)
	for _, name := range []string{day, night} {
		if name == "" {
			continue
		}
		v, err := tx.Counter(name)
		if err != nil {
			return err
		}
		if err := tx.PutCounter(name, v+sign*t.Amount); err != nil {
			return err
		}
	}
	return nil
}

// checkLimits applies spec "Errors > Cash-out and cash-in codes": per-transaction,
// daily accumulated and night (20:00 to 06:00 São Paulo) limits.
func (r rules) checkLimits(tx storage.Tx, st pix.Settings, t pix.Transaction) error {
	l := st.Limits
	if l.PerTransaction > 0 && t.Amount > l.PerTransaction {
		return limitError(pix.CodePixTransactionLimitExceeded, "value %s is above the per-transaction limit %s", t.Amount, l.PerTransaction)
	}
	day, night := r.limitCounters(t.AccountID, t)
	if l.Daily > 0 {
		used, err := tx.Counter(day)
		if err != nil {
			return err
		}
		if used+t.Amount > l.Daily {
			return limitError(pix.CodePixDailyLimitExceeded, "value %s would take today's total to %s, above the daily limit %s", t.Amount, used+t.Amount, l.Daily)
		}
	}
	if l.Night > 0 && night != "" {
		used, err := tx.Counter(night)
		if err != nil {
			return err
		}
		if used+t.Amount > l.Night {
			return limitError(pix.CodePixNightLimitExceeded, "value %s would take tonight's total to %s, above the night limit %s (20:00 to 06:00 America/Sao_Paulo)", t.Amount, used+t.Amount, l.Night)
		}
	}
	return nil
}

func limitError(c pix.Code, format string, args ...any) error {
	return pix.Errorf(pix.KindInvalid, c, format, args...)
}
