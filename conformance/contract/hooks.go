package contract

import (
	"crypto/hmac"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
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

// PayloadName returns the name of a delivery body's payload ("TRANSFER",
// "CashOut", "med_created"), or "" with the reason when it is none.
func PayloadName(v any) (string, string) {
	obj, ok := v.(map[string]any)
	if !ok {
		return "", "the body is " + typeOf(v).String() + ", not an object"
	}
	if t, ok := obj["type"]; ok {
		if s, _ := t.(string); slices.Contains(v2Types, s) {
			return s, ""
		}
		return "", "type is " + Render(t) + ", not " + strings.Join(v2Types, ", ")
	}
	if e, ok := obj["event"]; ok {
		if s, _ := e.(string); slices.Contains(hookEvents, s) {
			return s, ""
		}
		return "", "event is " + Render(e) + ", not " + strings.Join(hookEvents, ", ")
	}
	return "", "the object has neither type (the V2 envelope) nor event (CashOut, CashIn, MED)"
}

// HookFinding is a finding of rule id about the delivery ex of payload name
// (its route "webhook <name>"); sec, when not empty, replaces the rule's section.
func HookFinding(id string, ex *Exchange, name, sec string) Finding {
	f := NewFinding(id, ex, sec)
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
		f := HookFinding("hook.body-unjudged", ex, "", "")
		f.Field, f.Message = "body", "delivery body not judged: "+ex.ReqUnjudged
		return append(out, f)
	}
	envelope := func(field, expected, seen, msg string) []Finding {
		f := HookFinding("hook.envelope", ex, "", "")
		f.Field, f.Expected, f.Seen, f.Message = field, expected, seen, msg
		return append(out, f)
	}
	if ct := ex.ReqHeader.Get("Content-Type"); !jsonContentType(ct) {
		out = envelope("Content-Type", "application/json", strconv.Quote(ct), "a delivery with Content-Type "+strconv.Quote(ct))
	}
	v, err := ex.ReqValue()
	if err != nil {
		return envelope("body", "a JSON object", snippet(ex.ReqBody), "the delivery's body is not JSON: "+err.Error())
	}
	name, why := PayloadName(v)
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
		f := HookFinding(id, ex, name, sec)
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
		f := HookFinding(id, ex, name, sec)
		f.Field, f.Expected, f.Seen, f.Message = field, expected, Render(seen), name+": "+msg
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
		f := HookFinding("hook.timestamp", ex, "", "")
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
		f := HookFinding("hook.signature", ex, "", "")
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
	f := HookFinding("upstream.receiver-unreachable", ex, "", "")
	f.Field, f.Expected, f.Seen = "webhooks-to", "an answer from "+receiver, err.Error()
	f.Message = "the webhook receiver " + receiver + " did not answer: " + err.Error() + "; the upstream got 502"
	return f
}
