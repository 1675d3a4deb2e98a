package simulator_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/pix"

	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

// BenchmarkAdvance1000Jobs measures a clock advance that runs 1,000 due jobs in
// order (each a store read, a handler and a done record), on a data dir with
// SyncWrites, as `pixsandbox serve` runs.
func BenchmarkAdvance1000Jobs(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		env := simulatortest.Open(b, simulatortest.Options{Dir: b.TempDir()})
		for i := 0; i < 1000; i++ {
			if _, err := env.Sim.ScheduleMarker(ctx, time.Duration(i+1)*time.Second, ""); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		rep, err := env.Sim.AdvanceClock(ctx, time.Hour, pix.ClockWaitWebhooks)
		if err != nil || rep.JobsRun != 1000 {
			b.Fatalf("advance: %+v, %v", rep, err)
		}
		b.StopTimer()
		env.Close()
		b.StartTimer()
	}
}

// BenchmarkCreateCashOut measures accepting a cash-out on a data dir with
// SyncWrites: validation, the uniqueness and limit checks, the hold, the
// transaction with its indexes and the settlement job in one synced commit.
func BenchmarkCreateCashOut(b *testing.B) {
	ctx := context.Background()
	env := simulatortest.New(b, simulatortest.Options{Dir: b.TempDir()})
	a, err := env.Sim.CreateAccount(ctx, pix.NewAccount{Balance: pix.MaxCents})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := env.Sim.SetAccountSettings(ctx, a.Account.ID, pix.Settings{}); err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		i++
		req := pix.CashOutRequest{Value: "1", ExternalID: fmt.Sprint("bench-", i), Key: "someone@example.org", KeyType: "EMAIL", Name: "N", Document: "52998224725"}
		if _, err := env.Sim.CreateCashOut(ctx, a.Account.ID, req, scenarios.None); err != nil {
			b.Fatal(err)
		}
	}
}
