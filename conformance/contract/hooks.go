package contract

import (
	"cmp"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
)

// Webhook deliveries. The proxy, as the receiver of the upstream's
// deliveries, gives each one as an Exchange: its request is the delivery
// (method, path, headers, body, byte for byte), its answer the integrator's
// (Status 0 when the integrator did not answer), RequestID its webhook-id.
// JudgeDelivery applies the payload and signing rules to one delivery; Hooks
// ties deliveries to the transactions the API's answers showed.

const (
	secEvents      = "Events"
	secEnvelopeV2  = "Events > Envelope V2"
	secCashOutHook = "Resources > Cash-out webhook payload"
	secCashInHook  = "Events > Registration event types (cash_in); docs/spec-gaps.md G-38"
	secMEDHook     = "Events > Registration event types (med_*); docs/spec-gaps.md G-51"
	secV2Error     = secEnvelopeV2 + "; docs/spec-gaps.md G-28, G-38, G-49 (status ERROR)"
	secSigning     = "Events (signing: not shown); docs/spec-gaps.md G-30; Standard Webhooks 1.0.0"
	// HookTolerance is how far a webhook-timestamp may be from the proxy's
	// clock when the delivery arrives (the Standard Webhooks libraries' 5 min).
	HookTolerance = 5 * time.Minute
	// HookSecretPrefix prefixes a Standard Webhooks signing secret.
	HookSecretPrefix = "whsec_"
)

// The payload tables: the contract's CashOut payload and V2 envelope, and
// what docs/spec-gaps.md fixes for the payloads the contract does not show.

var hookCounterpart = []field{
	{path: "counterpart", typ: tObject, required: true},
	{path: "counterpart.name", typ: tString, required: true},
	{path: "counterpart.document", typ: tString, required: true},
	{path: "counterpart.bank", typ: tObject, required: true},
	{path: "counterpart.bank.bankISPB", typ: tString, required: true},
	{path: "counterpart.bank.bankName", typ: tString, required: true},
	{path: "counterpart.bank.bankCode", typ: tString, required: true},
	{path: "counterpart.bank.accountBranch", typ: tString | tNull, required: true},
	{path: "counterpart.bank.accountNumber", typ: tString | tNull, required: true},
}

// movementHook is what the CashOut payload and the CashIn payload (G-38,
// which mirrors it) share.
func movementHook(sec, movement string, extra ...field) []field {
	rows := []field{
		{path: "status", typ: tString, required: true, enum: []string{"CONFIRMED", "ERROR"}},
		{path: "transactionType", typ: tString, required: true, enum: []string{"PIX"}},
		{path: "movementType", typ: tString, required: true, enum: []string{movement}},
		{path: "transactionId", typ: tString, required: true},
		{path: "externalId", typ: tString, required: true},
		{path: "feeAmount", typ: tNumber, required: true, format: fMoneyNumber},
		{path: "originalAmount", typ: tNumber, required: true, format: fMoneyNumber},
		{path: "finalAmount", typ: tNumber, required: true, format: fMoneyNumber},
		{path: "processingDate", typ: tString, required: true, format: fDate},
		{path: "errorCode", typ: tString | tNull, required: true},
		{path: "errorMessage", typ: tString | tNull, required: true},
		{path: "metadata", typ: tObject, required: true},
	}
	return section(sec, append(append(rows, extra...), hookCounterpart...))
}

// v2Payment is a V2 payment: "amount string" in the TRANSFER and RECEIVE rows.
func v2Payment(amount jtype, fm format) []field {
	return []field{
		{path: "data.payment", typ: tObject, required: true},
		{path: "data.payment.amount", typ: amount, required: true, format: fm},
		{path: "data.payment.currency", typ: tString, required: true, enum: []string{"BRL"}},
	}
}

// v2Base is what the three V2 rows share: id, txId, status.
func v2Base(statuses ...string) []field {
	return []field{
		{path: "data", typ: tObject, required: true},
		{path: "data.id", typ: tNumber, required: true},
		{path: "data.txId", typ: tString | tNull, required: true},
		{path: "data.status", typ: tString, required: true, enum: statuses},
	}
}

var hookShapes = map[string]hookShape{
	"CashOut": {sec: secCashOutHook, rows: movementHook(secCashOutHook, "DEBIT",
		field{path: "endToEndId", typ: tString, required: true}, field{path: "pixKey", typ: tString, required: true})},
	"CashIn": {sec: secCashInHook, rows: movementHook(secCashInHook, "CREDIT",
		field{path: "correlationId", typ: tString, required: true, format: fUUID}, field{path: "endToEndId", typ: tString | tNull, required: true})},
	"TRANSFER": {sec: secEnvelopeV2, rows: section(secEnvelopeV2+" (TRANSFER)", slices.Concat(v2Base("LIQUIDATED", "ERROR"), v2Payment(tString, fMoneyString), []field{
		{path: "data.pixKey", typ: tString, required: true},
		{path: "data.endToEndId", typ: tString, required: true},
		{path: "data.creditDebitType", typ: tString, required: true, enum: []string{"DEBIT"}},
		{path: "data.idempotencyKey", typ: tString, required: true},
		{path: "data.creditorAccount", typ: tObject, required: true},
		{path: "data.creditorAccount.name", typ: tString, required: true},
		{path: "data.creditorAccount.document", typ: tString, required: true},
		{path: "data.creditorAccount.ispb", typ: tString, required: true},
		{path: "data.remittanceInformation", typ: tString | tNull, required: true},
	}))},
	"RECEIVE": {sec: secEnvelopeV2, rows: section(secEnvelopeV2+" (RECEIVE)", slices.Concat(v2Base("LIQUIDATED", "ERROR"), v2Payment(tString, fMoneyString), []field{
		{path: "data.endToEndId", typ: tString | tNull, required: true},
		{path: "data.debtorAccount", typ: tObject, required: true},
		{path: "data.debtorAccount.name", typ: tString, required: true},
		{path: "data.debtorAccount.document", typ: tString, required: true},
	}))},
	"REFUND": {sec: secEnvelopeV2, rows: section(secEnvelopeV2+" (REFUND)", slices.Concat(v2Base("REFUNDED", "ERROR"), v2Payment(tString|tNumber, fNone), []field{
		{path: "data.refunds", typ: tArray, required: true},
		{path: "data.refunds[]", typ: tObject},
		{path: "data.refunds[].status", typ: tString, required: true, enum: []string{"LIQUIDATED", "ERROR"}},
		{path: "data.refunds[].payment", typ: tObject, required: true},
		{path: "data.refunds[].payment.amount", typ: tNumber, required: true, format: fMoneyNumber},
		{path: "data.refunds[].payment.currency", typ: tString, required: true, enum: []string{"BRL"}},
		{path: "data.refunds[].endToEndId", typ: tString, required: true},
		{path: "data.refunds[].eventDate", typ: tString, required: true, format: fDate},
		{path: "data.refunds[].information", typ: tString | tNull, required: true},
		{path: "data.endToEndId", typ: tString, required: true},
		{path: "data.creditDebitType", typ: tString, required: true, enum: []string{"DEBIT"}},
	}))},
}

func init() {
	med := append([]field{{path: "med", typ: tObject, required: true, section: secMEDHook}}, withPrefix("med.", medItem)...)
	for _, e := range []string{"med_created", "med_accepted", "med_rejected"} {
		hookShapes[e] = hookShape{sec: secMEDHook, rows: med}
	}
}

// hookShape is one payload: its table and its section.
type hookShape struct {
	sec  string
	rows []field
}

// The payloads a delivery may carry: the V2 envelope's types, and the flat
// payloads by their event.
var (
	v2Types    = []string{"TRANSFER", "RECEIVE", "REFUND"}
	hookEvents = []string{"CashOut", "CashIn", "med_created", "med_accepted", "med_rejected"}
)

// cashOutErrorCodes is the contract's errorCode table of the CashOut payload.
var cashOutErrorCodes = []string{"TAX_ID_MISMATCH", "INVALID_TAX_ID", "BLOCKED_ACCOUNT", "ACCOUNT_CLOSED", "ORDER_REJECTED", "PAYMENT_EXPIRED", "SETTLEMENT_TIMEOUT"}

// HookOptions configure the signing rules of JudgeDelivery.
type HookOptions struct {
	// Secret is the Standard Webhooks secret (whsec_…) the upstream signs
	// with; empty: the signing rules do not apply (the contract shows no
	// signing).
	Secret string
}

// payloadName returns the name of a delivery body's payload ("TRANSFER",
// "CashOut", "med_created"), or "" with the reason when it is none.
func payloadName(v any) (string, string) {
	obj, ok := v.(map[string]any)
	if !ok {
		return "", "the body is " + typeOf(v).String() + ", not an object"
	}
	if t, ok := obj["type"]; ok {
		if s, _ := t.(string); slices.Contains(v2Types, s) {
			return s, ""
		}
		return "", "type is " + render(t) + ", not " + strings.Join(v2Types, ", ")
	}
	if e, ok := obj["event"]; ok {
		if s, _ := e.(string); slices.Contains(hookEvents, s) {
			return s, ""
		}
		return "", "event is " + render(e) + ", not " + strings.Join(hookEvents, ", ")
	}
	return "", "the object has neither type (the V2 envelope) nor event (CashOut, CashIn, MED)"
}

// hookFinding is a finding of rule id about the delivery ex of payload name.
func hookFinding(id string, ex *Exchange, name, sec string) Finding {
	f := newFinding(id, ex, sec)
	f.Route = strings.TrimSpace("webhook " + name)
	return f
}

// JudgeDelivery applies the webhook rules to one delivery: its envelope, its
// payload's fields, and with a secret its signature and timestamp.
func JudgeDelivery(ex *Exchange, o HookOptions) []Finding {
	var out []Finding
	if o.Secret != "" {
		out = judgeSigning(ex, o.Secret)
	}
	if ex.ReqUnjudged != "" {
		f := hookFinding("hook.body-unjudged", ex, "", "")
		f.Field, f.Message = "body", "delivery body not judged: "+ex.ReqUnjudged
		return append(out, f)
	}
	envelope := func(field, expected, seen, msg string) []Finding {
		f := hookFinding("hook.envelope", ex, "", "")
		f.Field, f.Expected, f.Seen, f.Message = field, expected, seen, msg
		return append(out, f)
	}
	if ct := ex.ReqHeader.Get("Content-Type"); !jsonContentType(ct) {
		out = envelope("Content-Type", "application/json", strconv.Quote(ct), "a delivery with Content-Type "+strconv.Quote(ct))
	}
	v, err := ex.reqValue()
	if err != nil {
		return envelope("body", "a JSON object", snippet(ex.ReqBody), "the delivery's body is not JSON: "+err.Error())
	}
	name, why := payloadName(v)
	if name == "" {
		return envelope("body", "the V2 envelope {type, data} or an event payload {event, …}", snippet(ex.ReqBody), "the delivery is no payload of the contract: "+why)
	}
	shape := hookShapes[name]
	for _, is := range checkFields(shape.rows, v) {
		id := "hook." + is.rule
		if is.rule == "value-allowed" && (is.field == "status" || strings.HasSuffix(is.field, ".status")) {
			id = "hook.status-allowed"
		} else if _, ok := RuleByID(id); !ok {
			id = "hook.value-allowed"
		}
		sec := is.section
		if sec == "" {
			sec = shape.sec
		}
		f := hookFinding(id, ex, name, sec)
		f.Field, f.Expected, f.Seen, f.Message = is.field, is.expected, is.seen, name+": "+is.message
		out = append(out, f)
	}
	return append(out, payloadRules(ex, name, v.(map[string]any))...)
}

// payloadRules are the rules a field table does not express: ids of numeric
// text, errorCode by status, a REFUND amount of either type, a MED's state
// by its event.
func payloadRules(ex *Exchange, name string, obj map[string]any) []Finding {
	var out []Finding
	add := func(id, sec, field, expected string, seen any, msg string) {
		f := hookFinding(id, ex, name, sec)
		f.Field, f.Expected, f.Seen, f.Message = field, expected, render(seen), name+": "+msg
		out = append(out, f)
	}
	switch name {
	case "CashOut", "CashIn":
		flatRules(name, obj, add)
	case "TRANSFER", "RECEIVE":
		data, _ := obj["data"].(map[string]any)
		if data["status"] == "ERROR" {
			for _, k := range []string{"errorCode", "errorMessage"} {
				if _, ok := data[k].(string); !ok {
					add("hook.field-missing", secV2Error, "data."+k, "a string when status is ERROR", data[k], "data."+k+" is absent from an ERROR payload")
				}
			}
		}
	case "REFUND":
		amount, _ := apiclient.Lookup(obj, "data.payment.amount")
		if s, ok := amount.(string); ok && !reMoney2.MatchString(s) {
			add("hook.money-format", secEnvelopeV2+" (REFUND)", "data.payment.amount", formatNames[fMoneyString], s, "data.payment.amount is "+strconv.Quote(s)+", not a string with exactly 2 decimals")
		} else if n, ok := amount.(json.Number); ok && !apiclient.Decimal2.MatchString(string(n)) {
			add("hook.money-format", secEnvelopeV2+" (REFUND)", "data.payment.amount", formatNames[fMoneyNumber], n, "data.payment.amount is "+string(n)+", more than 2 decimals")
		}
	default: // the MED events
		want := map[string][2]string{"med_created": {"OPEN", ""}, "med_accepted": {"ANALYZED", "APPROVED"}, "med_rejected": {"ANALYZED", "REJECTED"}}[name]
		st, _ := apiclient.Lookup(obj, "med.status")
		res, _ := apiclient.Lookup(obj, "med.analysisResult")
		if med, ok := obj["med"].(map[string]any); ok && (st != want[0] || (want[1] != "" && res != want[1])) {
			add("hook.status-allowed", secMEDHook, "med.status", strings.TrimSpace(want[0]+" "+want[1]), fmt.Sprint(med["status"], " ", med["analysisResult"]), "the MED's state does not fit the event")
		}
	}
	return out
}

// flatRules: the CashOut and CashIn payloads' transactionId is numeric text,
// errorCode and errorMessage are null when CONFIRMED ("null when
// CONFIRMED"), and an ERROR carries an errorCode (of the CashOut table).
func flatRules(name string, obj map[string]any, add func(id, sec, field, expected string, seen any, msg string)) {
	sec := hookShapes[name].sec
	if id, ok := obj["transactionId"].(string); ok && !reDigits.MatchString(id) {
		add("hook.id-format", sec, "transactionId", "numeric text", id, "transactionId is "+strconv.Quote(id)+", not numeric text")
	}
	status, _ := obj["status"].(string)
	code, hasCode := obj["errorCode"].(string)
	switch {
	case status == "CONFIRMED" && (obj["errorCode"] != nil || obj["errorMessage"] != nil):
		add("hook.value-allowed", sec, "errorCode", "null errorCode and errorMessage when CONFIRMED", obj["errorCode"], "a CONFIRMED payload carries an error")
	case status == "ERROR" && !hasCode:
		add("hook.value-allowed", sec, "errorCode", "an errorCode when ERROR", obj["errorCode"], "an ERROR payload without errorCode")
	case status == "ERROR" && name == "CashOut" && !slices.Contains(cashOutErrorCodes, code):
		add("hook.value-allowed", sec, "errorCode", "one of "+strings.Join(cashOutErrorCodes, ", "), code, "errorCode "+code+" is not in the payload's errorCode table")
	}
}

// CheckHookSecret reports whether s is a Standard Webhooks secret: whsec_
// followed by the standard base64 of the key.
func CheckHookSecret(s string) error {
	rest, ok := strings.CutPrefix(s, HookSecretPrefix)
	if !ok {
		return errors.New("a webhook secret starts with " + HookSecretPrefix)
	}
	key, err := base64.StdEncoding.DecodeString(rest)
	if err != nil || len(key) == 0 {
		return errors.New("a webhook secret is " + HookSecretPrefix + " followed by base64")
	}
	return nil
}

// HookSignature returns the Standard Webhooks v1 signature of one message:
// "v1," and the base64 HMAC-SHA256, keyed with the secret's key, of
// "{id}.{timestamp}.{body}", as the Standard Webhooks library signs it.
func HookSignature(secret, id string, ts int64, body []byte) (string, error) {
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		return "", err
	}
	return wh.Sign(id, time.Unix(ts, 0), body)
}

// judgeSigning checks the Standard Webhooks headers: a timestamp within
// HookTolerance of when the delivery arrived, and a v1 signature among the
// header's space-separated ones matching the body (compared in constant time).
func judgeSigning(ex *Exchange, secret string) []Finding {
	var out []Finding
	h := ex.ReqHeader
	id, tsText, sigs := h.Get("webhook-id"), h.Get("webhook-timestamp"), h.Get("webhook-signature")
	ts, tsErr := strconv.ParseInt(tsText, 10, 64)
	stamp := func(expected, msg string) {
		f := hookFinding("hook.timestamp", ex, "", "")
		f.Field, f.Expected, f.Seen, f.Message = "webhook-timestamp", expected, strconv.Quote(tsText), msg
		out = append(out, f)
	}
	switch at := time.Unix(ts, 0); {
	case tsErr != nil:
		stamp("Unix seconds", "webhook-timestamp is absent or not Unix seconds")
	case !ex.Start.IsZero() && (ex.Start.Sub(at) > HookTolerance || at.Sub(ex.Start) > HookTolerance):
		stamp("within 5 min of "+ex.Start.UTC().Format(time.RFC3339), fmt.Sprintf("webhook-timestamp %s is %s from the proxy's clock when the delivery arrived (%s); the tolerance is 5 min",
			at.UTC().Format(time.RFC3339), ex.Start.Sub(at).Round(time.Second), ex.Start.UTC().Format(time.RFC3339)))
	}
	if ex.ReqUnjudged != "" || tsErr != nil {
		return out // no body to verify, or no timestamp to verify it with
	}
	sig := func(seen, msg string) []Finding {
		f := hookFinding("hook.signature", ex, "", "")
		f.Field, f.Expected, f.Seen, f.Message = "webhook-signature", "a v1 HMAC-SHA256 of {webhook-id}.{webhook-timestamp}.{body} with the secret", seen, msg
		return append(out, f)
	}
	want, err := HookSignature(secret, id, ts, ex.ReqBody)
	switch {
	case id == "":
		return sig("no webhook-id", "no webhook-id header: the signature cannot be verified")
	case sigs == "":
		return sig("absent", "no webhook-signature header")
	case err != nil:
		return out
	}
	for _, s := range strings.Split(sigs, " ") {
		if parts := strings.Split(s, ","); len(parts) >= 2 && parts[0] == "v1" && hmac.Equal([]byte("v1,"+parts[1]), []byte(want)) {
			return out
		}
	}
	return sig(sigs, "no v1 signature of webhook-signature matches the body with the secret")
}

// ReceiverFinding is the finding of a delivery the integrator's receiver
// did not answer: the upstream got 502 from the proxy.
func ReceiverFinding(ex *Exchange, receiver string, err error) Finding {
	f := hookFinding("upstream.receiver-unreachable", ex, "", "")
	f.Field, f.Expected, f.Seen = "webhooks-to", "an answer from "+receiver, err.Error()
	f.Message = "the webhook receiver " + receiver + " did not answer: " + err.Error() + "; the upstream got 502"
	return f
}

// Hooks is the webhook side of the state model: the transactions the API's
// answers showed, by every identifier a payload may name them with, each
// with the statuses answers and deliveries gave it, and the deliveries by
// body. Its windows are bounded like the Model's. It is safe for concurrent
// use; exchanges and deliveries are given in the order they ended.
//
// A transaction is found by identifiers unique to it: end-to-end ids and
// rtrIds, UUIDs, idempotency keys, txids, a refund's original and id, and
// externalIds (unique within an account). Numeric transaction ids are
// unique only within one data directory (or sandbox workspace), and a
// delivery names no account, so they only mark a transaction as seen.
type Hooks struct {
	mu     sync.Mutex
	txs    *window[*hookTx]
	known  *window[bool]   // identifiers answers showed that only mark a transaction as seen
	bodies *window[seenID] // body digest: the first webhook-id that carried it
}

// hookTx is one transaction as the traffic shows it.
type hookTx struct {
	keys      []string
	account   string // the account of the API answers ("" when none said)
	ambiguous bool   // two accounts, or two values of one unique identifier, met in it: never judged
	api       bool   // an answer of the API named it (not only deliveries)
	noticed   bool   // hook.unknown-transaction said so once
	obs       []hookObs
}

// hookObs is a status seen, as a phase: pending, done (done:APPROVED and
// done:REJECTED for a MED) or failed.
type hookObs struct {
	phase, status string
	start, end    time.Time
	ex            uint64
	delivery      bool
}

// hookFact is what one answer or delivery says of one transaction: the
// identifiers that find it, those that only mark it seen, its status.
type hookFact struct {
	keys, known   []string
	phase, status string
}

// maxHookKeys bounds the identifiers kept per transaction.
const maxHookKeys = 16

// NewHooks returns an empty webhook model bounded by b.
func NewHooks(b Bounds) *Hooks {
	if b.Keys <= 0 {
		b.Keys = DefaultBounds.Keys
	}
	return &Hooks{txs: newWindow[*hookTx](b.Keys), known: newWindow[bool](b.Keys), bodies: newWindow[seenID](b.Keys)}
}

// Size returns how many entries each window holds.
func (h *Hooks) Size() map[string]int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return map[string]int{"hookTransactionKeys": h.txs.len(), "hookSeenIds": h.known.len(), "hookBodies": h.bodies.len()}
}

// phaseOf maps the statuses of every route, listing and payload to a phase.
func phaseOf(status string) string {
	switch status {
	case "PENDING", "ATIVA", "EM_PROCESSAMENTO", "Pendente", "OPEN", "RECEIVED":
		return "pending"
	case "CONFIRMED", "COMPLETED", "LIQUIDATED", "REFUNDED", "CONCLUIDA", "DEVOLVIDO", "Confirmado":
		return "done"
	case "ERROR", "Error", "NAO_REALIZADO", "REMOVIDA_PELO_USUARIO_RECEBEDOR", "REMOVIDA_PELO_PSP", "CANCELLED":
		return "failed"
	}
	return ""
}

// phaseAllowed: a pending transaction may end either way; an ended one
// never changes (cash-out, transfer, charge, cob, refund and MED tables).
func phaseAllowed(from, to string) bool {
	return from == to || from == "pending" || from == "" || to == ""
}

func hookStr(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return string(x)
	}
	return ""
}

// hookKeys returns the non-empty identifiers among pairs of prefix and value.
func hookKeys(pairs ...string) []string {
	var out []string
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] != "" {
			out = append(out, pairs[i]+pairs[i+1])
		}
	}
	return out
}

// keyType is an identifier's kind: "e2e", "ext", "txid", ….
func keyType(k string) string {
	t, _, _ := strings.Cut(k, ":")
	return t
}

// listingKeys are the identifiers of a listing item: a PIX's end-to-end id
// and externalId; a refund's end-to-end id is its rtrId.
func listingKeys(item any, at func(any, string) string) []string {
	e2e, ext := at(item, "endToEndId"), at(item, "externalId")
	switch at(item, "operationType") {
	case "Pix out":
		return hookKeys("e2e:", e2e, "ext:out:", ext)
	case "Pix in":
		return hookKeys("e2e:", e2e, "ext:in:", ext)
	}
	return hookKeys("rtr:", e2e)
}

// apiFacts is what an answer of the API says of transactions; judged
// reports whether its statuses are judged against earlier deliveries (a
// creation's answer may be a replay of the first one, so only reads are).
func apiFacts(ex *Exchange, rt *Route, params map[string]string, v any) (facts []hookFact, judged bool) {
	obj, _ := v.(map[string]any)
	req, _ := ex.reqValue()
	at := func(v any, path string) string { x, _ := apiclient.Lookup(v, path); return hookStr(x) }
	one := func(status string, keys, known []string) []hookFact {
		return []hookFact{{keys: keys, known: known, phase: phaseOf(status), status: status}}
	}
	switch rt.Name {
	case "cashout.create":
		return one(at(obj, "status"), hookKeys("ext:out:", at(req, "externalId"), "uuid:", at(obj, "transactionId")), nil), false
	case "cashin.create":
		return one(at(obj, "status"), hookKeys("ext:in:", at(req, "transaction.externalId"), "corr:", at(obj, "correlationId")), hookKeys("id:", at(obj, "transactionId"))), false
	case "transfer.create":
		return one(at(obj, "type"), hookKeys("idem:", ex.ReqHeader.Get("X-Idempotency-Key")), hookKeys("id:", at(obj, "id"))), false
	case "cob.put", "cob.get", "cob.patch":
		return one(at(obj, "status"), hookKeys("txid:", params["txid"]), nil), rt.Name != "cob.put"
	case "refund.put", "refund.get":
		return one(at(obj, "status"), hookKeys("refund:", params["e2eid"]+"|"+params["id"], "rtr:", at(obj, "rtrId")), hookKeys("pix:", params["e2eid"])), rt.Name == "refund.get"
	case "refundin.create":
		return one(at(obj, "status"), hookKeys("rtr:", at(obj, "providerTransactionId")), hookKeys("id:", at(obj, "transactionId"))), false
	case "transactions.list", "transactions.bykey":
		data, _ := obj["data"].([]any)
		for _, it := range data {
			facts = append(facts, one(at(it, "status"), listingKeys(it, at), hookKeys("id:", at(it, "transactionId")))...)
		}
		return facts, true
	case "med.list":
		data, _ := obj["data"].([]any)
		for _, it := range data {
			facts = append(facts, hookFact{keys: hookKeys("med:", at(it, "id")+"|"+at(it, "endToEnd")),
				phase: medPhase(at(it, "status"), at(it, "analysisResult")), status: at(it, "status")})
		}
		return facts, true
	}
	return nil, false
}

func medPhase(status, result string) string {
	if status == "ANALYZED" && result != "" {
		return "done:" + result
	}
	return phaseOf(status)
}

// deliveryFacts is what a payload says of transactions; judged reports
// whether the transaction it names must have been seen in the API's traffic
// (not a PIX received by key, nor a MED: those start outside the traffic).
func deliveryFacts(name string, obj map[string]any) (facts []hookFact, judged bool) {
	at := func(path string) string { x, _ := apiclient.Lookup(obj, path); return hookStr(x) }
	fact := func(status string, keys, known []string) []hookFact {
		return []hookFact{{keys: keys, known: known, phase: phaseOf(status), status: status}}
	}
	switch name {
	case "CashOut":
		return fact(at("status"), hookKeys("ext:out:", at("externalId"), "e2e:", at("endToEndId")), hookKeys("id:", at("transactionId"))), true
	case "CashIn":
		return fact(at("status"), hookKeys("ext:in:", at("externalId"), "corr:", at("correlationId"), "e2e:", at("endToEndId")), hookKeys("id:", at("transactionId"))), true
	case "TRANSFER":
		return fact(at("data.status"), hookKeys("idem:", at("data.idempotencyKey"), "e2e:", at("data.endToEndId")), hookKeys("id:", at("data.id"))), true
	case "RECEIVE":
		return fact(at("data.status"), hookKeys("txid:", at("data.txId"), "e2e:", at("data.endToEndId")), hookKeys("id:", at("data.id"))), at("data.txId") != ""
	case "REFUND":
		e2e, refundID := at("data.endToEndId"), at("data.refundId")
		if refundID != "" {
			refundID = e2e + "|" + refundID
		}
		facts = fact(at("data.status"), hookKeys("refund:", refundID, "rtr:", at("data.rtrId")), hookKeys("id:", at("data.id"), "pix:", e2e))
		refunds, _ := apiclient.Lookup(obj, "data.refunds")
		items, _ := refunds.([]any)
		for _, r := range items {
			rtr, _ := apiclient.Lookup(r, "endToEndId")
			st, _ := apiclient.Lookup(r, "status")
			facts = append(facts, fact(hookStr(st), hookKeys("rtr:", hookStr(rtr)), nil)...)
		}
		return facts, true
	case "med_accepted", "med_rejected":
		result := map[string]string{"med_accepted": "APPROVED", "med_rejected": "REJECTED"}[name]
		return []hookFact{{keys: hookKeys("med:", at("med.id")+"|"+at("med.endToEnd")), phase: "done:" + result, status: "ANALYZED " + result}}, false
	}
	return nil, false
}

// lookup returns the transaction of fact, joining the transactions its keys
// named apart, or a new one; every key then names it. Two accounts, or two
// values of an identifier unique to a transaction, make it ambiguous.
func (h *Hooks) lookup(fact hookFact, account string) *hookTx {
	var tx *hookTx
	for _, k := range fact.keys {
		other, ok := h.txs.get(k)
		switch {
		case !ok || other == tx:
		case tx == nil:
			tx = other
		default: // two records of one transaction: join them
			tx.obs = append(tx.obs, other.obs...)
			slices.SortFunc(tx.obs, func(a, b hookObs) int { return cmp.Compare(a.ex, b.ex) })
			tx.api, tx.noticed = tx.api || other.api, tx.noticed || other.noticed
			tx.ambiguous = tx.ambiguous || other.ambiguous || (tx.account != "" && other.account != "" && tx.account != other.account)
			if tx.account == "" {
				tx.account = other.account
			}
			for _, ok := range other.keys {
				tx.addKey(ok)
				h.txs.put(ok, tx)
			}
		}
	}
	if tx == nil {
		tx = &hookTx{account: account}
	}
	if account != "" && tx.account != "" && account != tx.account {
		tx.ambiguous = true
	} else if tx.account == "" {
		tx.account = account
	}
	for _, k := range fact.keys {
		tx.addKey(k)
		h.txs.put(k, tx)
	}
	return tx
}

// addKey adds an identifier to tx; a second value of one unique to a
// transaction (all but externalIds, unique within an account) means two
// transactions met under a shared identifier.
func (tx *hookTx) addKey(k string) {
	if slices.Contains(tx.keys, k) {
		return
	}
	if t := keyType(k); t != "ext" && slices.ContainsFunc(tx.keys, func(x string) bool { return keyType(x) == t }) {
		tx.ambiguous = true
	}
	tx.keys = append(tx.keys, k)
	if len(tx.keys) > maxHookKeys {
		tx.keys = tx.keys[len(tx.keys)-maxHookKeys:]
	}
}

// record adds o to tx and returns the earlier observation it contradicts:
// one of another side (a delivery against an answer, an answer against a
// delivery, or two deliveries) whose exchange ended before o's started.
func (tx *hookTx) record(o hookObs, judge bool) (hookObs, bool) {
	var bad hookObs
	found := false
	for _, p := range tx.obs {
		if judge && !found && !tx.ambiguous && (p.delivery || o.delivery) && p.end.Before(o.start) && !phaseAllowed(p.phase, o.phase) {
			bad, found = p, true
		}
	}
	tx.obs = append(tx.obs, o)
	if len(tx.obs) > maxHistory {
		tx.obs = tx.obs[len(tx.obs)-maxHistory:]
	}
	return bad, found
}

// Observe learns the transactions an answer of the API shows and returns a
// hook.status-inconsistent finding when a read contradicts an earlier
// delivery. The control plane's payments (POST /_sandbox/pix-in,
// /_sandbox/payments) name a PIX received.
func (h *Hooks) Observe(ex *Exchange) []Finding {
	if ex.Status < 200 || ex.Status > 299 || ex.RespUnjudged != "" {
		return nil
	}
	rt, params := Match(ex.Method, ex.Path)
	sandbox := rt == nil && ex.Method == "POST" && strings.HasPrefix(ex.Path, "/_sandbox/") &&
		(strings.HasSuffix(ex.Path, "/pix-in") || strings.HasSuffix(ex.Path, "/payments"))
	if rt == nil && !sandbox {
		return nil
	}
	v, err := ex.respValue()
	if err != nil {
		return nil
	}
	var facts []hookFact
	judged := false
	if sandbox {
		e2e, _ := apiclient.Lookup(v, "endToEndId")
		id, _ := apiclient.Lookup(v, "transactionId")
		facts = []hookFact{{keys: hookKeys("e2e:", hookStr(e2e)), known: hookKeys("id:", hookStr(id))}}
	} else {
		facts, judged = apiFacts(ex, rt, params, v)
	}
	account := ""
	if tok, ok := ex.account(); ok {
		account = tok.Account
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []Finding
	for _, fact := range facts {
		for _, k := range fact.known {
			h.known.put(k, true)
		}
		if len(fact.keys) == 0 {
			continue
		}
		tx := h.lookup(fact, account)
		tx.api = true
		if fact.phase == "" {
			continue
		}
		if p, bad := tx.record(hookObs{phase: fact.phase, status: fact.status, start: ex.Start, end: ex.End, ex: ex.Seq}, judged); bad {
			f := newFinding("hook.status-inconsistent", ex, "")
			f.Field, f.Expected, f.Seen, f.Related = "status", "a status reachable from "+p.status, fact.status, []uint64{p.ex}
			f.Message = fmt.Sprintf("the webhook of exchange %d said %s of %s; this answer, whose request started after it, says %s", p.ex, p.status, strings.Join(tx.keys, ", "), fact.status)
			out = append(out, f)
		}
	}
	return out
}

// ObserveDelivery judges a delivery against the traffic: the same body
// delivered again with another webhook-id, a transaction no answer showed, a
// status an earlier answer or delivery contradicts.
func (h *Hooks) ObserveDelivery(ex *Exchange) []Finding {
	if ex.ReqUnjudged != "" {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	out := h.redelivery(ex)
	v, err := ex.reqValue()
	if err != nil {
		return out
	}
	name, _ := payloadName(v)
	if name == "" {
		return out
	}
	facts, mustKnow := deliveryFacts(name, v.(map[string]any))
	txs := make([]*hookTx, len(facts))
	known := false
	for i, fact := range facts {
		for _, k := range fact.known {
			_, seen := h.known.get(k)
			known = known || seen
		}
		if len(fact.keys) > 0 {
			txs[i] = h.lookup(fact, "")
			known = known || txs[i].api
		}
	}
	if mustKnow && !known && (len(facts) == 0 || txs[0] == nil || !txs[0].noticed) {
		if len(facts) > 0 && txs[0] != nil {
			txs[0].noticed = true
		}
		f := hookFinding("hook.unknown-transaction", ex, name, "")
		f.Field, f.Expected, f.Seen = strings.Join(slices.Concat(facts[0].keys, facts[0].known), ", "), "a transaction an answer of the API showed", "none"
		f.Message = name + " names a transaction no answer through the proxy showed (created before the proxy started, by another client, or forgotten by the bounded model)"
		out = append(out, f)
	}
	for i, fact := range facts {
		if txs[i] == nil || fact.phase == "" {
			continue
		}
		if p, bad := txs[i].record(hookObs{phase: fact.phase, status: fact.status, start: ex.Start, end: ex.End, ex: ex.Seq, delivery: true}, true); bad {
			f := hookFinding("hook.status-inconsistent", ex, name, "")
			src := "the answer"
			if p.delivery {
				src = "the delivery"
			}
			f.Field, f.Expected, f.Seen, f.Related = "status", "a status reachable from "+p.status, fact.status, []uint64{p.ex}
			f.Message = fmt.Sprintf("%s says %s of %s; %s of exchange %d, ended before this delivery came, said %s", name, fact.status, strings.Join(fact.keys, ", "), src, p.ex, p.status)
			out = append(out, f)
		}
	}
	return out
}

// redelivery: Standard Webhooks and docs/spec-gaps.md G-30 keep an event's
// webhook-id on every attempt, so a body delivered again comes with the id
// it first had.
func (h *Hooks) redelivery(ex *Exchange) []Finding {
	id := ex.ReqHeader.Get("webhook-id")
	if id == "" || len(ex.ReqBody) == 0 {
		return nil
	}
	sum := sha256.Sum256(ex.ReqBody)
	digest := hex.EncodeToString(sum[:])
	prev, ok := h.bodies.get(digest)
	if !ok {
		h.bodies.put(digest, seenID{id: id, ex: ex.Seq})
		return nil
	}
	if prev.id == id {
		return nil
	}
	f := hookFinding("hook.id-changed-on-retry", ex, "", "")
	f.Field, f.Expected, f.Seen, f.Related = "webhook-id", prev.id+" (the body's first delivery)", id, []uint64{prev.ex}
	f.Message = fmt.Sprintf("the body delivered in exchange %d with webhook-id %s came again with webhook-id %s", prev.ex, prev.id, id)
	return []Finding{f}
}
