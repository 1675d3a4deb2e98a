package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
)

// TestMetrics_Simulation: after a cash-out settles and its webhook is
// delivered, /metrics carries the simulation's series.
func TestMetrics_Simulation(t *testing.T) {
	m := MustRunMain(t, nil)
	var hooks atomic.Int64
	local := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hooks.Add(1) }))
	t.Cleanup(local.Close)
	if st, b := call(t, "POST", m.URL()+"/_sandbox/webhook-targets", `{"accountId":1,"eventType":"cash_out","url":"`+local.URL+`/hook"}`, nil); st != 201 {
		t.Fatalf("target: %d %v", st, b)
	}
	token := fixtureToken(t, m)
	key, doc := externalEmailKey(t)
	if st, co := call(t, "POST", m.URL()+"/api/pix/cash-out", `{"value":10.25,"externalId":"metrics-1","details":{"key":"`+key+`","keyType":"EMAIL","name":"X","document":"`+doc+`"}}`,
		map[string]string{"Authorization": "Bearer " + token}); st != 201 {
		t.Fatalf("cash-out: %d %v", st, co)
	}
	scrape := func() string { return scrapeMetrics(t, m.URL()) }
	before := scrape()
	for _, want := range []string{`pixsandbox_transactions_created_total{kind="CASH_OUT"} 1`, `pixsandbox_agenda_jobs_pending{kind="pixout.settle"} 1`,
		`pixsandbox_clock_simulation_unix_seconds{mode="virtual"}`, "pixsandbox_journal_requests "} {
		if !strings.Contains(before, want) {
			t.Errorf("/metrics before settlement lacks %q", want)
		}
	}
	advance(t, m, "10s")
	apitest.WaitFor(t, "the CashOut delivery", func() bool { return hooks.Load() > 0 })
	apitest.WaitFor(t, "the attempt to be recorded", func() bool {
		return strings.Contains(scrape(), `pixsandbox_webhook_attempts_total{event="cash_out",outcome="2xx"} 1`)
	})
	after := scrape()
	for _, want := range []string{`pixsandbox_transactions_finished_total{kind="CASH_OUT",status="CONFIRMED"} 1`,
		`pixsandbox_money_moved_brl_total{kind="CASH_OUT"} 10.25`, `pixsandbox_webhook_attempt_duration_seconds_count{event="cash_out"} 1`,
		"pixsandbox_store_batches_total ", `pixsandbox_store_batch_commit_seconds_bucket{le="0.001"} `, "pixsandbox_store_batch_apply_seconds_count "} {
		if !strings.Contains(after, want) {
			t.Errorf("/metrics after settlement lacks %q", want)
		}
	}
	// Every batch the writer committed is timed once, in both histograms.
	value := func(name string) string {
		m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` (\S+)$`).FindStringSubmatch(after)
		if m == nil {
			t.Fatalf("/metrics lacks %s", name)
		}
		return m[1]
	}
	batches := value("pixsandbox_store_batches_total")
	if batches == "0" || value("pixsandbox_store_batch_commit_seconds_count") != batches || value("pixsandbox_store_batch_apply_seconds_count") != batches {
		t.Errorf("batches %s, commit durations %s, apply durations %s: want the same count, above 0", batches,
			value("pixsandbox_store_batch_commit_seconds_count"), value("pixsandbox_store_batch_apply_seconds_count"))
	}
	checkDashboard(t, before+after) // pending-job series exist only while jobs are pending

	// The activity series count every workspace: a PIX received in another
	// workspace adds to them, and stays counted once that workspace is gone.
	pixIn := func(text string) (created, moved float64) {
		for _, c := range []struct {
			name string
			into *float64
		}{{`pixsandbox_transactions_created_total{kind="PIX_IN"}`, &created}, {`pixsandbox_money_moved_brl_total{kind="PIX_IN"}`, &moved}} {
			if m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(c.name) + ` (\S+)$`).FindStringSubmatch(text); m != nil {
				*c.into, _ = strconv.ParseFloat(m[1], 64)
			}
		}
		return created, moved
	}
	c0, m0 := pixIn(scrape())
	w := createWorkspace(t, m, `{"name":"metrics"}`, nil)
	key = w.Accounts[0]["pixKeys"].([]any)[1].(map[string]any)["key"].(string)
	if st, paid := call(t, "POST", w.url(m, "/_sandbox/pix-in"), `{"key":"`+key+`","amount":50}`, nil); st != http.StatusCreated {
		t.Fatalf("PIX in to workspace %s: %d %v", w.ID, st, paid)
	}
	if c, mv := pixIn(scrape()); c != c0+1 || mv != m0+50 {
		t.Errorf("after a PIX of 50.00 in workspace %s: PIX_IN created %v, moved %v; want %v and %v", w.ID, c, mv, c0+1, m0+50)
	}
	if st, out := call(t, "DELETE", m.URL()+"/_sandbox/workspaces/"+w.ID, "", nil); st >= 300 {
		t.Fatalf("delete workspace %s: %d %v", w.ID, st, out)
	}
	apitest.WaitFor(t, "the workspace's keys to be dropped", func() bool { return m.spaces.Dropping() == 0 })
	if c, mv := pixIn(scrape()); c != c0+1 || mv != m0+50 {
		t.Errorf("after workspace %s was deleted: PIX_IN created %v, moved %v; want %v and %v still", w.ID, c, mv, c0+1, m0+50)
	}
}

// checkDashboard fails for a series docs/grafana-dashboard.json queries that
// the server does not export (histograms by their _bucket, _sum, _count).
func checkDashboard(t *testing.T, exported string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "grafana-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatalf("docs/grafana-dashboard.json: %v", err)
	}
	series := regexp.MustCompile(`pixsandbox_[a-z_]+`)
	n := 0
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			for _, name := range series.FindAllString(tg.Expr, -1) {
				n++
				if !regexp.MustCompile(`(?m)^` + name + `[{ ]`).MatchString(exported) {
					t.Errorf("dashboard panel %q queries %s, which /metrics does not export", p.Title, name)
				}
			}
		}
	}
	if n < 10 {
		t.Fatalf("the dashboard queries %d series", n)
	}
}

// scrapeMetrics returns the text of base's /metrics.
func scrapeMetrics(t *testing.T, base string) string {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// With --admin-token, /metrics needs it (a scrape shows every account's
// activity), unless --metrics-public says otherwise; without a token it is
// open, as the control plane is.
func TestMetrics_AdminToken(t *testing.T) {
	for _, c := range []struct {
		token       string
		public      bool
		header      string
		want        int
		description string
	}{
		{"", false, "", 200, "no admin token"},
		{"s3cret", false, "", 401, "admin token, none sent"},
		{"s3cret", false, "wrong", 401, "admin token, a wrong one sent"},
		{"s3cret", false, "s3cret", 200, "admin token sent"},
		{"s3cret", true, "", 200, "--metrics-public"},
	} {
		m := MustRunMain(t, func(cfg *Config) { cfg.AdminToken, cfg.MetricsPublic = c.token, c.public })
		h := map[string]string{}
		if c.header != "" {
			h["X-Sandbox-Admin-Token"] = c.header
		}
		st, body := rawCall(t, "GET", m.URL()+"/metrics", "", h)
		if st != c.want {
			t.Errorf("%s: /metrics answered %d, want %d", c.description, st, c.want)
		}
		if st == 200 && !strings.Contains(body, "pixsandbox_workspaces ") {
			t.Errorf("%s: /metrics lacks the workspace series", c.description)
		}
		if st == 401 && !strings.Contains(body, "--metrics-public") {
			t.Errorf("%s: the refusal does not say how to get in: %s", c.description, body)
		}
	}
}
