package invariants

import (
	"fmt"

	"github.com/pixsandbox/pixsandbox/simulator/ledger"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// effect is a change of an account's two pockets.
type effect struct{ Available, Blocked pix.Cents }

func (e *effect) add(o effect) { e.Available += o.Available; e.Blocked += o.Blocked }

func (e effect) String() string {
	return fmt.Sprintf("available %+d blocked %+d", e.Available, e.Blocked)
}

// expectedEffect is what a transaction of the account must have done to its
// balance, by kind and status (the movements of the core's cashout.go,
// transfer.go, splits.go, settle.go, payment.go, cob.go and cashin.go, and of
// simulator/refund):
//
//   - a PIX out (cash-out, DICT transfer, split) holds amount + fee while
//     PENDING (available → blocked), takes it out of the account when CONFIRMED,
//     and leaves nothing when ERROR (released, or never held);
//   - a PIX received, or a cash-in charge once CONFIRMED, credits amount − fee;
//     a charge PENDING or expired (ERROR) moves nothing;
//   - a refund of a received PIX (REFUND_IN) holds its amount while PENDING, takes
//     it out when CONFIRMED (DEVOLVIDO), leaves nothing when ERROR;
//   - a refund received by a sandbox payer (REFUND_OUT) credits its amount.
func expectedEffect(t pix.Transaction) (effect, bool) {
	switch t.Kind {
	case pix.TxCashOut, pix.TxTransfer, pix.TxSplit:
		return heldEffect(t.Status, t.Hold())
	case pix.TxPixIn, pix.TxCashIn:
		switch t.Status {
		case pix.TxStatusConfirmed:
			return effect{Available: t.Amount - t.Fee}, true
		case pix.TxStatusPending, pix.TxStatusError:
			return effect{}, t.Kind == pix.TxCashIn
		}
	case pix.TxRefundIn:
		return heldEffect(t.Status, t.Amount)
	case pix.TxRefundOut:
		if t.Status == pix.TxStatusConfirmed {
			return effect{Available: t.Amount}, true
		}
	}
	return effect{}, false
}

// heldEffect is the effect of money held while pending, taken out when
// confirmed and released on error.
func heldEffect(st pix.TxStatus, held pix.Cents) (effect, bool) {
	switch st {
	case pix.TxStatusPending:
		return effect{-held, held}, true
	case pix.TxStatusConfirmed:
		return effect{Available: -held}, true
	case pix.TxStatusError:
		return effect{}, true
	}
	return effect{}, false
}

// entrySide is one pocket of a ledger entry and the sign of its change.
type entrySide struct {
	p    ledger.Pocket
	sign pix.Cents
}

// entrySides returns e's source (−) and destination (+).
func entrySides(e ledger.Entry) [2]entrySide { return [2]entrySide{{e.From, -1}, {e.To, 1}} }

// sideEffect is what one side of entry e does to its pocket's account.
func sideEffect(side entrySide, e ledger.Entry) effect {
	if side.p.Bucket == ledger.Available {
		return effect{Available: side.sign * e.Amount}
	}
	return effect{Blocked: side.sign * e.Amount}
}

// localEffect is what entry e does to account id's pockets.
func localEffect(id pix.AccountID, e ledger.Entry) effect {
	var out effect
	for _, side := range entrySides(e) {
		if side.p.Bucket == ledger.World || side.p.Account != id {
			continue
		}
		out.add(sideEffect(side, e))
	}
	return out
}
