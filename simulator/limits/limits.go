// Package limits applies the Central Bank's limits to a payer's PIX out
// (cash-out and DICT transfer, whatever route starts it): per transaction,
// per São Paulo day and per night (20:00 to 06:00), the day and night counted
// in running totals kept in store counters, given back when a PIX out fails.
//
// Its slice of the store: the counters (storage.CounterTx).
package limits

import (
	"strconv"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

// Totals are the running totals of a payer's PIX out per São Paulo day and
// night, in store counters. IsNight says which instants count toward the night
// limit (pix.IsNight).
type Totals struct {
	IsNight func(time.Time) bool
}

// counters names the running totals a cash-out or DICT transfer counts against.
func (c Totals) counters(id pix.AccountID, t pix.Transaction) (day, night string) {
	day = "limit/" + strconv.FormatInt(int64(id), 10) + "/day/" + pix.DayKey(t.CreatedAt)
	if c.IsNight(t.CreatedAt) {
		night = "limit/" + strconv.FormatInt(int64(id), 10) + "/night/" + pix.NightKey(t.CreatedAt)
	}
	return day, night
}

// Counted reports whether a PIX out of kind k counts in the limit
// totals: the client's own payments, cash-out and DICT transfer (a failed one
// gives its amount back). Splits, paid by the account's schedule, do not.
func Counted(k pix.TxKind) bool { return k == pix.TxCashOut || k == pix.TxTransfer }

// Count adds (or, with sign -1, removes) a cash-out's amount to the
// running totals of its day and night.
func (c Totals) Count(tx storage.CounterTx, t pix.Transaction, sign pix.Cents) error {
	day, night := c.counters(t.AccountID, t)
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

// Check applies spec "Errors > Cash-out and cash-in codes": per-transaction,
// daily accumulated and night (20:00 to 06:00 São Paulo) limits. A refusal's
// message names the amount by its request field (amountField).
func (c Totals) Check(tx storage.CounterTx, st pix.Settings, t pix.Transaction) error {
	l := st.Limits
	field := amountField(t.Kind)
	if l.PerTransaction > 0 && t.Amount > l.PerTransaction {
		return refusal(pix.CodePixTransactionLimitExceeded, "%s %s is above the per-transaction limit %s", field, t.Amount, l.PerTransaction)
	}
	day, night := c.counters(t.AccountID, t)
	if l.Daily > 0 {
		used, err := tx.Counter(day)
		if err != nil {
			return err
		}
		if used+t.Amount > l.Daily {
			return refusal(pix.CodePixDailyLimitExceeded, "%s %s would take today's total to %s, above the daily limit %s", field, t.Amount, used+t.Amount, l.Daily)
		}
	}
	if l.Night > 0 && night != "" {
		used, err := tx.Counter(night)
		if err != nil {
			return err
		}
		if used+t.Amount > l.Night {
			return refusal(pix.CodePixNightLimitExceeded, "%s %s would take tonight's total to %s, above the night limit %s (20:00 to 06:00 America/Sao_Paulo)", field, t.Amount, used+t.Amount, l.Night)
		}
	}
	return nil
}

// amountField is the request field that carries the amount of a PIX out of
// kind k: payment.amount on POST /dict/pix (a DICT transfer), value on POST
// /api/pix/cash-out.
func amountField(k pix.TxKind) string {
	if k == pix.TxTransfer {
		return "payment.amount"
	}
	return "value"
}

// refusal is the 422 of a limit.
func refusal(c pix.Code, format string, args ...any) error {
	return pix.Errorf(pix.KindInvalid, c, format, args...)
}
