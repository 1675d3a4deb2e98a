package core_test

import (
	"context"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

// TestReset: a reset drops what was made since the start (accounts, money
// moved, pending settlements, remembered tokens) and seeds the fixtures again,
// with the clock where it was and fixture tokens still valid.
func TestReset(t *testing.T) {
	p := &pixOut{t: t, env: simulatortest.New(t, simulatortest.Options{Dir: t.TempDir()}), ctx: context.Background()}
	sim := p.env.Sim
	fixtureBefore := p.balance(1)
	fixtureTok, err := sim.SandboxToken(p.ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	a := p.account(100_00)
	tok, err := sim.SandboxToken(p.ctx, a.Account.ID)
	if err != nil {
		t.Fatal(err)
	}
	if id, err := sim.Authenticate(p.ctx, tok.AccessToken); err != nil || id != a.Account.ID {
		t.Fatalf("sandbox token: account %d, %v", id, err)
	}
	key, doc := p.externalKey()
	if _, err := sim.CreateCashOut(p.ctx, 1, cashOut("10.00", key, "EMAIL", doc), scenarios.None); err != nil {
		t.Fatal(err)
	}
	if p.balance(1) == fixtureBefore {
		t.Fatal("the cash-out did not hold money")
	}
	p.advance(time.Minute) // moves the clock; the settlement runs
	if _, err := sim.CreateCashOut(p.ctx, 1, cashOut("5.00", key, "EMAIL", doc), scenarios.None); err != nil {
		t.Fatal(err) // left pending: its settlement job must go with the reset
	}
	clockBefore := sim.ClockNow().Now

	if err := sim.Reset(p.ctx); err != nil {
		t.Fatal(err)
	}

	if got := p.balance(1); got != fixtureBefore {
		t.Fatalf("fixture balance after reset = %+v, want %+v", got, fixtureBefore)
	}
	accts, err := sim.Accounts(p.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := len(p.env.Fixtures.Accounts); len(accts) != want {
		t.Fatalf("accounts after reset = %d, want the %d fixtures", len(accts), want)
	}
	for _, o := range accts {
		if len(o.ClientIDs) == 0 {
			t.Fatalf("fixture account %d lists no client id", o.Account.ID)
		}
	}
	if _, _, err := sim.Account(p.ctx, a.Account.ID); err == nil {
		t.Fatalf("account %d survived the reset", a.Account.ID)
	}
	if _, err := sim.Authenticate(p.ctx, tok.AccessToken); err == nil {
		t.Fatal("a token of an account dropped by the reset is still accepted")
	}
	if id, err := sim.Authenticate(p.ctx, fixtureTok.AccessToken); err != nil || id != 1 {
		t.Fatalf("fixture token after reset: account %d, %v", id, err)
	}
	if now := sim.ClockNow().Now; now.Before(clockBefore) {
		t.Fatalf("the clock moved back: %s before %s", now, clockBefore)
	}
	if txs, total, err := sim.ListTransactions(p.ctx, 1, pix.TransactionFilter{Page: 1, Size: 50}); err != nil || total != 0 || len(txs) != 0 {
		t.Fatalf("transactions after reset: %d (%d), %v", len(txs), total, err)
	}
	p.advance(time.Hour) // the dropped settlement must not run
	if got := p.balance(1); got != fixtureBefore {
		t.Fatalf("a job from before the reset moved money: %+v", got)
	}
	// The sandbox works as new: a created account and a cash-out.
	b := p.account(50_00)
	if b.Account.ID != a.Account.ID {
		t.Logf("account ids after reset start at %d (before: %d)", b.Account.ID, a.Account.ID)
	}
	if _, err := sim.CreateCashOut(p.ctx, 1, cashOut("1.00", key, "EMAIL", doc), scenarios.None); err != nil {
		t.Fatal(err)
	}
	p.advance(time.Minute)
	p.invariants()
}

func TestSandboxToken_UnknownAccount(t *testing.T) {
	p := newPixOut(t)
	if _, err := p.env.Sim.SandboxToken(p.ctx, 424242); !pix.Match(&pix.Error{Kind: pix.KindNotFound}, err) {
		t.Fatalf("err = %v, want not found", err)
	}
}
