// Package faults names deliberately broken behaviours, used only to prove
// that the conformance suite catches a wrong implementation (the self-check in
// cmd/pixsandbox/selfcheck_test.go). It is not simulator/netfault, the
// network faults (delays, dropped connections, gateway pages) any build
// serves on request through X-Sandbox-Fault and /_sandbox/faults. Built without the "faults" tag, On is a
// constant false; with it, the faults named in PIXSANDBOX_FAULTS
// (comma-separated) are on.
//
// In the core, simulator/webhook and simulator/auth the production code does
// not ask On: each rule a fault bends is a value the code reads (the core's
// rules, simulator/core/rules.go; simulator/webhook's attemptEventID, payment
// amounts, success and DefaultPolicy; simulator/auth's expiryLeeway), and a
// file built only with the tag (simulator/core/rules_faults.go,
// simulator/webhook/faults.go, simulator/auth/faults.go) replaces it when its
// fault is on.
package faults

// The faults, each a small wrong behaviour a real implementation could have.
const (
	// CobStatus200: PUT /cob/{txid} answers 200 instead of 201 (a wrong status code).
	CobStatus200 = "cob-status-200"
	// CashOutNoGenerateTime: the cash-out response lacks generateTime (a missing field).
	CashOutNoGenerateTime = "cashout-no-generate-time"
	// FeeLeftBlocked: a settled PIX out leaves its fee blocked instead of
	// taking it out of the account (a balance effect skipped).
	FeeLeftBlocked = "fee-left-blocked"
	// TokenLifetime1799: the token endpoint says expires_in 1799 (an off-by-one).
	TokenLifetime1799 = "token-expires-in-1799"
	// WebhookNewIDOnRetry: a retried webhook delivery gets a new webhook-id.
	WebhookNewIDOnRetry = "webhook-new-id-on-retry"
	// DictNoIdempotency: POST /dict/pix repeated with the same x-idempotency-key
	// creates a second transfer.
	DictNoIdempotency = "dict-no-idempotency"
	// NightEndsAt5: the night limit's window ends at 05:00 in São Paulo
	// instead of 06:00 (a time window one hour short at one edge).
	NightEndsAt5 = "night-ends-at-5"
	// GrossIgnoresBlocked: the standard balance's grossBalance is the
	// available balance, without blocked (a mapping right only when blocked is 0).
	GrossIgnoresBlocked = "balance-gross-ignores-blocked"
	// TransferAmountTrimmed: the TRANSFER webhook's payment.amount drops
	// trailing zeros ("10.5" for 10.50, "12" for 12.00).
	TransferAmountTrimmed = "transfer-amount-trimmed"
	// ReceiveAmountTrimmed: the RECEIVE webhook's payment.amount drops
	// trailing zeros ("10.5" for 10.50, "12" for 12.00).
	ReceiveAmountTrimmed = "receive-amount-trimmed"
	// RefundOfCashOut: a settled cash-out can be refunded as if it were a
	// received PIX (a refusal right for one kind of transaction only).
	RefundOfCashOut = "refund-of-cash-out"
	// FeeNeverRefuses: a cash-out the available balance covers without its
	// fee is accepted, holding the value alone (a fee that never decides).
	FeeNeverRefuses = "fee-never-refuses"
	// KeyListingUncapped: the listing by PIX key returns more than 1000
	// results in all (a cap never reached by the other checks).
	KeyListingUncapped = "key-listing-uncapped"
	// ListingWindowDayPrecision: the listings measure the 31-day interval to
	// the start of endDate's day even when endDate is a date-time, so 31 days
	// and 1 second pass (a window edge read at day precision).
	ListingWindowDayPrecision = "listing-window-day-precision"
	// RefundWindowWholeDay: refunds are accepted through the whole of the
	// 89th day after receipt, not up to 89 × 24 hours (a window edge a day wide).
	RefundWindowWholeDay = "refund-window-whole-day"

	// The faults below each hide where a check looks at one side of a rule
	// only: a refusal judged by its status, the state a refusal leaves, the
	// tail of a schedule, an answer outside the happy classes, a limit at its
	// exact value, a field's value rather than its format.

	// RefundTwoPerPIX: a PIX takes at most two refunds; a third is refused 400
	// as exceeding the refundable balance, whatever is left (a refusal for
	// another reason with the same status and message).
	RefundTwoPerPIX = "refund-two-per-pix"
	// RefusedCashOutCounts: a cash-out refused for insufficient balance still
	// adds its value to the daily and night totals (state a refusal leaves).
	RefusedCashOutCounts = "refused-cash-out-counts"
	// WebhookRetriesOneShort: a failing delivery ends after its sixth attempt,
	// one short of the schedule's seventh (the tail of a schedule).
	WebhookRetriesOneShort = "webhook-retries-one-short"
	// WebhookRedirectDelivered: a receiver's 3xx counts as delivered, so the
	// delivery is never retried (an answer outside 2xx and 5xx).
	WebhookRedirectDelivered = "webhook-redirect-delivered"
	// TokenValidAtExp: a token is still accepted at exactly 1800 s after
	// issue, its exp, and refused only a second later (a limit off at its
	// exact value).
	TokenValidAtExp = "token-valid-at-exp"
	// EndToEndLocalTime: end-to-end ids carry the minute in São Paulo time
	// instead of UTC (a well-formed field with a wrong value).
	EndToEndLocalTime = "end-to-end-local-time"
)

// All lists every fault.
var All = []string{CobStatus200, CashOutNoGenerateTime, FeeLeftBlocked, TokenLifetime1799, WebhookNewIDOnRetry, DictNoIdempotency,
	NightEndsAt5, GrossIgnoresBlocked, TransferAmountTrimmed, ReceiveAmountTrimmed, RefundOfCashOut, FeeNeverRefuses,
	KeyListingUncapped, ListingWindowDayPrecision, RefundWindowWholeDay,
	RefundTwoPerPIX, RefusedCashOutCounts, WebhookRetriesOneShort, WebhookRedirectDelivered, TokenValidAtExp,
	EndToEndLocalTime}

// On reports whether fault f is on.
func On(f string) bool { return enabled && active(f) }
