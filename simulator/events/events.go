// Package events makes the sandbox produce each of its webhooks on request
// (POST /_sandbox/events/{event}, pixsandbox trigger EVENT): one recipe per
// event, a real transaction made through the core's public operations — the
// ones the PIX API and the control plane call — so that its webhook goes out
// the way any other does, to every target and listener of the account
// registered for its type.
//
// A recipe ends what it starts at once, through the control plane's own
// means (a charge paid as a payer's bank would, a pending transaction settled
// or failed now, a MED analysed now), so it leaves the simulation clock alone;
// the one exception, cashin.expired, moves the clock by the charge's
// expiration, and says so (Result.ClockMoved, Event.World). Gap G-70
// (docs/spec-gaps.md) records the choices.
package events

import (
	"slices"
	"strings"

	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// Event is one webhook the sandbox can be asked to produce.
type Event struct {
	// Name is lower case and dotted (resource.outcome), so it never reads as
	// an X-Sandbox-Scenario name, which has no dot.
	Name string
	// EventType is the registration event type the webhook goes to (one of
	// webhook.EventTypes).
	EventType string
	// Kinds are the payload kinds the webhook may have (webhook.Event.Kind),
	// the usual one first: a cash-in charge's is RECEIVE, or CashIn when the
	// account's settings ask for it (Gap G-38).
	Kinds []string
	// Status is the status the payload of the first kind carries
	// (CONFIRMED, LIQUIDATED, ERROR, …).
	Status string
	// Summary says in one line what the webhook announces.
	Summary string
	// World says what the recipe does to the world: what it creates, the
	// other webhooks it sends on the way, and any clock move.
	World string
	// Uses lists the parameters the recipe reads besides accountId:
	// "amount", "key", "errorCode".
	Uses []string
	// MovesClock says the recipe moves the simulation clock.
	MovesClock bool

	run func(r *run) error
}

// catalogue is every event, grouped by registration event type in the
// contract's order.
var catalogue = []Event{
	{Name: "pixin.received", EventType: webhook.EventCashIn, Kinds: []string{"RECEIVE"}, Status: "LIQUIDATED",
		Summary: "a PIX received by key, no charge",
		World:   "a payer outside the sandbox sends AMOUNT to the account's key (KEY, default its first) through POST /_sandbox/pix-in",
		Uses:    []string{"amount", "key"}, run: (*run).pixIn},
	{Name: "cob.paid", EventType: webhook.EventCashIn, Kinds: []string{"RECEIVE"}, Status: "LIQUIDATED",
		Summary: "an immediate charge (cob) paid",
		World:   "the account creates a cob of AMOUNT (PUT /cob/{txid}, a random txid) and a payer outside the sandbox pays it (POST /_sandbox/payments): the cob is CONCLUIDA",
		Uses:    []string{"amount"}, run: (*run).cobPaid},
	{Name: "cashin.paid", EventType: webhook.EventCashIn, Kinds: []string{"RECEIVE", "CashIn"}, Status: "LIQUIDATED",
		Summary: "a cash-in charge paid (CashIn CONFIRMED by the account's settings)",
		World:   "the account creates a cash-in charge of AMOUNT (POST /api/pix/cash-in) and a payer outside the sandbox pays it (POST /_sandbox/payments)",
		Uses:    []string{"amount"}, run: (*run).cashInPaid},
	{Name: "cashin.expired", EventType: webhook.EventCashIn, Kinds: []string{"RECEIVE", "CashIn"}, Status: "ERROR",
		Summary: "a cash-in charge expired unpaid, PAYMENT_EXPIRED (CashIn ERROR by the account's settings)",
		World: "the account creates a cash-in charge of AMOUNT with the shortest expiration it allows (30 s unless its settings say more), " +
			"then the simulation clock moves forward by that expiration, running every job that falls due on the way (the only event that moves the clock)",
		Uses: []string{"amount"}, MovesClock: true, run: (*run).cashInExpired},
	{Name: "cashout.confirmed", EventType: webhook.EventCashOut, Kinds: []string{"CashOut"}, Status: "CONFIRMED",
		Summary: "a cash-out settled",
		World:   "the account sends AMOUNT to KEY (POST /api/pix/cash-out), settled at once (POST /_sandbox/transactions/{id}/settle): AMOUNT plus the account's fee leave it",
		Uses:    []string{"amount", "key"}, run: (*run).cashOutConfirmed},
	{Name: "cashout.failed", EventType: webhook.EventCashOut, Kinds: []string{"CashOut"}, Status: "ERROR",
		Summary: "a cash-out failed with an errorCode (default ORDER_REJECTED)",
		World:   "the account sends AMOUNT to KEY (POST /api/pix/cash-out), failed at once with ERROR_CODE (POST /_sandbox/transactions/{id}/fail): the hold goes back",
		Uses:    []string{"amount", "key", "errorCode"}, run: (*run).cashOutFailed},
	{Name: "transfer.liquidated", EventType: webhook.EventCashOut, Kinds: []string{"TRANSFER"}, Status: "LIQUIDATED",
		Summary: "a PIX to a DICT key settled",
		World:   "the account sends AMOUNT to KEY (POST /dict/pix), settled at once (POST /_sandbox/transactions/{id}/settle); a key of a sandbox account also sends that account a RECEIVE",
		Uses:    []string{"amount", "key"}, run: (*run).transferLiquidated},
	{Name: "transfer.failed", EventType: webhook.EventCashOut, Kinds: []string{"TRANSFER"}, Status: "ERROR",
		Summary: "a PIX to a DICT key failed with an errorCode (default ORDER_REJECTED)",
		World:   "the account sends AMOUNT to KEY (POST /dict/pix), failed at once with ERROR_CODE (POST /_sandbox/transactions/{id}/fail): the hold goes back",
		Uses:    []string{"amount", "key", "errorCode"}, run: (*run).transferFailed},
	{Name: "refundin.refunded", EventType: webhook.EventRefundIn, Kinds: []string{"REFUND"}, Status: "REFUNDED",
		Summary: "a refund of a PIX received, settled (DEVOLVIDO)",
		World: "a payer outside the sandbox sends AMOUNT to the account's key (a RECEIVE too), the account refunds it in full (POST /api/pix/refund-in/{id}), " +
			"settled at once (POST /_sandbox/transactions/{id}/settle)",
		Uses: []string{"amount", "key"}, run: (*run).refundInRefunded},
	{Name: "refundin.failed", EventType: webhook.EventRefundIn, Kinds: []string{"REFUND"}, Status: "ERROR",
		Summary: "a refund of a PIX received, failed (NAO_REALIZADO)",
		World: "a payer outside the sandbox sends AMOUNT to the account's key (a RECEIVE too), the account refunds it in full (POST /api/pix/refund-in/{id}), " +
			"failed at once with ERROR_CODE (POST /_sandbox/transactions/{id}/fail): the hold goes back",
		Uses: []string{"amount", "key", "errorCode"}, run: (*run).refundInFailed},
	{Name: "refundout.received", EventType: webhook.EventRefundOut, Kinds: []string{"REFUND"}, Status: "REFUNDED",
		Summary: "a refund received of a PIX the account sent",
		World: "the account sends AMOUNT to another sandbox account's key (KEY, default the first key of the first other account; POST /dict/pix, settled at once: " +
			"a TRANSFER to the account, a RECEIVE to the other), which refunds it in full, settled at once (a REFUND to the other account's refund_in targets)",
		Uses: []string{"amount", "key"}, run: (*run).refundOutReceived},
	{Name: "med.created", EventType: webhook.EventMedCreated, Kinds: []string{"MED"}, Status: "OPEN",
		Summary: "a MED opened against a PIX received",
		World: "a payer outside the sandbox sends AMOUNT to the account's key (a RECEIVE too), then its bank opens a MED against it (POST /_sandbox/med), " +
			"which follows its timeline on the clock from then on (acknowledged after 1 h, analysed after 7 days)",
		Uses: []string{"amount", "key"}, run: (*run).medCreated},
	{Name: "med.accepted", EventType: webhook.EventMedAccepted, Kinds: []string{"MED"}, Status: "ANALYZED",
		Summary: "a MED approved (analysisResult APPROVED)",
		World: "as med.created (a med_created too), then the MED is approved at once (POST /_sandbox/med/{id}/analyze): the contested amount is blocked " +
			"(as much of it as is available), and its refund follows after the MED refund deadline on the clock (24 h by default)",
		Uses: []string{"amount", "key"}, run: (*run).medAccepted},
	{Name: "med.rejected", EventType: webhook.EventMedRejected, Kinds: []string{"MED"}, Status: "ANALYZED",
		Summary: "a MED rejected (analysisResult REJECTED)",
		World:   "as med.created (a med_created too), then the MED is rejected at once (POST /_sandbox/med/{id}/analyze): nothing stays blocked",
		Uses:    []string{"amount", "key"}, run: (*run).medRejected},
	{Name: "med.refunded", EventType: webhook.EventRefundIn, Kinds: []string{"REFUND"}, Status: "REFUNDED",
		Summary: "the refund of an approved MED, settled (natureza MED_FRAUDE)",
		World: "as med.accepted (med_created and med_accepted too), then the MED's refund is made at once (POST /_sandbox/med/{id}/refund) " +
			"and settled at once (POST /_sandbox/transactions/{id}/settle): AMOUNT goes back to the payer",
		Uses: []string{"amount", "key"}, run: (*run).medRefunded},
}

// All returns every event, grouped by registration event type.
func All() []Event { return slices.Clone(catalogue) }

// Lookup finds an event by name (case-insensitive).
func Lookup(name string) (Event, bool) {
	for _, e := range catalogue {
		if strings.EqualFold(e.Name, name) {
			return e, true
		}
	}
	return Event{}, false
}

// Names lists every event's name, in catalogue order.
func Names() []string {
	out := make([]string, len(catalogue))
	for i, e := range catalogue {
		out[i] = e.Name
	}
	return out
}

// IsEventName reports whether arg names an event rather than a scenario: it
// has a dot, which no X-Sandbox-Scenario name has.
func IsEventName(arg string) bool { return strings.Contains(arg, ".") }
