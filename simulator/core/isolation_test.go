package core_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/clock"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// hanging is a receiver that accepts every delivery and answers only when the
// test ends (a tenant's receiver that never answers).
type hanging struct {
	srv   *httptest.Server
	begun atomic.Int64 // requests received
	open  atomic.Int64 // requests not ended (by the test's end or the sender's timeout)
}

func hangingReceiver(t *testing.T) *hanging {
	h := &hanging{}
	release := make(chan struct{})
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.begun.Add(1)
		h.open.Add(1)
		defer h.open.Add(-1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); h.srv.Close() })
	return h
}

// waitFor polls cond until it holds or the wall-time limit passes. The limit
// only turns a hang into a failure; nothing here is timed.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, limit)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// isolationSetup: account A's cash_out target hangs, account B has none; each
// makes a cash-out.
func isolationSetup(t *testing.T, p *pixOut) (a, b pix.CreatedAccount, h *hanging) {
	h = hangingReceiver(t)
	a, b = p.account(1000_00), p.account(1000_00)
	if _, _, err := p.env.Sim.RegisterWebhookTarget(p.ctx, webhook.Target{AccountID: int64(a.Account.ID), URL: h.srv.URL, EventType: "cash_out", Active: true}, false); err != nil {
		t.Fatal(err)
	}
	return a, b, h
}

// Under the virtual clock, a clock advance runs the settlements due on the
// way and answers while a tenant's receiver hangs on the webhook the
// settlement sent: the attempt is under way in the worker pool, not in the
// advance. Without the pool the advance would wait for the receiver.
func TestIsolation_AdvanceNeverWaitsOnAReceiver(t *testing.T) {
	p := newPixOut(t)
	a, b, h := isolationSetup(t, p)
	key, doc := p.externalKey()
	var outs []int64
	for _, acct := range []pix.CreatedAccount{a, b} {
		out, err := p.env.Sim.CreateCashOut(p.ctx, acct.Account.ID, cashOut("10", key, "EMAIL", doc), scenarios.None)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, out.ID)
	}
	done := make(chan pix.ClockReport, 1)
	go func() {
		rep, err := p.env.Sim.AdvanceClock(context.Background(), 5*time.Second, pix.ClockWaitJobs)
		if err != nil {
			t.Error(err)
		}
		done <- rep
	}()
	var rep pix.ClockReport
	select {
	case rep = <-done:
	case <-time.After(20 * time.Second): // only a hang reaches this
		t.Fatal("the clock advance waited on a receiver that never answers")
	}
	for _, id := range outs {
		if tx := p.tx(id); tx.Status != pix.TxStatusConfirmed {
			t.Fatalf("cash-out %d is %s after the advance", id, tx.Status)
		}
	}
	if rep.WebhooksPending != 1 {
		t.Fatalf("the advance answered with %d webhook attempts under way, want A's one", rep.WebhooksPending)
	}
	// The advance answered while the attempt was still open at the receiver
	// (an advance that waited for it would answer after its timeout ended it).
	waitFor(t, 10*time.Second, "the hanging receiver to get its delivery", func() bool { return h.begun.Load() == 1 })
	if h.open.Load() != 1 {
		t.Fatal("the attempt ended before the test let the receiver answer")
	}
}

// Under the real clock, account B's cash-out settles at its settlement delay
// while account A's receiver hangs on the webhooks of A's cash-outs.
func TestIsolation_RealClockSettlementNotDelayed(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{Clock: clock.ModeReal})
	p := &pixOut{t: t, env: env, ctx: context.Background()}
	a, b, h := isolationSetup(t, p)
	key, doc := p.externalKey()
	for range 6 { // more than the per-target slots: the rest queue for A's target only
		if _, err := env.Sim.CreateCashOut(p.ctx, a.Account.ID, cashOut("1", key, "EMAIL", doc), scenarios.None); err != nil {
			t.Fatal(err)
		}
	}
	// A's settlements run and their webhooks reach the hanging receiver.
	waitFor(t, 15*time.Second, "A's webhooks to reach its receiver", func() bool { return h.begun.Load() >= int64(webhook.DefaultPerTarget) })
	out, err := env.Sim.CreateCashOut(p.ctx, b.Account.ID, cashOut("10", key, "EMAIL", doc), scenarios.None)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 15*time.Second, "B's cash-out to settle", func() bool { return p.tx(out.ID).Status == pix.TxStatusConfirmed })
	// Settled at its delay (2 s), not after A's attempts time out (10 s
	// each); the margin is for a loaded test machine, the 2.5 s target is
	// measured by pixload's isolation row.
	if got := p.tx(out.ID); got.ProcessedAt.Sub(got.CreatedAt) > 5*time.Second {
		t.Fatalf("B's cash-out settled %s after acceptance on the simulation clock, want about 2 s", got.ProcessedAt.Sub(got.CreatedAt))
	}
	if n := h.begun.Load(); n != int64(webhook.DefaultPerTarget) {
		t.Fatalf("the hanging target holds %d attempts at once, want its %d slots", n, webhook.DefaultPerTarget)
	}
}

// An attempt under way when the simulator stops is made again on its next
// start, with the same webhook-id, and recorded once.
func TestWebhook_InFlightAttemptSurvivesStop(t *testing.T) {
	p := newPixOut(t)
	a, _, h := isolationSetup(t, p)
	key, doc := p.externalKey()
	out, err := p.env.Sim.CreateCashOut(p.ctx, a.Account.ID, cashOut("10", key, "EMAIL", doc), scenarios.None)
	if err != nil {
		t.Fatal(err)
	}
	p.advance(0) // nothing due yet
	if _, err := p.env.Sim.AdvanceClock(p.ctx, 2*time.Second, pix.ClockWaitJobs); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the first attempt", func() bool { return h.begun.Load() == 1 })
	p.env.Sim.Stop() // cuts the attempt short
	ds, err := p.env.Sim.WebhookDeliveries(p.ctx, a.Account.ID, out.ID, 10)
	if err != nil || len(ds) != 1 || ds[0].InFlight == 0 || len(ds[0].Attempts) != 0 {
		t.Fatalf("after the stop: %+v %v", ds, err)
	}
	p.env.Sim.Start(context.Background())
	waitFor(t, 10*time.Second, "the attempt made again after the start", func() bool { return h.begun.Load() == 2 })
}
