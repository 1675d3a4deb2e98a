package core_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/fixtures"
	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/agenda"
	"github.com/pixsandbox/pixsandbox/simulator/badgerstore"
	"github.com/pixsandbox/pixsandbox/simulator/clock"
	"github.com/pixsandbox/pixsandbox/simulator/core"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

// Concurrency tests: many goroutines call the simulator's Go API at once, against
// one account, while another goroutine advances the virtual clock (running
// settlements, refunds and split schedules in between). Each checks the effect
// happened exactly once per externalId, idempotency key, txid or (e2eid, refund
// id), and ends with CheckInvariants. Run them with -race.

// together runs fn(0) … fn(n-1) in n goroutines released at the same moment,
// and waits for all of them.
func together(n int, fn func(i int)) {
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	ready.Add(n)
	done.Add(n)
	for i := range n {
		go func() {
			defer done.Done()
			ready.Done()
			<-start
			fn(i)
		}()
	}
	ready.Wait()
	close(start)
	done.Wait()
}

// ticker advances the clock by step, again and again, until the returned stop
// is called (at most max times). Between steps it reads the account balances
// and reports any pocket below zero, and runs the invariant checker on a
// snapshot taken while the other goroutines are mid-flight.
func (p *pixOut) ticker(step time.Duration, max int, watch ...pix.AccountID) (stop func()) {
	quit, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		for i := 0; i < max; i++ {
			select {
			case <-quit:
				return
			default:
			}
			if _, err := p.env.Sim.AdvanceClock(p.ctx, step, pix.ClockWaitWebhooks); err != nil {
				p.t.Errorf("advance: %v", err)
				return
			}
			for _, id := range watch {
				b, err := p.env.Sim.AccountBalance(p.ctx, id)
				if err != nil {
					p.t.Errorf("balance: %v", err)
				} else if b.Balance.Available < 0 || b.Balance.Blocked < 0 {
					p.t.Errorf("account %d balance below zero: %+v", id, b.Balance)
				}
			}
			if rep, err := p.env.Sim.CheckInvariants(p.ctx); err != nil || len(rep.Violations) > 0 {
				p.t.Errorf("invariants mid-flight: %v %v", rep.Violations, err)
			}
		}
	}()
	return func() { close(quit); <-finished }
}

// TestConcurrent_CashOuts: 16 cash-outs against an account that covers only
// some of them, two requests per externalId, racing with settlements. Each
// externalId takes effect at most once, its repeat names the same transaction,
// no pocket goes below zero, and every accepted cash-out left the account once.
func TestConcurrent_CashOuts(t *testing.T) {
	p := newPixOut(t)
	a := p.account(55_00)
	if _, err := p.env.Sim.SetAccountSettings(p.ctx, a.Account.ID, pix.Settings{Limits: pix.DefaultSettings(a.Account.Document).Limits, Fee: 1_00}); err != nil {
		t.Fatal(err)
	}
	key, doc := p.externalKey()
	const n, perID = 16, 2
	reqs := make([]pix.CashOutRequest, n/perID)
	for i := range reqs {
		reqs[i] = cashOut("10", key, "EMAIL", doc) // 10.00 + 1.00 fee: five fit in 55.00
	}
	type answer struct {
		tx  pix.Transaction
		err error
	}
	answers := make([]answer, n)
	stop := p.ticker(time.Second, 20, a.Account.ID)
	together(n, func(i int) {
		tx, err := p.env.Sim.CreateCashOut(p.ctx, a.Account.ID, reqs[i/perID], scenarios.None)
		answers[i] = answer{tx, err}
	})
	stop()

	accepted := map[string]int64{}
	for i, ans := range answers {
		ext := reqs[i/perID].ExternalID
		switch code := pix.ErrorCode(ans.err); {
		case ans.err == nil:
			if prev, ok := accepted[ext]; ok {
				t.Fatalf("externalId %s accepted twice: transactions %d and %d", ext, prev, ans.tx.ID)
			}
			accepted[ext] = ans.tx.ID
		case code == pix.CodePixDuplicateExternalID, code == pix.CodePixInsufficientBalance:
		default:
			t.Fatalf("cash-out %d: %v", i, ans.err)
		}
	}
	for i, ans := range answers {
		if pix.ErrorCode(ans.err) != pix.CodePixDuplicateExternalID {
			continue
		}
		ext := reqs[i/perID].ExternalID
		existing := ans.err.(*pix.Error).Details["existingTransactionId"]
		if id, ok := accepted[ext]; !ok || existing != id {
			t.Fatalf("repeat of %s names transaction %v; the accepted one is %d (%v)", ext, existing, id, ok)
		}
	}
	if len(accepted) != 5 {
		t.Fatalf("%d cash-outs accepted, want the 5 that 55.00 covers", len(accepted))
	}
	p.advance(3 * time.Second)
	for ext, id := range accepted {
		if got := p.tx(id); got.Status != pix.TxStatusConfirmed || got.ExternalID != ext {
			t.Fatalf("cash-out %d = %+v", id, got)
		}
	}
	if b := p.balance(a.Account.ID); b != (pix.Balance{Available: 0}) {
		t.Fatalf("balance = %+v, want 5 × 11.00 gone and nothing left", b)
	}
	p.invariants()
}

// TestConcurrent_TransferIdempotencyKey: 16 requests with one idempotency key,
// racing with the transfer's settlement: one transfer, one hold, and every
// answer names it.
func TestConcurrent_TransferIdempotencyKey(t *testing.T) {
	p := newPixOut(t)
	a, b := p.account(50_00), p.account(0)
	req := transferReq(b.Account.PixKeys[1].Key, "12.34")
	const n = 16
	ids := make([]int64, n)
	var fresh atomic.Int32
	stop := p.ticker(time.Second, 10, a.Account.ID, b.Account.ID)
	together(n, func(i int) {
		tx, replayed, err := p.env.Sim.CreateTransfer(p.ctx, a.Account.ID, req, scenarios.None)
		if err != nil {
			t.Errorf("transfer %d: %v", i, err)
		}
		if !replayed {
			fresh.Add(1)
		}
		ids[i] = tx.ID
	})
	stop()
	for _, id := range ids {
		if id != ids[0] || id == 0 {
			t.Fatalf("answers name different transfers: %v", ids)
		}
	}
	if fresh.Load() != 1 {
		t.Fatalf("%d requests created a transfer, want 1", fresh.Load())
	}
	p.advance(3 * time.Second)
	if ba, bb := p.balance(a.Account.ID), p.balance(b.Account.ID); ba != (pix.Balance{Available: 37_66}) || bb != (pix.Balance{Available: 12_34}) {
		t.Fatalf("balances: payer %+v receiver %+v", ba, bb)
	}
	p.invariants()
}

// TestConcurrent_RefundsBothRoutes: refunds of one received PIX through both
// routes at once, racing with their settlement. Their sum never exceeds the
// original; one (e2eid, refund id) sent many times through both routes is one
// refund, and every answer is that refund.
func TestConcurrent_RefundsBothRoutes(t *testing.T) {
	p := newPixOut(t)
	a := p.account(0)
	o := p.received(a, "100")
	routes := []pix.RefundOriginal{{EndToEndID: o.EndToEndID}, {TransactionID: fmt.Sprint(o.ID)}, {TransactionID: o.UUID}}
	const distinct, repeats = 8, 8 // 8 refunds of 15.00 (6 fit beside the repeated 10.00) and 8 sends of one id
	type answer struct {
		r        pix.Refund
		replayed bool
		err      error
	}
	answers := make([]answer, distinct+repeats)
	stop := p.ticker(time.Second, 10, a.Account.ID)
	together(distinct+repeats, func(i int) {
		req := pix.RefundRequest{ID: fmt.Sprintf("c%d", i), Amount: 15_00, Nature: pix.NatureOriginal}
		if i >= distinct {
			req = pix.RefundRequest{ID: "same", Amount: 10_00, Nature: pix.NatureOriginal}
		}
		r, replayed, err := p.env.Sim.CreateRefund(p.ctx, a.Account.ID, routes[i%len(routes)], req, scenarios.None)
		answers[i] = answer{r, replayed, err}
	})
	stop()

	var sum pix.Cents
	refused := 0
	for i, ans := range answers[:distinct] {
		switch {
		case ans.err == nil:
			sum += ans.r.Amount
		case pix.ErrorCode(ans.err) == pix.CodeRefundExceedsBalance:
			refused++
		default:
			t.Fatalf("refund %d: %v", i, ans.err)
		}
	}
	fresh := 0
	for i, ans := range answers[distinct:] {
		if ans.err != nil {
			t.Fatalf("repeated refund %d: %v", i, ans.err)
		}
		if !ans.replayed {
			fresh++
		}
		if first := answers[distinct].r; ans.r.TransactionID != first.TransactionID || ans.r.RtrID != first.RtrID {
			t.Fatalf("repeated refund answered %+v, then %+v", first, ans.r)
		}
	}
	if fresh != 1 {
		t.Fatalf("refund id sent %d times created %d refunds, want 1", repeats, fresh)
	}
	sum += 10_00
	if sum != 100_00 || refused != 2 {
		t.Fatalf("refunded %s of 100.00, %d refused: want 10.00 + 6 × 15.00 and 2 refused", sum, refused)
	}
	p.advance(3 * time.Second)
	all, _, err := p.env.Sim.ListTransactions(p.ctx, a.Account.ID, pix.TransactionFilter{From: time.Unix(0, 0), To: p.env.Sim.Clock().Now(), Type: pix.TxTypeRefundIn, Page: 1, Size: 100})
	if err != nil || len(all) != 7 {
		t.Fatalf("REFUND_IN transactions: %d %v, want 7", len(all), err)
	}
	if b := p.balance(a.Account.ID); b != (pix.Balance{}) {
		t.Fatalf("balance = %+v, want all refunded", b)
	}
	p.invariants()
}

// TestConcurrent_ChargePaidTwice: one cash-in charge and one cob, each paid by
// several external payers at once and by two sandbox accounts' transfers naming
// its txid, racing with settlement: exactly one payment of each charge succeeds.
func TestConcurrent_ChargePaidTwice(t *testing.T) {
	p := newPixOut(t)
	receiver := p.account(0)
	payers := []pix.CreatedAccount{p.account(100_00), p.account(100_00)}
	ci, ch, err := p.env.Sim.CreateCashIn(p.ctx, receiver.Account.ID, cashInReq("twice-1", "30"), scenarios.None)
	if err != nil {
		t.Fatal(err)
	}
	cob, err := p.env.Sim.CreateCob(p.ctx, receiver.Account.ID, cobReq("cobPaidTwice0000000000000001", "40.00"), scenarios.None)
	if err != nil {
		t.Fatal(err)
	}
	const external = 8
	var paidCashIn, paidCob atomic.Int32
	transfers := make([]int64, 4)
	stop := p.ticker(time.Second, 10, receiver.Account.ID, payers[0].Account.ID, payers[1].Account.ID)
	together(2*external+len(transfers), func(i int) {
		switch {
		case i < external:
			_, err := p.env.Sim.Pay(p.ctx, pix.Payment{TransactionID: fmt.Sprint(ci.ID), PayerDocument: "11144477735"})
			if err == nil {
				paidCashIn.Add(1)
			} else if !pix.Match(&pix.Error{Kind: pix.KindConflict}, err) {
				t.Errorf("pay cash-in: %v", err)
			}
		case i < 2*external:
			_, err := p.env.Sim.Pay(p.ctx, pix.Payment{PixCode: cob.PixCode})
			if err == nil {
				paidCob.Add(1)
			} else if !pix.Match(&pix.Error{Kind: pix.KindConflict}, err) {
				t.Errorf("pay cob: %v", err)
			}
		default:
			j := i - 2*external
			req := transferReq(cob.Key, "40.00")
			req.TxID = cob.TxID
			if j%2 == 1 {
				req = transferReq(receiver.Account.PixKeys[1].Key, "30.00")
				req.TxID = ch.TxID
			}
			tr, _, err := p.env.Sim.CreateTransfer(p.ctx, payers[j/2].Account.ID, req, scenarios.None)
			if err != nil {
				t.Errorf("transfer: %v", err)
			}
			transfers[j] = tr.ID
		}
	})
	stop()
	p.advance(3 * time.Second)
	for j, id := range transfers {
		switch got := p.tx(id); {
		case got.Status == pix.TxStatusConfirmed && j%2 == 0:
			paidCob.Add(1)
		case got.Status == pix.TxStatusConfirmed:
			paidCashIn.Add(1)
		case got.Status != pix.TxStatusError || got.ErrorCode != pix.CodeOrderRejected:
			t.Fatalf("transfer %d = %+v", id, got)
		}
	}
	if paidCashIn.Load() != 1 || paidCob.Load() != 1 {
		t.Fatalf("cash-in charge paid %d times, cob %d times; want once each", paidCashIn.Load(), paidCob.Load())
	}
	if got := p.tx(ci.ID); got.Status != pix.TxStatusConfirmed {
		t.Fatalf("cash-in charge = %+v", got)
	}
	if c, _ := p.env.Sim.Cob(p.ctx, receiver.Account.ID, cob.TxID); c.Status != pix.CobStatusConcluida {
		t.Fatalf("cob = %+v", c)
	}
	if b := p.balance(receiver.Account.ID); b != (pix.Balance{Available: 70_00}) {
		t.Fatalf("receiver balance = %+v, want 30.00 + 40.00", b)
	}
	p.invariants()
}

// TestConcurrent_Splits: charges with immediate and scheduled splits paid at
// once, cash-outs draining the same account and clock advances running the
// split schedule: every split is paid exactly once (or ends in ERROR when the
// account could not cover it), and no pocket goes below zero.
func TestConcurrent_Splits(t *testing.T) {
	p := newPixOut(t)
	a := p.account(20_00)
	// The split schedule runs every minute, so clock advances run it while
	// charges are being paid.
	if _, err := p.env.Sim.SetAccountSettings(p.ctx, a.Account.ID, pix.Settings{SplitSchedule: "* * * * *"}); err != nil {
		t.Fatal(err)
	}
	key, doc := p.externalKey()
	split := func(value string, immediate bool) pix.SplitRequest {
		return pix.SplitRequest{PixKey: key, PixKeyType: "EMAIL", Name: "Parceiro", Document: doc, Type: "FIXED", Value: value, Immediate: immediate}
	}
	const charges, cashOuts = 8, 8
	ids := make([]int64, charges)
	for i := range ids {
		tx, _, err := p.env.Sim.CreateCashIn(p.ctx, a.Account.ID, cashInReq(fmt.Sprintf("split-%d", i), "10", split("3", true), split("2", false)), scenarios.None)
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = tx.ID
	}
	stop := p.ticker(30*time.Second, 30, a.Account.ID)
	together(charges+cashOuts, func(i int) {
		if i < charges {
			if _, err := p.env.Sim.Pay(p.ctx, pix.Payment{TransactionID: fmt.Sprint(ids[i])}); err != nil {
				t.Errorf("pay charge %d: %v", ids[i], err)
			}
			return
		}
		_, err := p.env.Sim.CreateCashOut(p.ctx, a.Account.ID, cashOut("6", key, "EMAIL", doc), scenarios.None)
		if err != nil && pix.ErrorCode(err) != pix.CodePixInsufficientBalance {
			t.Errorf("cash-out: %v", err)
		}
	})
	stop()
	p.advance(2 * time.Minute)
	splits := map[int64]int{}
	page, _, err := p.env.Sim.ListTransactions(p.ctx, a.Account.ID, pix.TransactionFilter{From: time.Unix(0, 0), To: p.env.Sim.Clock().Now(), Type: pix.TxTypeWithdraw, Page: 1, Size: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, tx := range page {
		if tx.Kind != pix.TxSplit {
			continue
		}
		splits[tx.RelatedID]++
		if tx.Status == pix.TxStatusPending {
			t.Fatalf("split %d still pending: %+v", tx.ID, tx)
		}
	}
	for _, id := range ids {
		if splits[id] != 2 {
			t.Fatalf("charge %d has %d split transactions, want 2 (%v)", id, splits[id], splits)
		}
	}
	p.invariants()
}

// pausingStore, once armed, holds the next look-up of a split run job until
// the test lets it go. The agenda makes that look-up right after the job's
// handler committed, before it records the job done or reschedules it: the
// moment is made wide enough to act in.
type pausingStore struct {
	*badgerstore.Store
	mu               sync.Mutex
	armed            bool
	reached, release chan struct{}
}

func (s *pausingStore) arm() (reached, release chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.armed, s.reached, s.release = true, make(chan struct{}), make(chan struct{})
	return s.reached, s.release
}

func (s *pausingStore) GetJob(ctx context.Context, id string) (agenda.Job, bool, error) {
	s.mu.Lock()
	pause := s.armed && strings.HasPrefix(id, "splits-")
	reached, release := s.reached, s.release
	if pause {
		s.armed = false
	}
	s.mu.Unlock()
	if pause {
		close(reached)
		<-release
	}
	return s.Store.GetJob(ctx, id)
}

// TestSplits_QueuedWhileRunFinishes: a charge paid while the account's split
// run is finishing (its handler committed, the agenda not yet done with it)
// still gets its scheduled split paid at a later run.
func TestSplits_QueuedWhileRunFinishes(t *testing.T) {
	ctx := context.Background()
	bs, err := badgerstore.Open(badgerstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := &pausingStore{Store: bs}
	sim, err := core.New(ctx, core.Config{Store: st, Logger: simulatortest.Logger(), ClockMode: clock.ModeVirtual,
		ClockStart: fixtures.Epoch, Seed: fixtures.Seed, Fixtures: simulatortest.MustFixtures(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer bs.Close()
	p := &pixOut{t: t, env: &simulatortest.Env{Sim: sim, Fixtures: simulatortest.MustFixtures(t)}, ctx: ctx}
	a := p.account(0)
	if _, err := sim.SetAccountSettings(ctx, a.Account.ID, pix.Settings{SplitSchedule: "* * * * *"}); err != nil {
		t.Fatal(err)
	}
	key, doc := p.externalKey()
	sp := pix.SplitRequest{PixKey: key, PixKeyType: "EMAIL", Name: "P", Document: doc, Type: "FIXED", Value: "2"}
	pay := func(ext string) int64 {
		tx, _, err := sim.CreateCashIn(ctx, a.Account.ID, cashInReq(ext, "10", sp), scenarios.None)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sim.Pay(ctx, pix.Payment{TransactionID: fmt.Sprint(tx.ID)}); err != nil {
			t.Fatal(err)
		}
		return tx.ID
	}
	first := pay("run-1") // schedules the run

	reached, release := st.arm()
	advanced := make(chan error)
	go func() { _, err := sim.AdvanceClock(ctx, time.Minute, pix.ClockWaitWebhooks); advanced <- err }()
	<-reached // the run paid the first split and committed
	second := pay("run-2")
	close(release)
	if err := <-advanced; err != nil {
		t.Fatal(err)
	}
	p.advance(3 * time.Minute)
	p.advance(3 * time.Second)

	page, _, err := sim.ListTransactions(ctx, a.Account.ID, pix.TransactionFilter{From: time.Unix(0, 0), To: sim.Clock().Now(), Type: pix.TxTypeWithdraw, Page: 1, Size: 10})
	if err != nil {
		t.Fatal(err)
	}
	paid := map[int64]int{}
	for _, tx := range page {
		paid[tx.RelatedID]++
	}
	if paid[first] != 1 || paid[second] != 1 {
		t.Fatalf("splits paid per charge: %v; want one for %d and one for %d", paid, first, second)
	}
	p.invariants()
}
