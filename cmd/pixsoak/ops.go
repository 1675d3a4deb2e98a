package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/google/uuid"
)

// Operation kinds, as counted in the report.
const (
	kindCashOut  = "cash-out"
	kindTransfer = "dict-transfer"
	kindCashIn   = "cash-in"
	kindPayment  = "charge-payment"
	kindRefund   = "refund"
)

// op is an acknowledged operation: what the server answered 2xx to, and what
// the final check expects to find exactly once.
type op struct {
	kind    string
	account int64
	ref     string // externalId, x-idempotency-key or refund id
	uuid    string // the cash-out's transactionId (a UUID) when that was the answer
	txID    int64  // the numeric transaction id
	amount  int64  // centavos
	dest    int64  // the receiving sandbox account of a PIX out; 0 outside the sandbox
	route   string // refunds: the route used
	// chargeRef is the charge of a cash-in; refundOf the charge a refund is of.
	chargeRef, refundOf *charge
	failed              bool // refunds answered NAO_REALIZADO / ERROR at once
}

// charge is an acknowledged cash-in charge; paid ones can be refunded.
type charge struct {
	mu        sync.Mutex // held by the one refund in flight on this charge
	op        *op
	paid      bool
	e2e       string
	remaining int64 // amount minus acknowledged refunds that hold money
}

// destination is a PIX key a payment can go to.
type destination struct {
	key, name, doc string
	account        int64 // the sandbox account holding the key; 0 for other institutions
}

// book is every acknowledged operation of a run.
type book struct {
	mu      sync.Mutex
	ops     []*op
	charges map[int64][]*charge
}

func (b *book) add(o *op) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.ops = append(b.ops, o)
}

func (b *book) addCharge(ch *charge) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.charges[ch.op.account] = append(b.charges[ch.op.account], ch)
}

// refundable picks a paid charge of the account with money left to refund.
func (b *book) refundable(account int64, rng *rand.Rand) *charge {
	b.mu.Lock()
	defer b.mu.Unlock()
	var cands []*charge
	for _, ch := range b.charges[account] {
		if ch.paid {
			cands = append(cands, ch)
		}
	}
	if len(cands) == 0 {
		return nil
	}
	return cands[rng.IntN(len(cands))]
}

// worker runs mixed operations for one account until stop is closed.
type worker struct {
	id      int
	account int64
	rng     *rand.Rand
	s       *soak
	n       int
}

func (w *worker) run(ctx context.Context, stop <-chan struct{}) {
	for pause(ctx, stop, time.Duration(w.rng.Int64N(int64(w.s.cfg.Pause)+1))) {
		w.n++
		switch x := w.rng.IntN(100); {
		case x < 30:
			w.cashOut(ctx)
		case x < 60:
			w.transfer(ctx)
		case x < 80:
			w.cashIn(ctx)
		default:
			if ch := w.s.book.refundable(w.account, w.rng); ch != nil {
				w.refund(ctx, ch)
			} else {
				w.cashIn(ctx)
			}
		}
	}
}

// dest picks a destination other than the worker's own account.
func (w *worker) dest() destination {
	for {
		d := w.s.dests[w.rng.IntN(len(w.s.dests))]
		if d.account != w.account {
			return d
		}
	}
}

func (w *worker) ref(prefix string) string { return fmt.Sprintf("%s%dx%d", prefix, w.id, w.n) }

func (w *worker) cashOut(ctx context.Context) {
	d, amount, ext := w.dest(), int64(1+w.rng.IntN(2000)), w.ref("co")
	body := map[string]any{"value": brlNumber(amount), "externalId": ext, "description": "soak",
		"details": map[string]string{"key": d.key, "keyType": "EMAIL", "name": d.name, "document": d.doc}}
	out, ok := w.s.c.call(ctx, request{method: http.MethodPost, path: "/api/pix/cash-out", body: body, account: w.account}, true)
	if !ok {
		return
	}
	o := &op{kind: kindCashOut, account: w.account, ref: ext, amount: amount, dest: d.account}
	switch {
	case out.status == http.StatusCreated:
		o.uuid = out.str("transactionId")
		if out.str("externalId") != ext || out.str("status") != "PENDING" {
			w.s.rep.violation("cash-out %s: answer %s", ext, truncate(out.raw, 200))
		}
	case out.status == http.StatusBadRequest && out.code() == "PIX_DUPLICATE_EXTERNAL_ID":
		if !out.uncertain {
			w.s.rep.violation("cash-out %s: PIX_DUPLICATE_EXTERNAL_ID for an externalId never sent before", ext)
			return
		}
		// The first attempt committed before the kill: this answer acknowledges it.
		o.txID = mustAtoi(out.str("details.existingTransactionId"))
		w.s.rep.count(&w.s.rep.uncertainResolved)
		if o.txID == 0 {
			w.s.rep.violation("cash-out %s: duplicate answer without existingTransactionId: %s", ext, truncate(out.raw, 200))
			return
		}
	case out.status >= 400 && out.status < 500:
		w.s.rep.reject(kindCashOut, fmt.Sprint(out.status, " ", out.code()))
		return
	default:
		return
	}
	w.s.rep.ack(kindCashOut)
	w.s.book.add(o)
}

func (w *worker) transfer(ctx context.Context) {
	d, amount, key := w.dest(), int64(1+w.rng.IntN(2000)), uuid.NewString()
	req := request{method: http.MethodPost, path: "/dict/pix", account: w.account,
		header: map[string]string{"x-idempotency-key": key},
		body:   map[string]any{"pixKey": d.key, "payment": map[string]any{"currency": "BRL", "amount": brlNumber(amount)}}}
	out, ok := w.s.c.call(ctx, req, true)
	if !ok {
		return
	}
	if out.status != http.StatusOK {
		if out.status >= 400 && out.status < 500 {
			w.s.rep.reject(kindTransfer, fmt.Sprint(out.status, " ", out.code()))
		}
		return
	}
	o := &op{kind: kindTransfer, account: w.account, ref: key, amount: amount, dest: d.account, txID: mustAtoi(out.str("id"))}
	if o.txID == 0 {
		w.s.rep.violation("dict transfer %s: answer without id: %s", key, truncate(out.raw, 200))
		return
	}
	w.s.rep.ack(kindTransfer)
	w.s.book.add(o)
	// Spec "POST /dict/pix", rule 2: the same key again returns the same
	// transfer and creates no new one.
	if w.rng.IntN(4) == 0 {
		again, ok := w.s.c.call(ctx, req, true)
		if !ok {
			return
		}
		if again.status != http.StatusOK || mustAtoi(again.str("id")) != o.txID {
			w.s.rep.violation("dict transfer %s: replay answered %d %s, want 200 with id %d", key, again.status, truncate(again.raw, 200), o.txID)
			return
		}
		w.s.rep.count(&w.s.rep.replays)
	}
}

func (w *worker) cashIn(ctx context.Context) {
	amount, ext := int64(100+w.rng.IntN(5000)), w.ref("ci")
	body := map[string]any{
		"transaction": map[string]any{"value": brlNumber(amount), "description": "soak charge", "externalId": ext, "expirationTime": 7200},
		"payer":       map[string]string{"fullName": "Ciclano de Souza", "document": "52998224725"},
	}
	out, ok := w.s.c.call(ctx, request{method: http.MethodPost, path: "/api/pix/cash-in", body: body, account: w.account}, true)
	if !ok {
		return
	}
	o := &op{kind: kindCashIn, account: w.account, ref: ext, amount: amount}
	switch {
	case out.status == http.StatusCreated:
		o.txID = mustAtoi(out.str("transactionId"))
	case out.status == http.StatusBadRequest && out.code() == "PIX_DUPLICATE_EXTERNAL_ID":
		if !out.uncertain {
			w.s.rep.violation("cash-in %s: PIX_DUPLICATE_EXTERNAL_ID for an externalId never sent before", ext)
			return
		}
		o.txID = mustAtoi(out.str("details.existingTransactionId"))
		w.s.rep.count(&w.s.rep.uncertainResolved)
	case out.status >= 400 && out.status < 500:
		w.s.rep.reject(kindCashIn, fmt.Sprint(out.status, " ", out.code()))
		return
	default:
		return
	}
	if o.txID == 0 {
		w.s.rep.violation("cash-in %s: no transaction id in %s", ext, truncate(out.raw, 200))
		return
	}
	w.s.rep.ack(kindCashIn)
	w.s.book.add(o)
	ch := &charge{op: o, remaining: amount}
	o.chargeRef = ch
	w.s.book.addCharge(ch)
	if w.rng.IntN(100) < 15 {
		return // left unpaid: it expires at the end of the run
	}
	id := strconv.FormatInt(o.txID, 10)
	pay, ok := w.s.c.call(ctx, request{method: http.MethodPost, path: "/_sandbox/payments", body: map[string]string{"transactionId": id}}, true)
	if !ok {
		return
	}
	switch {
	case pay.status == http.StatusCreated:
		ch.e2e = pay.str("endToEndId")
	case pay.uncertain:
		// A 409 after a kill: the first payment may have committed.
		got, ok := w.s.c.call(ctx, request{method: http.MethodGet, path: "/_sandbox/transactions/" + id}, true)
		if !ok {
			return
		}
		if got.str("status") != "CONFIRMED" {
			w.s.rep.violation("payment of charge %s: answered %d after a kill and the charge is %s", id, pay.status, got.str("status"))
			return
		}
		ch.e2e = got.str("endToEndId")
		w.s.rep.count(&w.s.rep.uncertainResolved)
	default:
		w.s.rep.violation("payment of charge %s: %d %s", id, pay.status, truncate(pay.raw, 200))
		return
	}
	w.s.rep.ack(kindPayment)
	w.s.book.mu.Lock()
	ch.paid = true
	w.s.book.mu.Unlock()
}

func (w *worker) refund(ctx context.Context, ch *charge) {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.remaining <= 0 {
		return
	}
	over := w.rng.IntN(10) == 0
	amount := 1 + w.rng.Int64N(ch.remaining)
	if over {
		amount = ch.remaining + 1 + w.rng.Int64N(1000)
	}
	rid := w.ref("rf")
	var req request
	route := "PUT /pix/{e2eid}/devolucao/{id}"
	if w.rng.IntN(2) == 0 {
		req = request{method: http.MethodPut, path: "/pix/" + ch.e2e + "/devolucao/" + rid, account: w.account,
			body: map[string]string{"valor": brl(amount), "descricao": "soak"}}
	} else {
		route = "POST /api/pix/refund-in/{id}"
		req = request{method: http.MethodPost, path: "/api/pix/refund-in/" + strconv.FormatInt(ch.op.txID, 10), account: w.account,
			body: map[string]any{"refundValue": brlNumber(amount), "externalId": rid, "reason": "soak"}}
	}
	out, ok := w.s.c.call(ctx, req, true)
	if !ok {
		return
	}
	if out.status < 200 || out.status > 299 {
		if out.status == http.StatusBadRequest && over {
			w.s.rep.reject(kindRefund, "400 above the refundable balance")
			return
		}
		w.s.rep.violation("refund %s of %s (charge %d, %s left): %s answered %d %s", rid, brl(amount), ch.op.txID, brl(ch.remaining), route, out.status, truncate(out.raw, 200))
		return
	}
	if over {
		w.s.rep.violation("refund %s of %s accepted on charge %d with only %s left (%s)", rid, brl(amount), ch.op.txID, brl(ch.remaining), route)
	}
	o := &op{kind: kindRefund, account: w.account, ref: rid, amount: amount, route: route, refundOf: ch}
	switch st := out.str("status"); st {
	case "NAO_REALIZADO", "ERROR":
		o.failed = true
	default:
		ch.remaining -= amount // below zero only after the violation above
	}
	if id := out.str("transactionId"); id != "" {
		o.txID = mustAtoi(id)
	}
	w.s.rep.ack(kindRefund)
	w.s.book.add(o)
}

// numberOf reads a JSON number field as centavos.
func numberOf(v any) int64 {
	n, ok := v.(json.Number)
	if !ok {
		return 0
	}
	c, err := cents(n.String())
	if err != nil {
		return 0
	}
	return c
}
