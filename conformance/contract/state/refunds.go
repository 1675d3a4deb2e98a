package state

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
)

// original is a received PIX as the traffic shows it: its amount, when an
// answer gave it, and the refunds accepted against it (both refund routes,
// keyed by refund id: the Central Bank route's {id}, refund-in's externalId).
type original struct {
	amount   int64
	known    bool
	amountEx uint64
	refunds  map[string]*refundRec
	order    []string // refund ids, oldest first (bounded by maxRefunds)
}

type refundRec struct {
	cents int64
	// failed: last seen NAO_REALIZADO or ERROR; uncertain: asked with an
	// X-Sandbox-Scenario (which may fail it later) and not seen succeed.
	failed, uncertain bool
	ex                uint64
}

func (o *original) counted() (sum int64, exs []uint64) {
	for _, id := range o.order {
		r := o.refunds[id]
		if !r.failed && !r.uncertain {
			sum += r.cents
			exs = append(exs, r.ex)
		}
	}
	return sum, exs
}

// refundStatus classifies a refund status of either route.
func refundStatus(status string) (failed, done bool) {
	switch status {
	case "NAO_REALIZADO", "ERROR":
		return true, false
	case "DEVOLVIDO", "CONFIRMED":
		return false, true
	}
	return false, false
}

func (m *Model) originalOf(key string) *original {
	o, _ := m.origs.get(key)
	if o == nil {
		o = &original{refunds: map[string]*refundRec{}}
		m.origs.put(key, o)
	}
	return o
}

// refundEvent is a refund seen in an answer: its id, amount, status, and
// the exchange that showed it.
type refundEvent struct {
	id        string
	cents     int64
	status    string
	uncertain bool // asked with an X-Sandbox-Scenario
	ex        uint64
}

// addRefund records a refund accepted (or read) against the original at
// key and returns the finding, about ex, when the counted refunds now exceed
// the original.
func (m *Model) addRefund(ex *contract.Exchange, key string, ev refundEvent) []contract.Finding {
	o := m.originalOf(key)
	failed, done := refundStatus(ev.status)
	r, seen := o.refunds[ev.id]
	wasCounted := seen && !r.failed && !r.uncertain
	if !seen {
		r = &refundRec{cents: ev.cents, ex: ev.ex, uncertain: ev.uncertain && !done}
		o.refunds[ev.id] = r
		o.order = append(o.order, ev.id)
		if len(o.order) > maxRefunds {
			delete(o.refunds, o.order[0])
			o.order = o.order[1:]
		}
	}
	r.failed = failed
	if done {
		r.uncertain = false
	}
	if wasCounted || r.failed || r.uncertain {
		return nil
	}
	return o.excess(ex, "")
}

// excess returns the finding of refunds above the original, if any.
func (o *original) excess(ex *contract.Exchange, evidence string) []contract.Finding {
	sum, exs := o.counted()
	if !o.known || sum <= o.amount {
		return nil
	}
	f := contract.NewFinding("state.refund-over-original", ex, "")
	f.Field = "refunds"
	f.Expected = "at most " + apiclient.FormatCents(o.amount) + " in all (the original amount)"
	f.Seen = apiclient.FormatCents(sum) + " accepted"
	f.Related = append(exs, o.amountEx)
	sort.Slice(f.Related, func(i, j int) bool { return f.Related[i] < f.Related[j] })
	f.Message = fmt.Sprintf("refunds accepted in exchanges %v sum %s, above the original amount %s (exchange %d)%s",
		exs, apiclient.FormatCents(sum), apiclient.FormatCents(o.amount), o.amountEx, evidence)
	return []contract.Finding{f}
}

// setAmount records the original amount of the PIX at key.
func (m *Model) setAmount(ex *contract.Exchange, key string, cents int64) []contract.Finding {
	o := m.originalOf(key)
	if o.known {
		return nil
	}
	o.amount, o.known, o.amountEx = cents, true, ex.Seq
	return o.excess(ex, "; this answer gave the amount")
}

// refundSum handles a PUT or GET of /pix/{e2eid}/devolucao/{id}.
func (m *Model) refundSum(ex *contract.Exchange, e2eid, id string, obj map[string]any) []contract.Finding {
	cents, err := apiclient.Cents(obj["valor"])
	if err != nil {
		return nil
	}
	status, _ := obj["status"].(string)
	return m.addRefund(ex, "e2e:"+e2eid, refundEvent{id: id, cents: cents, status: status, uncertain: ex.Scenario(), ex: ex.Seq})
}

// refundIn handles POST /api/pix/refund-in/{id}: {id} is the original's
// transaction id, tied to its end-to-end id by a listing seen earlier.
func (m *Model) refundIn(ex *contract.Exchange, acct, txID string, obj map[string]any) []contract.Finding {
	cents, err := apiclient.Cents(obj["refundValue"])
	if err != nil {
		return nil
	}
	req, _ := ex.ReqValue()
	refundID, _ := apiclient.Lookup(req, "externalId")
	id, _ := refundID.(string)
	if id == "" {
		t, _ := obj["transactionId"].(string)
		id = "refund-in " + t
	}
	key := "tx:" + acct + "|" + txID
	if e2e, ok := m.alias.get(key); ok {
		key = e2e
	}
	status, _ := obj["status"].(string)
	return m.addRefund(ex, key, refundEvent{id: id, cents: cents, status: status, uncertain: ex.Scenario(), ex: ex.Seq})
}

// listing learns originals from a transaction listing: a confirmed "Pix in"
// gives its end-to-end id, its amount and the transaction id refund-in uses.
func (m *Model) listing(ex *contract.Exchange, acct string, obj map[string]any) []contract.Finding {
	data, _ := obj["data"].([]any)
	var out []contract.Finding
	for _, it := range data {
		item, _ := it.(map[string]any)
		e2e, _ := item["endToEndId"].(string)
		txID, _ := item["transactionId"].(string)
		if item["operationType"] != "Pix in" || item["status"] != "Confirmado" || e2e == "" {
			continue
		}
		cents, err := apiclient.Cents(item["originalAmount"])
		if err != nil {
			continue
		}
		key := "e2e:" + e2e
		out = append(out, m.setAmount(ex, key, cents)...)
		if txID != "" {
			out = append(out, m.learnAlias(ex, "tx:"+acct+"|"+txID, key)...)
		}
	}
	return out
}

// learnAlias ties a transaction id to its end-to-end id, moving the refunds
// recorded under the transaction id to the original.
func (m *Model) learnAlias(ex *contract.Exchange, txKey, e2eKey string) []contract.Finding {
	m.alias.put(txKey, e2eKey)
	tx, ok := m.origs.get(txKey)
	if !ok {
		return nil
	}
	m.origs.remove(txKey)
	var out []contract.Finding
	for _, id := range tx.order {
		r := tx.refunds[id]
		status := ""
		if r.failed {
			status = "ERROR"
		}
		out = append(out, m.addRefund(ex, e2eKey, refundEvent{id: id, cents: r.cents, status: status, uncertain: r.uncertain, ex: r.ex})...)
	}
	return out
}

// cobPayments learns originals from a cob's pix[] (the Central Bank
// reference's list of payments received for it).
func (m *Model) cobPayments(ex *contract.Exchange, obj map[string]any) []contract.Finding {
	pix, _ := obj["pix"].([]any)
	var out []contract.Finding
	for _, p := range pix {
		e2e, _ := apiclient.Lookup(p, "endToEndId")
		valor, _ := apiclient.Lookup(p, "valor")
		s, _ := e2e.(string)
		cents, err := apiclient.Cents(valor)
		if s != "" && err == nil {
			out = append(out, m.setAmount(ex, "e2e:"+s, cents)...)
		}
	}
	return out
}

// sandboxEvidence learns originals from the sandbox control plane's
// payments (POST /_sandbox/pix-in, /_sandbox/payments, also under
// /_sandbox/workspaces/{id}/): the answer names the PIX and its amount.
func (m *Model) sandboxEvidence(ex *contract.Exchange) []contract.Finding {
	if ex.Method != http.MethodPost || !ex.Success() || ex.RespUnjudged != "" ||
		!(strings.HasSuffix(ex.Path, "/pix-in") || strings.HasSuffix(ex.Path, "/payments")) {
		return nil
	}
	v, err := ex.RespValue()
	if err != nil {
		return nil
	}
	e2e, _ := apiclient.Lookup(v, "endToEndId")
	amount, _ := apiclient.Lookup(v, "amount")
	s, _ := e2e.(string)
	cents, err := apiclient.Cents(amount)
	if s == "" || err != nil {
		return nil
	}
	return m.setAmount(ex, "e2e:"+s, cents)
}
