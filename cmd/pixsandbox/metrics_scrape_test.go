package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"regexp"
	"runtime"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

// TestMetrics_CountsFollowTheEngine: the transaction, money and job series
// say what the simulator did: cash-outs created, settled or failed, the
// money of those confirmed, the settlements pending; a refused request
// counts nothing; a reset empties the pending jobs and leaves the counters.
func TestMetrics_CountsFollowTheEngine(t *testing.T) {
	m := MustRunMain(t, nil)
	token := fixtureToken(t, m)
	key, doc := externalEmailKey(t)
	n := 0
	cashOut := func(value, scenario string, want int) {
		t.Helper()
		n++
		h := map[string]string{"Authorization": "Bearer " + token}
		if scenario != "" {
			h["X-Sandbox-Scenario"] = scenario
		}
		body := fmt.Sprintf(`{"value":%s,"externalId":"counts-%d","details":{"key":"%s","keyType":"EMAIL","name":"X","document":"%s"}}`, value, n, key, doc)
		if st, b := call(t, "POST", m.URL()+"/api/pix/cash-out", body, h); st != want {
			t.Fatalf("cash-out %d (%s): %d %v, want %d", n, scenario, st, b, want)
		}
	}
	for range 3 {
		cashOut("10.25", "", 201)
	}
	cashOut("1.50", "ORDER_REJECTED", 201)
	cashOut("2.50", "ORDER_REJECTED", 201)
	cashOut("99.99", "PIX_INSUFFICIENT_BALANCE", 400) // refused: nothing written

	scrape := func() string { return scrapeMetrics(t, m.URL()) }
	expectSeries(t, "before settlement", scrape(), map[string]string{
		`pixsandbox_transactions_created_total{kind="CASH_OUT"}`:                     "5",
		`pixsandbox_agenda_jobs_pending{kind="pixout.settle"}`:                       "5",
		`pixsandbox_transactions_finished_total{kind="CASH_OUT",status="CONFIRMED"}`: "",
		`pixsandbox_money_moved_brl_total{kind="CASH_OUT"}`:                          "",
	})

	advance(t, m, "10s")
	cashOut("4", "", 201) // pending
	expectSeries(t, "after settlement", scrape(), map[string]string{
		`pixsandbox_transactions_created_total{kind="CASH_OUT"}`:                     "6",
		`pixsandbox_transactions_finished_total{kind="CASH_OUT",status="CONFIRMED"}`: "3",
		`pixsandbox_transactions_finished_total{kind="CASH_OUT",status="ERROR"}`:     "2",
		`pixsandbox_money_moved_brl_total{kind="CASH_OUT"}`:                          "30.75",
		`pixsandbox_agenda_jobs_pending{kind="pixout.settle"}`:                       "1",
		"pixsandbox_agenda_jobs_due":                                                 "0",
		"pixsandbox_metrics_read_errors_total":                                       "0",
	})

	if st, b := call(t, "POST", m.URL()+"/_sandbox/reset", "", nil); st != 200 {
		t.Fatalf("reset: %d %v", st, b)
	}
	expectSeries(t, "after a reset", scrape(), map[string]string{
		`pixsandbox_transactions_created_total{kind="CASH_OUT"}`:                     "6",
		`pixsandbox_transactions_finished_total{kind="CASH_OUT",status="CONFIRMED"}`: "3",
		`pixsandbox_money_moved_brl_total{kind="CASH_OUT"}`:                          "30.75",
		`pixsandbox_agenda_jobs_pending{kind="pixout.settle"}`:                       "0",
	})
}

// expectSeries fails for each series of want whose value in the exposition
// text is not the one wanted ("" for a series that must be absent).
func expectSeries(t *testing.T, when, exposition string, want map[string]string) {
	t.Helper()
	for series, v := range want {
		got := ""
		if m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindStringSubmatch(exposition); m != nil {
			got = m[1]
		}
		if got != v {
			t.Errorf("%s: %s is %q, want %q", when, series, got, v)
		}
	}
}

// TestMetrics_ScrapeCostIsFlat: a scrape reads counts kept in memory, so it
// allocates under 1 MiB and no more with 5,000 transactions in the store
// than with 100.
func TestMetrics_ScrapeCostIsFlat(t *testing.T) {
	m := MustRunMain(t, nil)
	loadTransactions(t, m, 100)
	small := scrapeAlloc(t, m)
	loadTransactions(t, m, 4900)
	large := scrapeAlloc(t, m)
	t.Logf("a scrape allocates %d bytes with 100 transactions, %d with 5,000", small, large)
	if large >= 1<<20 {
		t.Errorf("a scrape allocates %d bytes with 5,000 transactions, want under 1 MiB", large)
	}
	// The slack covers the sizes of numbers and of the runtime's series;
	// under the race detector sync.Pool drops pooled buffers and gzip
	// writers at random, so a scrape may allocate them again.
	slack := uint64(32 << 10)
	if raceEnabled {
		slack = 160 << 10
	}
	if large > small+slack {
		t.Errorf("a scrape allocates %d bytes with 5,000 transactions against %d with 100: it grows with the data", large, small)
	}
}

// scrapeAlloc returns the bytes one GET /metrics allocates, as Prometheus
// asks for it (gzip): the least of a few scrapes, since the server's other
// goroutines may allocate meanwhile.
func scrapeAlloc(t *testing.T, m *Main) uint64 {
	t.Helper()
	scrapeOnce(t, m) // the pending jobs are counted on the first scrape
	least := uint64(1 << 62)
	for range 10 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		scrapeOnce(t, m)
		runtime.ReadMemStats(&after)
		least = min(least, after.TotalAlloc-before.TotalAlloc)
	}
	return least
}

// scrapeOnce serves one GET /metrics in process, as Prometheus asks for it.
func scrapeOnce(tb testing.TB, m *Main) {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/metrics", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	m.http.Handler.ServeHTTP(rec, req)
	if rec.Code != 200 {
		tb.Fatalf("/metrics: %d %s", rec.Code, rec.Body)
	}
}

// loadTransactions writes n cash-outs into the default workspace's store,
// one in ten PENDING, the others CONFIRMED, a thousand per store
// transaction: the data a scrape must not read.
func loadTransactions(tb testing.TB, m *Main, n int) {
	tb.Helper()
	now := m.sim.Clock().Now()
	const batch = 1000
	for start := 0; start < n; start += batch {
		err := m.store.Update(context.Background(), func(tx storage.Tx) error {
			for i := start; i < min(start+batch, n); i++ {
				id, err := tx.NextID("transaction")
				if err != nil {
					return err
				}
				st := pix.TxStatusConfirmed
				if i%10 == 0 {
					st = pix.TxStatusPending
				}
				t := pix.Transaction{ID: id, UUID: fmt.Sprintf("load-%d", id), AccountID: 1, Kind: pix.TxCashOut, Status: st, Amount: 1025,
					ExternalID: fmt.Sprintf("load-%d", id), CreatedAt: now.Add(-time.Duration(i) * time.Second)}
				if err := tx.PutTransaction(t); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkMetrics_Scrape measures one GET /metrics (gzip, as Prometheus
// asks) on a store of 100 and of 300,000 transactions: the time and the
// bytes allocated must not follow the data.
func BenchmarkMetrics_Scrape(b *testing.B) {
	for _, n := range []int{100, 300_000} {
		b.Run(fmt.Sprintf("transactions=%d", n), func(b *testing.B) {
			m := MustRunMain(b, nil)
			loadTransactions(b, m, n)
			scrapeOnce(b, m)
			b.ReportAllocs()
			for b.Loop() {
				scrapeOnce(b, m)
			}
		})
	}
}
