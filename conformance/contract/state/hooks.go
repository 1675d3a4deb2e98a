package state

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
)

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
func apiFacts(ex *contract.Exchange, rt *contract.Route, params map[string]string, v any) (facts []hookFact, judged bool) {
	obj, _ := v.(map[string]any)
	req, _ := ex.ReqValue()
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
func (h *Hooks) Observe(ex *contract.Exchange) []contract.Finding {
	if ex.Status < 200 || ex.Status > 299 || ex.RespUnjudged != "" {
		return nil
	}
	rt, params := ex.Route()
	sandbox := rt == nil && ex.Method == "POST" && strings.HasPrefix(ex.Path, "/_sandbox/") &&
		(strings.HasSuffix(ex.Path, "/pix-in") || strings.HasSuffix(ex.Path, "/payments"))
	if rt == nil && !sandbox {
		return nil
	}
	v, err := ex.RespValue()
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
	if tok, ok := accountOf(ex); ok {
		account = tok.Account
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []contract.Finding
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
			f := contract.NewFinding("hook.status-inconsistent", ex, "")
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
func (h *Hooks) ObserveDelivery(ex *contract.Exchange) []contract.Finding {
	if ex.ReqUnjudged != "" {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	out := h.redelivery(ex)
	v, err := ex.ReqValue()
	if err != nil {
		return out
	}
	name, _ := contract.PayloadName(v)
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
		f := contract.HookFinding("hook.unknown-transaction", ex, name, "")
		f.Field, f.Expected, f.Seen = strings.Join(slices.Concat(facts[0].keys, facts[0].known), ", "), "a transaction an answer of the API showed", "none"
		f.Message = name + " names a transaction no answer through the proxy showed (created before the proxy started, by another client, or forgotten by the bounded model)"
		out = append(out, f)
	}
	for i, fact := range facts {
		if txs[i] == nil || fact.phase == "" {
			continue
		}
		if p, bad := txs[i].record(hookObs{phase: fact.phase, status: fact.status, start: ex.Start, end: ex.End, ex: ex.Seq, delivery: true}, true); bad {
			f := contract.HookFinding("hook.status-inconsistent", ex, name, "")
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
func (h *Hooks) redelivery(ex *contract.Exchange) []contract.Finding {
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
	f := contract.HookFinding("hook.id-changed-on-retry", ex, "", "")
	f.Field, f.Expected, f.Seen, f.Related = "webhook-id", prev.id+" (the body's first delivery)", id, []uint64{prev.ex}
	f.Message = fmt.Sprintf("the body delivered in exchange %d with webhook-id %s came again with webhook-id %s", prev.ex, prev.id, id)
	return []contract.Finding{f}
}
