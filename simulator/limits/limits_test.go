package limits_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/limits"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

// A PIX out counts toward the day's and the night's totals, a failed one
// gives its amount back, and the limits refuse what would go above them with
// their codes; an instant IsNight rejects counts toward the day only.
func TestTotals(t *testing.T) {
	store := simulatortest.New(t, simulatortest.Options{}).Store
	night := true
	totals := limits.Totals{IsNight: func(time.Time) bool { return night }}
	st := pix.Settings{Limits: pix.Limits{PerTransaction: 50_00, Daily: 80_00, Night: 60_00}}
	at := time.Date(2026, 3, 2, 23, 0, 0, 0, pix.SaoPaulo)
	out := func(amount pix.Cents) pix.Transaction {
		return pix.Transaction{ID: 1, AccountID: 7, Kind: pix.TxCashOut, Amount: amount, CreatedAt: at}
	}
	run := func(fn func(tx storage.Tx) error) error { return store.Update(context.Background(), fn) }
	check := func(amount pix.Cents) pix.Code {
		return pix.ErrorCode(run(func(tx storage.Tx) error { return totals.Check(tx, st, out(amount)) }))
	}
	count := func(amount, sign pix.Cents) {
		if err := run(func(tx storage.Tx) error { return totals.Count(tx, out(amount), sign) }); err != nil {
			t.Fatal(err)
		}
	}
	if c := check(50_01); c != pix.CodePixTransactionLimitExceeded {
		t.Fatalf("above the per-transaction limit: %q", c)
	}
	count(40_00, 1)
	if c := check(20_01); c != pix.CodePixNightLimitExceeded {
		t.Fatalf("above the night limit: %q", c)
	}
	count(40_00, -1) // failed: given back
	if c := check(50_00); c != "" {
		t.Fatalf("within the limits after a give-back: %q", c)
	}
	night = false
	count(50_00, 1)
	if c := check(30_01); c != pix.CodePixDailyLimitExceeded {
		t.Fatalf("above the daily limit: %q", c)
	}
	if !limits.Counted(pix.TxTransfer) || limits.Counted(pix.TxSplit) {
		t.Fatal("transfers count and splits do not")
	}
}

// A refusal names the amount by the field of the route that carries it:
// payment.amount on POST /dict/pix, value on POST /api/pix/cash-out.
func TestCheck_MessageNamesTheAmountField(t *testing.T) {
	store := simulatortest.New(t, simulatortest.Options{}).Store
	totals := limits.Totals{IsNight: func(time.Time) bool { return true }}
	at := time.Date(2026, 3, 2, 23, 0, 0, 0, pix.SaoPaulo)
	for _, kind := range []struct {
		kind  pix.TxKind
		field string
	}{{pix.TxTransfer, "payment.amount"}, {pix.TxCashOut, "value"}} {
		for _, l := range []struct {
			limits pix.Limits
			code   pix.Code
			want   string
		}{
			{pix.Limits{PerTransaction: 50_00}, pix.CodePixTransactionLimitExceeded, " 60.00 is above the per-transaction limit 50.00"},
			{pix.Limits{Daily: 50_00}, pix.CodePixDailyLimitExceeded, " 60.00 would take today's total to 60.00, above the daily limit 50.00"},
			{pix.Limits{Night: 50_00}, pix.CodePixNightLimitExceeded, " 60.00 would take tonight's total to 60.00, above the night limit 50.00 (20:00 to 06:00 America/Sao_Paulo)"},
		} {
			out := pix.Transaction{ID: 1, AccountID: 7, Kind: kind.kind, Amount: 60_00, CreatedAt: at}
			err := store.View(context.Background(), func(tx storage.Tx) error {
				return totals.Check(tx, pix.Settings{Limits: l.limits}, out)
			})
			var pe *pix.Error
			if !errors.As(err, &pe) || pe.Code != l.code || pe.Message != kind.field+l.want {
				t.Errorf("%s over %+v: %v, want %s %q", kind.kind, l.limits, err, l.code, kind.field+l.want)
			}
		}
	}
}
