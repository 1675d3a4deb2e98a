package core_test

import (
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// TestTransfer_Limits: POST /dict/pix is bound by the same per-transaction,
// daily and night limits as a cash-out, and both routes count toward one
// daily and one night total; a failed transfer gives its amount back.
func TestTransfer_Limits(t *testing.T) {
	p := newPixOut(t)
	a := p.account(20_000_00)
	key, doc := p.externalKey()
	set := func(l pix.Limits) {
		t.Helper()
		if _, err := p.env.Sim.SetAccountSettings(p.ctx, a.Account.ID, pix.Settings{Limits: l}); err != nil {
			t.Fatal(err)
		}
	}
	transfer := func(v string, sc scenarios.Scenario) pix.Code {
		_, _, err := p.env.Sim.CreateTransfer(p.ctx, a.Account.ID, transferReq(key, v), sc)
		return pix.ErrorCode(err)
	}
	cashout := func(v string) pix.Code {
		_, err := p.env.Sim.CreateCashOut(p.ctx, a.Account.ID, cashOut(v, key, "EMAIL", doc), scenarios.None)
		return pix.ErrorCode(err)
	}

	set(pix.Limits{PerTransaction: 100_00})
	if c := transfer("100.01", scenarios.None); c != pix.CodePixTransactionLimitExceeded {
		t.Fatalf("per-transaction: %q", c)
	}
	// The refusal names the amount by each route's field: payment.amount on
	// POST /dict/pix, value on the cash-out.
	if _, _, err := p.env.Sim.CreateTransfer(p.ctx, a.Account.ID, transferReq(key, "100.01"), scenarios.None); err == nil ||
		err.Error() != "payment.amount 100.01 is above the per-transaction limit 100.00" {
		t.Fatalf("transfer's refusal: %v", err)
	}
	if _, err := p.env.Sim.CreateCashOut(p.ctx, a.Account.ID, cashOut("100.01", key, "EMAIL", doc), scenarios.None); err == nil ||
		err.Error() != "value 100.01 is above the per-transaction limit 100.00" {
		t.Fatalf("cash-out's refusal: %v", err)
	}
	if c := transfer("100", scenarios.None); c != "" {
		t.Fatalf("at the per-transaction limit: %q", c)
	}

	set(pix.Limits{Daily: 300_00})
	if c := cashout("200"); c != "" {
		t.Fatalf("cash-out within the daily limit: %q", c)
	}
	// 100 transferred above + 200 cashed out = 300: the day is full for both routes.
	if c := transfer("0.01", scenarios.None); c != pix.CodePixDailyLimitExceeded {
		t.Fatalf("transfer after the cash-out filled the day: %q", c)
	}
	set(pix.Limits{Daily: 400_00})
	sc, _ := scenarios.Lookup("ORDER_REJECTED")
	if c := transfer("100", sc); c != "" {
		t.Fatalf("transfer within the daily limit: %q", c)
	}
	if c := cashout("0.01"); c != pix.CodePixDailyLimitExceeded {
		t.Fatalf("cash-out after the transfer filled the day: %q", c)
	}
	p.advance(2 * time.Second) // the rejected transfer fails and gives its 100 back
	if c := cashout("100"); c != "" {
		t.Fatalf("after a failed transfer the day's total must drop: %q", c)
	}

	// 20:30 in São Paulo is 23:30 UTC: an individual's night limit of 1,000.00.
	if l := pix.DefaultSettings(a.Account.Document).Limits; l.Night != 1_000_00 {
		t.Fatalf("account %s: default night limit %s, want 1000.00 (an individual)", a.Account.Document, l.Night)
	} else {
		set(l)
	}
	if _, err := p.env.Sim.SetClock(p.ctx, time.Date(2026, 3, 2, 23, 30, 0, 0, time.UTC), pix.ClockWaitWebhooks); err != nil {
		t.Fatal(err)
	}
	if c := transfer("5000", scenarios.None); c != pix.CodePixNightLimitExceeded {
		t.Fatalf("transfer of 5,000.00 at 20:30: %q", c)
	}
	if c := cashout("600"); c != "" {
		t.Fatalf("cash-out within the night limit: %q", c)
	}
	if c := transfer("400.01", scenarios.None); c != pix.CodePixNightLimitExceeded {
		t.Fatalf("transfer above what the cash-out left of the night: %q", c)
	}
	if c := transfer("400", scenarios.None); c != "" {
		t.Fatalf("transfer up to the night limit: %q", c)
	}
	p.invariants()
}
