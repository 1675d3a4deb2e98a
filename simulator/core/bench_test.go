package core_test

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
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

// BenchmarkCreateCobParallel measures PUT /cob's core from 64 concurrent
// callers on a data dir with SyncWrites: the writer commits them in batches,
// so the per-operation figure is the operation's own work plus its share of a
// sync. Run it on one core to match the load run: -cpu 1.
func BenchmarkCreateCobParallel(b *testing.B) {
	ctx := context.Background()
	env := simulatortest.New(b, simulatortest.Options{Dir: b.TempDir()})
	a, err := env.Sim.CreateAccount(ctx, pix.NewAccount{Balance: pix.MaxCents})
	if err != nil {
		b.Fatal(err)
	}
	var n atomic.Int64
	lat := make([]time.Duration, b.N+1)
	b.SetParallelism(64)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			req := pix.CobRequest{TxID: fmt.Sprintf("benchcob%027d", i), Expiracao: "3600", Original: "25.00"}
			t0 := time.Now()
			if _, err := env.Sim.CreateCob(ctx, a.Account.ID, req, scenarios.None); err != nil {
				b.Fatal(err)
			}
			lat[i] = time.Since(t0)
		}
	})
	reportBatches(b, env)
	reportP99(b, lat[1:])
}

// reportBatches reports the writer's mean batch over the run.
func reportBatches(b *testing.B, env *simulatortest.Env) {
	st := env.Store.WriterStats()
	if st.Commits > 0 {
		b.ReportMetric(float64(st.Operations)/float64(st.Commits), "ops/batch")
	}
}

// reportP99 reports the 99th percentile of the operations' latencies: the
// tail a caller of the batched writer sees (batch waits, Badger memtable
// rotations, collector pauses), which ns/op alone hides.
func reportP99(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)*99/100])/float64(time.Millisecond), "p99-ms")
}

// BenchmarkCreateCashOutParallel is BenchmarkCreateCashOut from 64 concurrent
// callers over 8 accounts, and over one: batched commits, as under load.
func BenchmarkCreateCashOutParallel(b *testing.B) {
	for _, n := range []int{8, 1} {
		b.Run(fmt.Sprintf("accounts=%d", n), func(b *testing.B) { benchCashOuts(b, n) })
	}
}

func benchCashOuts(b *testing.B, accounts int) {
	ctx := context.Background()
	env := simulatortest.New(b, simulatortest.Options{Dir: b.TempDir()})
	var ids []pix.AccountID
	for range accounts {
		a, err := env.Sim.CreateAccount(ctx, pix.NewAccount{Balance: pix.MaxCents})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := env.Sim.SetAccountSettings(ctx, a.Account.ID, pix.Settings{}); err != nil {
			b.Fatal(err)
		}
		ids = append(ids, a.Account.ID)
	}
	var n atomic.Int64
	lat := make([]time.Duration, b.N+1)
	b.SetParallelism(64)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			req := pix.CashOutRequest{Value: "1", ExternalID: fmt.Sprint("bench-", i), Key: "someone@example.org", KeyType: "EMAIL", Name: "N", Document: "52998224725"}
			t0 := time.Now()
			if _, err := env.Sim.CreateCashOut(ctx, ids[i%int64(len(ids))], req, scenarios.None); err != nil {
				b.Fatal(err)
			}
			lat[i] = time.Since(t0)
		}
	})
	reportBatches(b, env)
	reportP99(b, lat[1:])
}
