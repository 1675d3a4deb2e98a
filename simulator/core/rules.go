package core

import (
	"context"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/refund"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

// rules are the business rules of the core that the suite's self-check
// bends (simulator/faults), each a value the operations read instead of
// deciding in place. productionRules sets them, in this one place; a build
// with the faults tag replaces bendRules (rules_faults.go), which New applies.
type rules struct {
	// feeOnSettle: a settled PIX out takes its fee out of the account.
	feeOnSettle bool
	// holdAmount is what a pending PIX out holds (available → blocked).
	holdAmount func(tx storage.Tx, t pix.Transaction) pix.Cents
	// isNight reports whether an instant counts toward the night limit.
	isNight func(time.Time) bool
	// replayTransfers: a DICT transfer repeated with the same
	// x-idempotency-key replays the first instead of creating another.
	replayTransfers bool
	// refundable reports whether a PIX received at receivedAt may still be
	// refunded at now.
	refundable func(receivedAt, now time.Time) bool
	// refundableKind reports whether a transaction is a receipt a client may
	// refund.
	refundableKind func(pix.Transaction) bool
	// maxRefunds caps the refunds of one PIX; 0 is no cap (refund.Process).
	maxRefunds int
	// afterRefusal runs after a PIX out t was refused with err, outside the
	// refused store transaction: nothing in production.
	afterRefusal func(ctx context.Context, store storage.Store, t pix.Transaction, err error)
	// endToEndAt is the instant an end-to-end id drawn at now writes (as
	// its UTC minute): now.
	endToEndAt func(now time.Time) time.Time
}

// productionRules are the rules of the spec.
func productionRules() rules {
	return rules{
		feeOnSettle:     true,
		holdAmount:      func(_ storage.Tx, t pix.Transaction) pix.Cents { return t.Hold() },
		isNight:         pix.IsNight,
		replayTransfers: true,
		refundable:      pix.Refundable,
		refundableKind:  refund.IsReceipt,
		afterRefusal:    func(context.Context, storage.Store, pix.Transaction, error) {},
		endToEndAt:      func(now time.Time) time.Time { return now },
	}
}

// bendRules turns rules into those the simulator runs with: unchanged, except
// in a build with the faults tag.
var bendRules = func(r rules) rules { return r }
