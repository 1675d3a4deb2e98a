package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// item is one transaction of a listing (GET /api/transactions).
type item struct {
	id                int64
	externalID        string
	status, operation string
	movement          string
	original, final   int64
	endToEndID        string
	account           int64
}

// verify ends the run: it lets every pending job run, kills and restarts the
// server once more, and checks the final state against the acknowledged
// operations.
func (s *soak) verify(ctx context.Context) error {
	// Past the charges' expiry (2 h) and the webhook retry schedule (about 2 h
	// 43 min): nothing may stay pending.
	start := time.Now() // wall time: progress report
	if err := s.drain(ctx); err != nil {
		return err
	}
	fmt.Fprintf(s.log, "clock moved past every expiry and retry; pending jobs ran in %v\n", time.Since(start).Round(time.Millisecond)) // wall time
	// The final state must itself survive a kill.
	if err := s.restart(ctx); err != nil {
		return err
	}
	s.invariants(ctx, "after the final restart")

	listed := map[int64]map[int64]*item{} // account → id → item
	byExt := map[int64]map[string][]*item{}
	total := 0
	for _, a := range accounts {
		items, err := s.list(ctx, a)
		if err != nil {
			return err
		}
		listed[a], byExt[a] = map[int64]*item{}, map[string][]*item{}
		for _, it := range items {
			if listed[a][it.id] != nil {
				s.rep.violation("account %d: transaction %d listed twice", a, it.id)
			}
			listed[a][it.id] = it
			if it.externalID != "" {
				byExt[a][it.externalID] = append(byExt[a][it.externalID], it)
			}
			if it.status == "Pendente" {
				s.rep.violation("account %d: transaction %d (%s) still PENDING after the clock moved 6 h", a, it.id, it.operation)
			}
		}
		total += len(items)
	}
	s.rep.mu.Lock()
	s.rep.checks = append(s.rep.checks, fmt.Sprintf("%d transactions listed across %d accounts; none listed twice, none left PENDING", total, len(accounts)))
	s.rep.mu.Unlock()
	for a, m := range byExt {
		for ext, its := range m {
			if len(its) > 1 {
				s.rep.violation("account %d: externalId %s on %d transactions", a, ext, len(its))
			}
		}
	}
	s.rep.checked("externalIds unique per account (cash-outs, charges, refunds)")
	for a, items := range listed {
		byE2E := map[string][]int64{}
		for _, it := range items {
			if it.endToEndID != "" {
				byE2E[it.endToEndID] = append(byE2E[it.endToEndID], it.id)
			}
		}
		for e2e, ids := range byE2E {
			if len(ids) > 1 {
				s.rep.violation("account %d: endToEndId %s on %d transactions %v", a, e2e, len(ids), ids)
			}
		}
	}
	s.rep.checked("endToEndIds unique per account")

	fmt.Fprintf(s.log, "final restart done, %d transactions listed at %v\n", total, time.Since(start).Round(time.Millisecond)) // wall time
	s.checkOps(ctx, listed, byExt)
	s.checkNothingInvented(listed)
	s.checkBalances(ctx, listed)
	s.checkRefunds(ctx)
	deliveries, err := s.checkWebhooks(ctx, listed)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.log, "checks done at %v\n", time.Since(start).Round(time.Millisecond)) // wall time
	s.invariants(ctx, "at the end")
	s.rep.checked("GET /_sandbox/invariants: %d checks (at start, after every restart, at the end), no violations reported",
		s.rep.invariantChecks.Load())
	findings, errLines := s.srv.stderrFindings()
	for _, f := range findings {
		s.rep.violation("%s", f)
	}
	s.rep.checked("server standard error: no data race, panic or fatal error in %d processes", s.rep.restarts.Load()+1)

	s.rep.mu.Lock()
	defer s.rep.mu.Unlock()
	s.rep.checks = append(s.rep.checks, fmt.Sprintf("final state verified after the last kill (%d kills in all)", s.rep.kills.Load()))
	s.transactions, s.deliveries, s.errLines = total, deliveries, len(errLines)
	s.rep.errorLines = errLines
	return nil
}

// drain lets every due job run, then moves the clock past the charges' expiry
// and the webhook retry schedule and lets those jobs run, until no delivery is
// open.
func (s *soak) drain(ctx context.Context) error {
	for round := 0; round < 3; round++ {
		if err := s.waitIdle(ctx); err != nil {
			return err
		}
		out, ok := s.c.call(ctx, request{method: http.MethodPost, path: "/_sandbox/clock/advance", body: map[string]any{"duration": "3h", "wait": "webhooks"}}, true)
		if !ok || out.status != http.StatusOK {
			return fmt.Errorf("final clock advance: %d %s", out.status, truncate(out.raw, 300))
		}
		s.rep.count(&s.rep.clockAdvances)
		if err := s.waitIdle(ctx); err != nil {
			return err
		}
		open, err := s.openDeliveries(ctx)
		if err != nil || open == 0 {
			return err
		}
	}
	return nil // what is still open is reported by checkWebhooks
}

// waitIdle waits until the server's job runner has run every job already due.
func (s *soak) waitIdle(ctx context.Context) error {
	deadline := time.Now().Add(10 * time.Minute) // wall time: a backlog drains at the runner's pace
	for {
		clk, ok := s.c.call(ctx, request{method: http.MethodGet, path: "/_sandbox/clock"}, true)
		if !ok || clk.status != http.StatusOK {
			return fmt.Errorf("clock: %d %s", clk.status, truncate(clk.raw, 300))
		}
		jobs, ok := s.c.call(ctx, request{method: http.MethodGet, path: "/_sandbox/jobs?limit=1"}, true)
		if !ok || jobs.status != http.StatusOK {
			return fmt.Errorf("jobs: %d %s", jobs.status, truncate(jobs.raw, 300))
		}
		now, err := time.Parse(time.RFC3339Nano, clk.str("now"))
		if err != nil {
			return fmt.Errorf("clock: %s: %v", truncate(clk.raw, 200), err)
		}
		data, _ := jobs.body["data"].([]any)
		if len(data) == 0 {
			return nil
		}
		first, _ := data[0].(map[string]any)
		due, err := time.Parse(time.RFC3339Nano, response{body: first}.str("due"))
		if err != nil {
			return fmt.Errorf("jobs: %s: %v", truncate(jobs.raw, 200), err)
		}
		if due.After(now) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("jobs due at %s still pending at %s after 10 minutes", due, now)
		}
		time.Sleep(100 * time.Millisecond) // wall time: polling
	}
}

// openDeliveries counts deliveries not yet delivered or failed.
func (s *soak) openDeliveries(ctx context.Context) (int, error) {
	n := 0
	for _, a := range accounts {
		ds, err := s.deliveriesOf(ctx, a, 0)
		if err != nil {
			return 0, err
		}
		for _, d := range ds {
			if st, _ := d["status"].(string); st == "scheduled" || st == "retrying" {
				n++
			}
		}
	}
	return n, nil
}

const deliveryLimit = 1000

// deliveriesOf lists an account's webhook deliveries, of one transaction when txID is set.
func (s *soak) deliveriesOf(ctx context.Context, a, txID int64) ([]map[string]any, error) {
	q := url.Values{"accountId": {strconv.FormatInt(a, 10)}, "limit": {strconv.Itoa(deliveryLimit)}}
	if txID != 0 {
		q.Set("transactionId", strconv.FormatInt(txID, 10))
	}
	out, ok := s.c.call(ctx, request{method: http.MethodGet, path: "/_sandbox/webhook-deliveries?" + q.Encode()}, true)
	if !ok || out.status != http.StatusOK {
		return nil, fmt.Errorf("webhook deliveries of account %d: %d %s", a, out.status, truncate(out.raw, 300))
	}
	raw, _ := out.body["data"].([]any)
	ds := make([]map[string]any, 0, len(raw))
	for _, d := range raw {
		if m, ok := d.(map[string]any); ok {
			ds = append(ds, m)
		}
	}
	return ds, nil
}

// list reads every transaction of an account, page by page.
func (s *soak) list(ctx context.Context, a int64) ([]*item, error) {
	var items []*item
	for page := 1; ; page++ {
		out, ok := s.c.call(ctx, request{method: http.MethodGet, account: a,
			path: "/api/transactions?size=100&page=" + strconv.Itoa(page)}, true)
		if !ok || out.status != http.StatusOK {
			return nil, fmt.Errorf("transactions of account %d, page %d: %d %s", a, page, out.status, truncate(out.raw, 300))
		}
		data, _ := out.body["data"].([]any)
		for _, d := range data {
			m, _ := d.(map[string]any)
			r := response{body: m}
			items = append(items, &item{id: mustAtoi(r.str("transactionId")), externalID: r.str("externalId"), status: r.str("status"),
				operation: r.str("operationType"), movement: r.str("movementType"), original: numberOf(m["originalAmount"]),
				final: numberOf(m["finalAmount"]), endToEndID: r.str("endToEndId"), account: a})
		}
		if out.str("metadata.hasNext") != "true" {
			if t := mustAtoi(out.str("metadata.total")); int(t) != len(items) {
				s.rep.violation("account %d: listing metadata.total %d but %d items read", a, t, len(items))
			}
			return items, nil
		}
	}
}

// checkOps: every acknowledged operation is listed exactly once, with its
// amount and a final status.
func (s *soak) checkOps(ctx context.Context, listed map[int64]map[int64]*item, byExt map[int64]map[string][]*item) {
	counts := map[string]int{}
	for _, o := range s.book.ops {
		counts[o.kind]++
		switch o.kind {
		case kindCashOut, kindCashIn, kindRefund:
			s.checkByExternalID(ctx, o, byExt)
		case kindTransfer:
			s.checkTransfer(ctx, o, listed)
		}
	}
	s.rep.checked("every acknowledged operation present exactly once with its amount and final status: %s", mapLine(counts))
}

// checkByExternalID checks a cash-out, cash-in or refund, found in the listing
// by its external id, and records its transaction id on o.
func (s *soak) checkByExternalID(ctx context.Context, o *op, byExt map[int64]map[string][]*item) {
	its := byExt[o.account][o.ref]
	if len(its) != 1 {
		s.rep.violation("%s %s of account %d (acknowledged): listed %d times, want exactly once", o.kind, o.ref, o.account, len(its))
		return
	}
	it := its[0]
	if o.txID != 0 && it.id != o.txID {
		s.rep.violation("%s %s: acknowledged as transaction %d but listed as %d", o.kind, o.ref, o.txID, it.id)
	}
	if o.uuid != "" {
		got, ok := s.c.call(ctx, request{method: http.MethodGet, path: "/_sandbox/transactions/" + o.uuid}, true)
		if ok && (got.status != http.StatusOK || mustAtoi(got.str("id")) != it.id) {
			s.rep.violation("cash-out %s: transactionId %s resolves to %d %s, listed as %d", o.ref, o.uuid, got.status, truncate(got.raw, 200), it.id)
		}
	}
	o.txID = it.id
	if it.original != o.amount {
		s.rep.violation("%s %s: amount %s listed, %s acknowledged", o.kind, o.ref, brl(it.original), brl(o.amount))
	}
	switch {
	case o.kind == kindCashIn && o.charge() != nil && o.charge().paid && it.status != "Confirmado":
		s.rep.violation("charge %s (paid, acknowledged): status %s", o.ref, it.status)
	case o.kind == kindCashIn && (o.charge() == nil || !o.charge().paid) && it.status == "Confirmado":
		s.rep.violation("charge %s: never paid but %s", o.ref, it.status)
	case o.kind == kindRefund && o.failed && it.status != "Error":
		s.rep.violation("refund %s: answered NAO_REALIZADO but listed %s", o.ref, it.status)
	}
}

// checkTransfer checks a DICT transfer, found in the listing by its
// transaction id.
func (s *soak) checkTransfer(ctx context.Context, o *op, listed map[int64]map[int64]*item) {
	it := listed[o.account][o.txID]
	if it == nil {
		s.rep.violation("dict transfer %s (acknowledged as %d) of account %d: not listed", o.ref, o.txID, o.account)
		return
	}
	if it.original != o.amount {
		s.rep.violation("dict transfer %s: amount %s listed, %s acknowledged", o.ref, brl(it.original), brl(o.amount))
	}
	got, ok := s.c.call(ctx, request{method: http.MethodGet, path: "/_sandbox/transactions/" + strconv.FormatInt(o.txID, 10)}, true)
	if ok && (got.status != http.StatusOK || got.str("idempotencyKey") != o.ref) {
		s.rep.violation("dict transfer %d: idempotency key %q, want %s", o.txID, got.str("idempotencyKey"), o.ref)
	}
}

// charge returns the charge of a cash-in op.
func (o *op) charge() *charge { return o.chargeRef }

// checkNothingInvented: every PIX out, charge and refund listed was
// acknowledged, and each PIX received from another sandbox account matches a
// confirmed PIX out to it.
func (s *soak) checkNothingInvented(listed map[int64]map[int64]*item) {
	known := map[int64]map[int64]*op{}
	for _, a := range accounts {
		known[a] = map[int64]*op{}
	}
	wantIn := map[int64]int{}
	for _, o := range s.book.ops {
		if o.txID != 0 {
			known[o.account][o.txID] = o
		}
		if (o.kind == kindCashOut || o.kind == kindTransfer) && o.dest != 0 {
			if it := listed[o.account][o.txID]; it != nil && it.status == "Confirmado" {
				wantIn[o.dest]++
			}
		}
	}
	received := 0
	for a, items := range listed {
		gotIn := 0
		for id, it := range items {
			if known[a][id] != nil {
				continue
			}
			if it.operation == "Pix in" && it.externalID == "" {
				gotIn++
				continue
			}
			s.rep.violation("account %d: transaction %d (%s %s, externalId %q) was never acknowledged", a, id, it.operation, it.status, it.externalID)
		}
		if gotIn != wantIn[a] {
			s.rep.violation("account %d: %d PIX received from sandbox accounts, want %d (one per confirmed PIX out to it)", a, gotIn, wantIn[a])
		}
		received += gotIn
	}
	s.rep.checked("no transaction that was not acknowledged; %d PIX received inside the sandbox, one per confirmed PIX out to a sandbox key", received)
}

// checkBalances: available and blocked never negative, nothing blocked at the
// end, and each balance equals the opening balance plus the confirmed
// transactions of the listing.
func (s *soak) checkBalances(ctx context.Context, listed map[int64]map[int64]*item) {
	for _, a := range accounts {
		net, blocked, err := s.balance(ctx, a)
		if err != nil {
			s.rep.violation("%v", err)
			continue
		}
		if net < 0 || blocked < 0 {
			s.rep.violation("account %d: negative balance: available %s, blocked %s", a, brl(net), brl(blocked))
		}
		if blocked != 0 {
			s.rep.violation("account %d: %s still blocked with nothing pending", a, brl(blocked))
		}
		want := s.initial[a]
		for _, it := range listed[a] {
			if it.status != "Confirmado" {
				continue
			}
			if it.movement == "CREDIT" {
				want += it.final
			} else {
				want -= it.final
			}
		}
		if net+blocked != want {
			s.rep.violation("account %d: balance %s, but opening balance plus confirmed transactions gives %s", a, brl(net+blocked), brl(want))
		}
	}
	s.rep.checked("balances: never negative, nothing blocked at the end, each equal to its opening balance plus its confirmed transactions")
}

// checkRefunds: each acknowledged refund reads back with its amount and a final
// status, and the refunds of a PIX never add up to more than it.
func (s *soak) checkRefunds(ctx context.Context) {
	sums := map[*charge]int64{}
	n := 0
	for _, o := range s.book.ops {
		if o.kind != kindRefund {
			continue
		}
		n++
		ch := o.refundOf
		got, ok := s.c.call(ctx, request{method: http.MethodGet, account: o.account, path: "/pix/" + ch.e2e + "/devolucao/" + o.ref}, true)
		if !ok {
			continue
		}
		if got.status != http.StatusOK {
			s.rep.violation("refund %s of charge %d (sent on %s): GET answered %d %s", o.ref, ch.op.txID, o.route, got.status, truncate(got.raw, 200))
			continue
		}
		v, _ := cents(got.str("valor"))
		if v != o.amount {
			s.rep.violation("refund %s: valor %s, acknowledged %s", o.ref, got.str("valor"), brl(o.amount))
		}
		switch got.str("status") {
		case "DEVOLVIDO":
			sums[ch] += v
		case "NAO_REALIZADO":
		default:
			s.rep.violation("refund %s: status %s at the end", o.ref, got.str("status"))
		}
	}
	for ch, sum := range sums {
		if sum > ch.op.amount {
			s.rep.violation("charge %d: refunds total %s, above the original %s", ch.op.txID, brl(sum), brl(ch.op.amount))
		}
	}
	s.rep.checked("%d refunds read back (GET /pix/{e2eid}/devolucao/{id}) with their amount and a final status; refunds of each of %d PIX never above the original", n, len(sums))
}

// checkWebhooks: every delivery the server planned ended delivered and its
// event id reached the receiver; every transaction has at least one delivery.
func (s *soak) checkWebhooks(ctx context.Context, listed map[int64]map[int64]*item) (int, error) {
	total := 0
	for _, a := range accounts {
		ds, err := s.deliveriesOf(ctx, a, 0)
		if err != nil {
			return 0, err
		}
		if len(ds) >= deliveryLimit { // too many for one page: ask per transaction
			ds = ds[:0]
			for id := range listed[a] {
				more, err := s.deliveriesOf(ctx, a, id)
				if err != nil {
					return 0, err
				}
				ds = append(ds, more...)
			}
		}
		perTx := map[int64]int{}
		for _, d := range ds {
			r := response{body: d}
			perTx[mustAtoi(r.str("transactionId"))]++
			if st := r.str("status"); st != "delivered" {
				s.rep.violation("account %d: delivery %s (event %s, transaction %s) is %s", a, r.str("id"), r.str("eventType"), r.str("transactionId"), st)
			}
			if s.recv.received(r.str("eventId")) == 0 {
				s.rep.violation("account %d: event %s (transaction %s) never reached the receiver", a, r.str("eventId"), r.str("transactionId"))
			}
		}
		for id, it := range listed[a] {
			if perTx[id] == 0 {
				s.rep.violation("account %d: transaction %d (%s %s) has no webhook delivery", a, id, it.operation, it.status)
			}
		}
		total += len(ds)
	}
	s.rep.checked("%d webhook deliveries all delivered, each event id received at least once; every transaction notified", total)
	return total, nil
}
