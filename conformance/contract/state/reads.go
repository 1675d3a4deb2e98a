package state

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
)

// Contradicting reads (state.read-contradicts, state.listing-transition): a
// later answer about a transaction against what earlier answers, ended
// before its request started, showed of it, on what the contract never lets
// change: a listing item's identity, its amounts and status once ended; a
// refund's valor, natureza and rtrId; a cob's revisao, and within one its
// valor.original and chave; a MED's endToEnd and original amount; a
// transfer's amount under one id (docs/proxy.md, "How they read the traffic").

// readRec is what earlier answers showed of one transaction: a handful of
// fields, kept in a slice rather than a map. The model holds one for each
// transaction of its window, and the proxy's collector marks them all at
// every cycle: a map's table of eight slots and its header would more than
// double what it marks (docs/performance-log.md, "What the proxy's tail
// follows").
type readRec struct {
	fields []namedValue
	ended  *seenValue // a listing item's ended status
}

type namedValue struct {
	name string
	seenValue
}

type seenValue struct {
	value string
	ex    uint64
	end   time.Time
}

// field returns what an earlier answer showed of the field name.
func (r *readRec) field(name string) (seenValue, bool) {
	for _, f := range r.fields {
		if f.name == name {
			return f.seenValue, true
		}
	}
	return seenValue{}, false
}

// set records v as what the field name showed.
func (r *readRec) set(name string, v seenValue) {
	for i := range r.fields {
		if r.fields[i].name == name {
			r.fields[i].seenValue = v
			return
		}
	}
	r.fields = append(r.fields, namedValue{name, v})
}

// readsOf returns the record of the transaction at key.
func (m *Model) readsOf(key string) *readRec {
	r, _ := m.reads.get(key)
	if r == nil {
		r = &readRec{}
		m.reads.put(key, r)
	}
	return r
}

// same compares a field that never changes with what an earlier answer
// showed, and returns the finding when it differs. what names the
// transaction in the message, field the field as the answer writes it.
func (r *readRec) same(ex *contract.Exchange, section, what, name, field, value string) []contract.Finding {
	prev, ok := r.field(name)
	if !ok || prev.value == value {
		if !ok {
			r.set(name, seenValue{value: value, ex: ex.Seq, end: ex.End})
		}
		return nil
	}
	if !prev.end.Before(ex.Start) {
		return nil // in flight together: the earlier answer may be the later
	}
	r.set(name, seenValue{value: value, ex: ex.Seq, end: ex.End})
	f := contract.NewFinding("state.read-contradicts", ex, section)
	f.Field, f.Expected, f.Seen, f.Related = field, prev.value+" (as exchange "+strconv.FormatUint(prev.ex, 10)+" showed)", value, []uint64{prev.ex}
	f.Message = fmt.Sprintf("%s: %s was %s in exchange %d and is now %s; it never changes", what, field, prev.value, prev.ex, value)
	return []contract.Finding{f}
}

// text renders a field's value for comparing: strings as they are, money
// as centavos (12.5 and 12.50 are one amount), anything else as JSON.
func text(v any, money bool) (string, bool) {
	switch s, isStr := v.(string); {
	case v == nil:
		return "", false
	case money:
		c, err := apiclient.Cents(v)
		return apiclient.FormatCents(c), err == nil
	case isStr:
		return strconv.Quote(s), true
	}
	return contract.Render(v), true
}

// fieldsSame compares the fields of obj named in fields (money when marked).
func (r *readRec) fieldsSame(ex *contract.Exchange, section, what, prefix string, obj any, fields map[string]bool) []contract.Finding {
	var out []contract.Finding
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		if s, ok := text(lookup(obj, name), fields[name]); ok {
			out = append(out, r.same(ex, section, what, name, prefix+name, s)...)
		}
	}
	return out
}

var (
	itemIdentity = map[string]bool{"externalId": false, "operationType": false, "movementType": false}
	itemAmounts  = map[string]bool{"originalAmount": true, "feeAmount": true, "finalAmount": true}
)

// listingReads compares each item of a transaction listing with earlier
// answers about it.
func (m *Model) listingReads(ex *contract.Exchange, acct string, obj map[string]any) []contract.Finding {
	data, _ := obj["data"].([]any)
	var out []contract.Finding
	for i, it := range data {
		item, _ := it.(map[string]any)
		id, _ := item["transactionId"].(string)
		if id == "" {
			continue
		}
		r := m.readsOf("item|" + acct + "|" + id)
		what, prefix := "transaction "+id, fmt.Sprintf("data[%d].", i)
		out = append(out, r.fieldsSame(ex, contract.ResListing, what, prefix, item, itemIdentity)...)
		status, _ := item["status"].(string)
		if status != "Confirmado" && status != "Error" && status != "Pendente" {
			continue
		}
		out = append(out, r.listingStatus(ex, what, prefix+"status", status)...)
		if status != "Pendente" {
			out = append(out, r.fieldsSame(ex, contract.ResListing, what, prefix, item, itemAmounts)...)
		}
	}
	return out
}

// listingStatus: an ended item stays as it ended.
func (r *readRec) listingStatus(ex *contract.Exchange, what, field, status string) []contract.Finding {
	prev := r.ended
	if prev == nil || !prev.end.Before(ex.Start) {
		if prev == nil && status != "Pendente" {
			r.ended = &seenValue{value: status, ex: ex.Seq, end: ex.End}
		}
		return nil
	}
	if prev.value == status {
		return nil
	}
	if status != "Pendente" {
		r.ended = &seenValue{value: status, ex: ex.Seq, end: ex.End}
	}
	f := contract.NewFinding("state.listing-transition", ex, "")
	f.Field, f.Expected, f.Seen, f.Related = field, prev.value+" (ended in exchange "+strconv.FormatUint(prev.ex, 10)+")", status, []uint64{prev.ex}
	f.Message = fmt.Sprintf("%s was %s in exchange %d and is now %s: an ended transaction does not change", what, prev.value, prev.ex, status)
	return []contract.Finding{f}
}

var refundConstant = map[string]bool{"valor": true, "natureza": false, "rtrId": false}

// refundReads compares a refund's answer with earlier ones.
func (m *Model) refundReads(ex *contract.Exchange, acct, e2eid, id string, obj map[string]any) []contract.Finding {
	r := m.readsOf("refund|" + acct + "|" + e2eid + "|" + id)
	return r.fieldsSame(ex, contract.ResRefund, "refund "+id+" of "+e2eid, "", obj, refundConstant)
}

// cobReads compares a cob's answer with earlier ones: revisao never lower;
// valor.original and chave as they were within one revisao.
func (m *Model) cobReads(ex *contract.Exchange, acct, txid string, obj map[string]any) []contract.Finding {
	rev, ok := obj["revisao"].(json.Number)
	n, err := strconv.ParseInt(string(rev), 10, 64)
	if !ok || err != nil {
		return nil
	}
	r, what := m.readsOf("cob|"+acct+"|"+txid), "cob "+txid
	prev, seen := r.field("revisao")
	switch p, _ := strconv.ParseInt(prev.value, 10, 64); {
	case seen && n < p && prev.end.Before(ex.Start):
		f := contract.NewFinding("state.read-contradicts", ex, contract.ResCob)
		f.Field, f.Expected, f.Seen, f.Related = "revisao", "at least "+prev.value+" (as exchange "+strconv.FormatUint(prev.ex, 10)+" showed)", string(rev), []uint64{prev.ex}
		f.Message = fmt.Sprintf("%s: revisao was %s in exchange %d and is now %s; a revision never goes back", what, prev.value, prev.ex, rev)
		return []contract.Finding{f}
	case seen && n < p:
		return nil
	case !seen || n > p: // a new revision: its fields as it shows them
		clear(r.fields)
		r.fields = append(r.fields[:0], namedValue{"revisao", seenValue{value: strconv.FormatInt(n, 10), ex: ex.Seq, end: ex.End}})
	}
	return r.fieldsSame(ex, contract.ResCob, what+" (revisao "+string(rev)+")", "", obj, map[string]bool{"valor.original": true, "chave": false})
}

var medConstant = map[string]bool{"endToEnd": false, "originalTransaction.amount": true}

// medReads compares each MED of a listing with earlier answers about it.
func (m *Model) medReads(ex *contract.Exchange, acct string, obj map[string]any) []contract.Finding {
	data, _ := obj["data"].([]any)
	var out []contract.Finding
	for i, it := range data {
		id, ok := lookup(it, "id").(json.Number)
		if !ok {
			continue
		}
		r := m.readsOf("med|" + acct + "|" + string(id))
		out = append(out, r.fieldsSame(ex, contract.ResMED, "MED "+string(id), fmt.Sprintf("data[%d].", i), it, medConstant)...)
	}
	return out
}

// transferReads: one transfer id answers one amount (a replay returns the
// transfer it first returned).
func (m *Model) transferReads(ex *contract.Exchange, acct string, obj map[string]any) []contract.Finding {
	id, ok := obj["id"].(json.Number)
	if !ok {
		return nil
	}
	r := m.readsOf("transfer|" + acct + "|" + string(id))
	return r.fieldsSame(ex, contract.ResTransfer, "transfer "+string(id), "", obj, map[string]bool{"payment.amount": true})
}
