package core_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

// Cash-outs from many callers on one processor share their commits. Each
// cash-out reads a snapshot before it submits its write; the first caller
// answered by a batch then hands its write straight to the waiting writer,
// which the scheduler runs next. Unless the writer lets the other answered
// callers submit first, it commits that one write nearly alone and batches
// alternate between full and almost empty (10–25 a batch here instead of
// 42–55, and a third of the throughput of cash-outs under load).
func TestBatching_CashOutsShareCommitsOnOneProcessor(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	ctx := context.Background()
	env := simulatortest.New(t, simulatortest.Options{Dir: t.TempDir()})
	var ids []pix.AccountID
	for range 8 {
		a, err := env.Sim.CreateAccount(ctx, pix.NewAccount{Balance: pix.MaxCents})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, a.Account.ID)
	}
	before := env.Store.WriterStats()
	const callers, each = 64, 12
	var wg sync.WaitGroup
	for c := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				req := pix.CashOutRequest{Value: "1", ExternalID: fmt.Sprint("batch-", c, "-", i), Key: "someone@example.org",
					KeyType: "EMAIL", Name: "N", Document: "52998224725"}
				if _, err := env.Sim.CreateCashOut(ctx, ids[c%len(ids)], req, scenarios.None); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	st := env.Store.WriterStats()
	commits, ops := st.Commits-before.Commits, st.Operations-before.Operations
	if mean := float64(ops) / float64(commits); mean < 30 {
		t.Fatalf("%d operations in %d commits (%.1f a batch) from %d callers: answered callers missed the next batch", ops, commits, mean, callers)
	}
}
