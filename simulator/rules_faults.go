//go:build faults

package simulator

import (
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/faults"
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
	return r
}
