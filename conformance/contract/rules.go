package contract

import (
	"slices"
	"time"
)

// Kind says whose mistake a finding reports.
type Kind string

const (
	// KindResponse: the upstream's answer breaks the contract.
	KindResponse Kind = "response"
	// KindState: an answer contradicts what earlier answers showed.
	KindState Kind = "state"
	// KindRequest: the client's request breaks the contract.
	KindRequest Kind = "request"
	// KindUpstream: the upstream could not be reached (or, for a webhook
	// delivery, the integrator's receiver).
	KindUpstream Kind = "upstream"
	// KindWebhook: a webhook delivery of the upstream breaks the contract
	// (its envelope, fields, signature) or contradicts the traffic (the
	// status the API showed, the webhook-id of an earlier delivery).
	KindWebhook Kind = "webhook"
)

// Rank orders kinds for a fail-on threshold: a run fails on findings whose
// kind ranks at or above the threshold's. Request findings rank lowest (the
// client's own mistakes), then state, then response, webhook and upstream
// (the implementation did not answer or deliver as the contract says, or at
// all: a delivery is the upstream's output as much as an answer is).
func (k Kind) Rank() int {
	switch k {
	case KindRequest:
		return 1
	case KindState:
		return 2
	case KindResponse, KindWebhook, KindUpstream:
		return 3
	}
	return 0
}

// Rule is one rule of the catalogue: a stable id, its kind, the contract
// section it rests on, and what it checks.
type Rule struct {
	ID      string `json:"id"`
	Kind    Kind   `json:"kind"`
	Section string `json:"section"`
	Summary string `json:"summary"`
	// QuietAccount: the rule holds only when nothing but the traffic seen
	// can change the account (no other client, no other route).
	QuietAccount bool `json:"quietAccount,omitempty"`
	// Notice: the finding says what was not judged; it never fails a run.
	Notice bool `json:"notice,omitempty"`
}

// Finding is one breach of a rule seen in one exchange, with its evidence.
type Finding struct {
	Rule    string `json:"rule"`
	Kind    Kind   `json:"kind"`
	Section string `json:"section"`
	Notice  bool   `json:"notice,omitempty"`
	// Exchange is the proxy's number of the exchange; RequestID the
	// upstream's X-Request-Id of it, when it sent one.
	Exchange  uint64 `json:"exchange"`
	RequestID string `json:"requestId,omitempty"`
	Method    string `json:"method"`
	Path      string `json:"path"`
	// Route is the route's template ("PUT /cob/{txid}"), empty off the table.
	Route    string `json:"route,omitempty"`
	Field    string `json:"field,omitempty"`
	Expected string `json:"expected,omitempty"`
	Seen     string `json:"seen,omitempty"`
	Message  string `json:"message"`
	// Related are the earlier exchanges a state finding rests on.
	Related []uint64 `json:"related,omitempty"`
	// Time is when the exchange ended (the proxy's wall clock).
	Time time.Time `json:"time"`
}

// The sections the rules cite most.
const (
	secWhat       = "What the service does"
	secNumbers    = "What the service does > Number conventions"
	secAuth       = "Authentication"
	secShapes     = "Errors > Shapes"
	secTokenCodes = "Errors > Token endpoint codes"
	secExtCodes   = "Errors > Cash-out and cash-in codes"
	secBacenErrs  = "Errors > Central Bank-compatible routes"
	secResources  = "Resources and their fields"
	secDict       = "Endpoints > POST /dict/pix"
	secCashOut    = "Endpoints > POST /api/pix/cash-out"
	secCashIn     = "Endpoints > POST /api/pix/cash-in"
	secCob        = "Endpoints > PUT /cob/{txid}"
	secRefund     = "Endpoints > PUT /pix/{e2eid}/devolucao/{id}"
	secRefundIn   = "Endpoints > POST /api/pix/refund-in/{id}"
	secCobStates  = "States and transitions > Immediate charge (cob)"
	secRefStates  = "States and transitions > Refund (devolucao)"
	secLimits     = "Limits"
	secListStates = "States and transitions (Cash-out transaction; Cash-in charge; Refund (devolucao)); Resources > Transaction listing item"
	secReads      = "Resources and their fields; States and transitions"
	secBalance    = "What the service does (balance effects of payments); Resources > Balance (Central Bank-compatible); Errors > Cash-out and cash-in codes (PIX_INSUFFICIENT_BALANCE: amount plus fee)"
)

// rules is the catalogue, in the order docs/proxy.md lists it.
var rules = []Rule{
	{ID: "resp.status-allowed", Kind: KindResponse, Section: "Endpoints (the route's errors); " + secAuth + " rule 6",
		Summary: "The status is one the route may answer: its success status (any 2xx where the contract does not show it), an error status listed for the route, or 401 on a protected route."},
	{ID: "resp.body-json", Kind: KindResponse, Section: secWhat,
		Summary: "A body the contract says is JSON is JSON (an answer of a contract route, success or error)."},
	{ID: "resp.error-shape", Kind: KindResponse, Section: secShapes,
		Summary: "An error body has its route family's shape: token endpoint, extended (cash-out, cash-in) or minimal (every other route), with statusCode equal to the status."},
	{ID: "resp.error-code-listed", Kind: KindResponse, Section: secTokenCodes + "; " + secExtCodes,
		Summary: "The code (or errorCode) of a token or extended error is one the contract lists for the route."},
	{ID: "resp.error-code-status", Kind: KindResponse, Section: secTokenCodes + "; " + secExtCodes,
		Summary: "A listed code comes with the status the contract gives it."},
	{ID: "resp.field-missing", Kind: KindResponse, Section: secResources,
		Summary: "A field the route's resource always has is present."},
	{ID: "resp.field-type", Kind: KindResponse, Section: secResources,
		Summary: "A field has the JSON type its resource table gives it."},
	{ID: "resp.money-format", Kind: KindResponse, Section: secNumbers,
		Summary: "Money is a JSON number with at most 2 decimals (standard routes, balances), or a string with exactly 2 decimals (Central Bank charge and refund routes), as each field says."},
	{ID: "resp.date-format", Kind: KindResponse, Section: secWhat,
		Summary: "A timestamp is ISO 8601."},
	{ID: "resp.id-format", Kind: KindResponse, Section: secResources,
		Summary: "An identifier has its format: UUID, end-to-end id (E or D + 31 alphanumerics), rtrId (32 alphanumerics), txid (26 to 35 alphanumerics), JWT."},
	{ID: "resp.value-allowed", Kind: KindResponse, Section: secResources,
		Summary: "An enumerated or fixed value is one the contract allows (statuses, token_type Bearer, expires_in 1800, loc.tipoCob cob, ...)."},
	{ID: "resp.echo", Kind: KindResponse, Section: secResources,
		Summary: "A field that echoes the request carries the request's value (externalId, txid, refund id)."},
	{ID: "resp.consistent", Kind: KindResponse, Section: secResources,
		Summary: "Fields the contract ties together agree: location = loc.location, movementType follows operationType, one balance item, revisao 0 at creation, qrCodeImage only when generateQrCode."},
	{ID: "resp.brcode", Kind: KindResponse, Section: "Resources > Cash-in charge; Resources > Immediate charge (cob)",
		Summary: "pixCode and location are EMV BR Codes (TLV structure, CRC-16/CCITT-FALSE)."},
	{ID: "resp.body-unjudged", Kind: KindResponse, Section: secWhat, Notice: true,
		Summary: "The answer's body was passed through without being judged: over 1 MiB, an encoding the proxy does not read, or beyond the proxy's capture budget."},

	{ID: "state.idempotent-replay", Kind: KindState, Section: secDict + ", rule 2",
		Summary: "POST /dict/pix accepted twice with the same x-idempotency-key (same account) returns the same transfer."},
	{ID: "state.external-id-duplicate", Kind: KindState, Section: secCashOut + "; " + secCashIn + "; " + secExtCodes + " (PIX_DUPLICATE_EXTERNAL_ID)",
		Summary: "A cash-out or cash-in is not accepted with an externalId the account already used on that route."},
	{ID: "state.refund-over-original", Kind: KindState, Section: secRefund + "; " + secLimits + " (refund sum)",
		Summary: "Accepted refunds of one PIX (both refund routes) never sum above its original amount, when the amount is known from the traffic."},
	{ID: "state.token-expired-accepted", Kind: KindState, Section: secAuth + ", rules 2 and 6; " + secLimits + " (token lifetime)",
		Summary: "A token is not accepted 1800 s or more after its iat, on the upstream's clock as its answers show it."},
	{ID: "state.cob-transition", Kind: KindState, Section: secCobStates,
		Summary: "A cob is created ATIVA and moves only from ATIVA to CONCLUIDA, REMOVIDA_PELO_USUARIO_RECEBEDOR or REMOVIDA_PELO_PSP; terminal states never change."},
	{ID: "state.refund-transition", Kind: KindState, Section: secRefStates,
		Summary: "A refund moves only from EM_PROCESSAMENTO to DEVOLVIDO or NAO_REALIZADO; terminal states never change."},
	{ID: "state.read-contradicts", Kind: KindState, Section: secReads,
		Summary: "A later answer about a transaction keeps what never changes: a listing item's externalId, operationType, movementType and, once ended, its amounts; a refund's valor, natureza and rtrId; a cob's revisao (never lower) and, within one revisao, valor.original and chave; a MED's endToEnd and original amount; a transfer's amount under one id."},
	{ID: "state.listing-transition", Kind: KindState, Section: secListStates,
		Summary: "A listing item once Confirmado or Error stays so: it never becomes Pendente again, nor the other ended status."},
	{ID: "state.balance-mismatch", Kind: KindState, Section: secBalance, QuietAccount: true,
		Summary: "With quiet accounts: a balance read (either route) against the account's previous one: blocked is what the account's PIX outs and refunds accepted since (and those pending) leave, held, out or given back, and available at least what they leave (a PIX received may only add)."},
	{ID: "state.balance-unjudged", Kind: KindState, Section: secBalance, QuietAccount: true, Notice: true,
		Summary: "A notice: a control-plane write whose effect on balances the traffic does not show (a MED, a reset, a workspace deleted) ended the balance rule for the run."},

	{ID: "req.authorization-missing", Kind: KindRequest, Section: secAuth + ", rule 1",
		Summary: "A protected route is called with Authorization: Bearer <token>."},
	{ID: "req.cert-header-missing", Kind: KindRequest, Section: "Endpoints > POST /api/auth/token; " + secAuth + ", rule 3",
		Summary: "The token request carries X-SSL-Client-Cert."},
	{ID: "req.idempotency-key-missing", Kind: KindRequest, Section: secDict + ", rule 1",
		Summary: "POST /dict/pix carries x-idempotency-key."},
	{ID: "req.idempotency-key-format", Kind: KindRequest, Section: secDict,
		Summary: "x-idempotency-key is a UUID v4."},
	{ID: "req.content-type", Kind: KindRequest, Section: secWhat + "; Endpoints > POST /api/auth/token",
		Summary: "A JSON body is sent with a JSON Content-Type (application/json or +json), or none."},
	{ID: "req.body-json", Kind: KindRequest, Section: secWhat,
		Summary: "A request body is JSON where the route takes one."},
	{ID: "req.field-missing", Kind: KindRequest, Section: "Endpoints (the route's body table)",
		Summary: "A required body field is present."},
	{ID: "req.field-type", Kind: KindRequest, Section: "Endpoints (the route's body table)",
		Summary: "A body field has the type the route's table gives it."},
	{ID: "req.money-format", Kind: KindRequest, Section: secNumbers,
		Summary: "Money is sent as the route wants it: a JSON number with at most 2 decimals and at least 0.01, or a string with exactly 2 decimals."},
	{ID: "req.value-allowed", Kind: KindRequest, Section: "Endpoints (the route's body table); " + secLimits,
		Summary: "A body value is allowed: enumerations (natureza ORIGINAL or RETIRADA only), lengths, ranges, formats (clientId UUID v4, documents)."},
	{ID: "req.path-format", Kind: KindRequest, Section: secCob + "; " + secRefund + "; " + secLimits,
		Summary: "A path parameter has its format: txid 26 to 35 alphanumerics, e2eid 32 alphanumerics, refund id 1 to 35 characters."},
	{ID: "req.query-value", Kind: KindRequest, Section: "Endpoints > GET /api/med; GET /api/pix/transactions/pix-key/{pixKey}; GET /api/transactions",
		Summary: "A query parameter is allowed: enumerations, ISO 8601 dates, page at least 1, page sizes within the route's bounds."},
	{ID: "req.body-unjudged", Kind: KindRequest, Section: secWhat, Notice: true,
		Summary: "The request's body was passed through without being judged: over 1 MiB, or beyond the proxy's capture budget."},

	{ID: "hook.envelope", Kind: KindWebhook, Section: secEvents + "; " + secEnvelopeV2 + "; " + secCashOutHook,
		Summary: "A delivery is a JSON object with a JSON Content-Type, in one of the payloads: the V2 envelope {type TRANSFER, RECEIVE or REFUND, data} or an event payload {event CashOut, CashIn, med_created, med_accepted or med_rejected}."},
	{ID: "hook.field-missing", Kind: KindWebhook, Section: secEnvelopeV2 + "; " + secCashOutHook,
		Summary: "A field the payload always has is present (errorCode and errorMessage of a V2 payload with status ERROR too)."},
	{ID: "hook.field-type", Kind: KindWebhook, Section: secEnvelopeV2 + "; " + secCashOutHook,
		Summary: "A payload field has the JSON type its table gives it."},
	{ID: "hook.money-format", Kind: KindWebhook, Section: secEnvelopeV2 + "; " + secNumbers,
		Summary: "V2 payment.amount is a string with exactly 2 decimals (a REFUND's may be a number with at most 2), refunds[].payment.amount and the flat payloads' amounts JSON numbers with at most 2 decimals."},
	{ID: "hook.date-format", Kind: KindWebhook, Section: secWhat,
		Summary: "A payload timestamp (processingDate, eventDate, the MED's dates) is ISO 8601."},
	{ID: "hook.id-format", Kind: KindWebhook, Section: secCashOutHook + "; " + ResMED,
		Summary: "An identifier has its format: transactionId numeric text, correlationId a UUID, a MED's endToEnd an end-to-end id."},
	{ID: "hook.status-allowed", Kind: KindWebhook, Section: secEnvelopeV2 + "; " + secCashOutHook + "; docs/spec-gaps.md G-28, G-49, G-51",
		Summary: "A payload's status is one the payload may carry (CashOut and CashIn CONFIRMED or ERROR; TRANSFER and RECEIVE LIQUIDATED or ERROR; REFUND REFUNDED or ERROR, its refunds LIQUIDATED or ERROR), and a MED's state fits its event."},
	{ID: "hook.value-allowed", Kind: KindWebhook, Section: secEnvelopeV2 + "; " + secCashOutHook,
		Summary: "A fixed or enumerated value is allowed: transactionType PIX, movementType, creditDebitType DEBIT, currency BRL, errorCode null when CONFIRMED and from the payload's table when ERROR."},
	{ID: "hook.signature", Kind: KindWebhook, Section: secSigning,
		Summary: "With --webhook-secret: the delivery carries webhook-id and webhook-signature, and a v1 signature matches HMAC-SHA256 of {webhook-id}.{webhook-timestamp}.{body}."},
	{ID: "hook.timestamp", Kind: KindWebhook, Section: secSigning,
		Summary: "With --webhook-secret: webhook-timestamp is Unix seconds within 5 minutes of the proxy's clock when the delivery arrives."},
	{ID: "hook.body-unjudged", Kind: KindWebhook, Section: secEvents, Notice: true,
		Summary: "The delivery's body was passed through without being judged: over 1 MiB, or beyond the proxy's capture budget."},
	{ID: "hook.unknown-transaction", Kind: KindWebhook, Section: secEvents + "; " + secEnvelopeV2, Notice: true,
		Summary: "A notice: the transaction a delivery names (a cash-out, charge, transfer, cob or refund the client starts) was shown by no answer through the proxy: created before it started, by another client, or forgotten by the bounded model."},
	{ID: "hook.status-inconsistent", Kind: KindWebhook, Section: "States and transitions; " + secEnvelopeV2 + "; " + secCashOutHook,
		Summary: "A delivery's status does not contradict what an earlier answer or delivery showed of its transaction (an ended transaction never changes), nor does a later read contradict the delivery."},
	{ID: "hook.id-changed-on-retry", Kind: KindWebhook, Section: "docs/spec-gaps.md G-30; Standard Webhooks 1.0.0",
		Summary: "A body delivered again (a retry or a resend) carries the webhook-id it first came with."},
	{ID: "upstream.unreachable", Kind: KindUpstream, Section: "-",
		Summary: "The upstream did not answer (connection refused, reset, timeout, TLS failure); the client got 502 in the minimal error shape."},
	{ID: "upstream.receiver-unreachable", Kind: KindUpstream, Section: "-",
		Summary: "The integrator's webhook receiver (--webhooks-to) did not answer a delivery; the upstream got 502 in the minimal error shape."},
}

// Rules returns the catalogue of rules.
func Rules() []Rule { return slices.Clone(rules) }

// RuleByID returns the rule with id.
func RuleByID(id string) (Rule, bool) {
	i := slices.IndexFunc(rules, func(r Rule) bool { return r.ID == id })
	if i < 0 {
		return Rule{}, false
	}
	return rules[i], true
}

// NewFinding returns a finding of rule id about ex; section, when not empty,
// replaces the rule's own (a more precise heading). An id not in the
// catalogue panics: a typo in the rules, which their tests catch.
func NewFinding(id string, ex *Exchange, section string) Finding {
	r, ok := RuleByID(id)
	if !ok {
		panic("contract: unknown rule " + id)
	}
	if section == "" {
		section = r.Section
	}
	f := Finding{Rule: id, Kind: r.Kind, Section: section, Notice: r.Notice}
	if ex != nil {
		f.Exchange, f.RequestID, f.Method, f.Path, f.Time = ex.Seq, ex.RequestID, ex.Method, ex.Path, ex.End
		if rt, _ := ex.Route(); rt != nil {
			f.Route = rt.String()
		}
	}
	return f
}

// UpstreamFinding is the finding of an exchange the upstream did not
// answer: the client got 502 from the proxy.
func UpstreamFinding(ex *Exchange, upstream string, err error) Finding {
	f := NewFinding("upstream.unreachable", ex, "")
	f.Field, f.Expected, f.Seen = "upstream", "an answer from "+upstream, err.Error()
	f.Message = "upstream " + upstream + " did not answer: " + err.Error() + "; the client got 502"
	return f
}
