package core_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/pixsandbox/pixsandbox/fixtures"
	"github.com/pixsandbox/pixsandbox/simulator/clock"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/receivercheck"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// verifier is a partner's receiver that checks every delivery with the
// official Standard Webhooks Go library at its default tolerance (5 minutes
// against the receiver's own clock) and answers 401 when verification fails.
type verifier struct {
	wh  *standardwebhooks.Webhook
	srv *httptest.Server

	mu      sync.Mutex
	results []verified
}

type verified struct {
	err     error
	header  http.Header
	arrived time.Time // wall time
}

func newVerifier(t *testing.T, secret string) *verifier {
	t.Helper()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	v := &verifier{wh: wh}
	v.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		err := v.wh.Verify(body, r.Header)
		v.mu.Lock()
		v.results = append(v.results, verified{err: err, header: r.Header.Clone(), arrived: time.Now()})
		v.mu.Unlock()
		if err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(v.srv.Close)
	return v
}

// await waits (wall time, bounded) until n deliveries arrived and returns them.
func (v *verifier) await(t *testing.T, n int) []verified {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		v.mu.Lock()
		got := append([]verified(nil), v.results...)
		v.mu.Unlock()
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d deliveries arrived, want %d", len(got), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestWebhookSignature_VerifiesWithStandardWebhooks: deliveries verify with
// the official Standard Webhooks Go library at its default tolerance under
// the virtual clock (whose time is days away from the wall clock), under the
// real clock, and after a one-hour advance of either; the simulation time
// travels in X-Pixsandbox-Simulation-Time.
func TestWebhookSignature_VerifiesWithStandardWebhooks(t *testing.T) {
	for _, mode := range []clock.Mode{clock.ModeVirtual, clock.ModeReal} {
		t.Run(string(mode), func(t *testing.T) {
			env := simulatortest.New(t, simulatortest.Options{Clock: mode})
			ctx := context.Background()
			a, err := env.Sim.CreateAccount(ctx, pix.NewAccount{Balance: 1_000_00})
			if err != nil {
				t.Fatal(err)
			}
			secret := webhook.NewSecret()
			v := newVerifier(t, secret)
			if _, _, err := env.Sim.RegisterWebhookTarget(ctx, webhook.Target{AccountID: int64(a.Account.ID), URL: v.srv.URL,
				EventType: webhook.EventCashOut, Active: true, Secret: secret}, false); err != nil {
				t.Fatal(err)
			}
			p := &pixOut{t: t, env: env, ctx: ctx}
			p.settledCashOut(a.Account.ID)
			p.advance(time.Hour)
			p.settledCashOut(a.Account.ID)
			got := v.await(t, 2)
			for i, r := range got {
				if r.err != nil {
					t.Errorf("delivery %d does not verify with the Standard Webhooks library: %v (webhook-timestamp %s, arrived %s)",
						i, r.err, r.header.Get("webhook-timestamp"), r.arrived.UTC().Format(time.RFC3339))
				}
				sim, err := time.Parse(pix.TimeLayout, r.header.Get(webhook.SimulationTimeHeader))
				if err != nil {
					t.Fatalf("delivery %d: %s %q: %v", i, webhook.SimulationTimeHeader, r.header.Get(webhook.SimulationTimeHeader), err)
				}
				if i == 1 && mode == clock.ModeVirtual && sim.Before(fixtures.Epoch.Add(time.Hour)) {
					t.Errorf("delivery after the advance carries simulation time %s", sim)
				}
				ts, _ := strconv.ParseInt(r.header.Get("webhook-timestamp"), 10, 64)
				if d := r.arrived.Sub(time.Unix(ts, 0)); d < -time.Second || d > time.Minute {
					t.Errorf("delivery %d: webhook-timestamp %d is %s from the wall clock", i, ts, d)
				}
			}
		})
	}
}

// TestCheckReceiver_VerifiesWithStandardWebhooks: every delivery of the
// receiver checker's acceptance group verifies with the official library at
// its default tolerance, the slow case's stale timestamp included (the
// rejection group's deliveries are made not to verify).
func TestCheckReceiver_VerifiesWithStandardWebhooks(t *testing.T) {
	secret := webhook.NewSecret()
	v := newVerifier(t, secret)
	rep, err := receivercheck.Run(context.Background(), receivercheck.Config{URL: v.srv.URL, Secret: secret, Slow: time.Second,
		Cases: receivercheck.AcceptanceCases}, webhook.Dispatcher{})
	if err != nil {
		t.Fatal(err)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.results) == 0 {
		t.Fatal("no delivery arrived")
	}
	for i, r := range v.results {
		if r.err != nil {
			t.Errorf("delivery %d does not verify: %v", i, r.err)
		}
	}
	if rep.Failed != 0 {
		t.Errorf("report: %d failed", rep.Failed)
	}
}
