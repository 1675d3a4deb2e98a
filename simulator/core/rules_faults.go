//go:build faults

package core

import (
	"context"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/faults"
	"github.com/pixsandbox/pixsandbox/simulator/limits"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

func init() { bendRules = faultyRules }

// faultyRules bends the rules for the faults named in PIXSANDBOX_FAULTS, the
// wrong behaviours the self-check proves the conformance suite catches.
func faultyRules(r rules) rules {
	if faults.On(faults.FeeLeftBlocked) {
		r.feeOnSettle = false
	}
	if faults.On(faults.FeeNeverRefuses) {
		hold := r.holdAmount
		r.holdAmount = func(tx storage.Tx, t pix.Transaction) pix.Cents {
			if bal, err := tx.Balance(t.AccountID); err == nil && bal.Available < t.Hold() && bal.Available >= t.Amount {
				return t.Amount
			}
			return hold(tx, t)
		}
	}
	if faults.On(faults.NightEndsAt5) {
		night := r.isNight
		r.isNight = func(t time.Time) bool { return night(t) && t.In(pix.SaoPaulo).Hour() != 5 }
	}
	if faults.On(faults.DictNoIdempotency) {
		r.replayTransfers = false
	}
	if faults.On(faults.RefundWindowWholeDay) {
		refundable := r.refundable
		r.refundable = func(receivedAt, now time.Time) bool {
			return refundable(receivedAt, now.Add(-24*time.Hour+time.Second))
		}
	}
	if faults.On(faults.RefundOfCashOut) {
		kind := r.refundableKind
		r.refundableKind = func(t pix.Transaction) bool { return kind(t) || t.Kind == pix.TxCashOut }
	}
	if faults.On(faults.RefundTwoPerPIX) {
		r.maxRefunds = 2
	}
	if faults.On(faults.EndToEndLocalTime) {
		// São Paulo's wall clock written as if it were UTC.
		r.endToEndAt = func(now time.Time) time.Time {
			_, offset := now.In(pix.SaoPaulo).Zone()
			return now.Add(time.Duration(offset) * time.Second)
		}
	}
	if faults.On(faults.RefusedCashOutCounts) {
		r.afterRefusal = countRefused(limits.Totals{IsNight: r.isNight})
	}
	return r
}

// countRefused is the RefusedCashOutCounts fault's afterRefusal: a cash-out
// refused for insufficient balance is counted toward the totals anyway, in a
// store transaction of its own.
func countRefused(totals limits.Totals) func(context.Context, storage.Store, pix.Transaction, error) {
	return func(ctx context.Context, store storage.Store, t pix.Transaction, err error) {
		if pix.ErrorCode(err) != pix.CodePixInsufficientBalance {
			return
		}
		_ = store.Update(ctx, func(tx storage.Tx) error { return totals.Count(tx, t, 1) })
	}
}
