package core_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/pixsandbox/pixsandbox/fixtures"
	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/badgerstore"
	"github.com/pixsandbox/pixsandbox/simulator/clock"
	"github.com/pixsandbox/pixsandbox/simulator/core"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

// TestSeed_WebhookTargets: a fixture directory's webhookTargets are registered
// when the account is seeded, and receive its webhooks.
func TestSeed_WebhookTargets(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../fixtures")); err != nil {
		t.Fatal(err)
	}
	s := newSink(t)
	path := filepath.Join(dir, "accounts.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	acct := doc["accounts"].([]any)[0].(map[string]any)
	acct["webhookTargets"] = []any{
		map[string]any{"url": s.srv.URL, "eventType": "cash_out", "headers": []any{map[string]any{"key": "X-Partner", "value": "p1"}}},
		map[string]any{"url": s.srv.URL, "eventType": "cash_out"}, // the same URL again: updates, does not add
	}
	raw, _ = json.Marshal(doc)
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := fixtures.Dir(dir)
	if err != nil {
		t.Fatal(err)
	}
	env := simulatortest.New(t, simulatortest.Options{Fixtures: set})
	p := &pixOut{t: t, env: env, ctx: t.Context()}
	ts, err := env.Sim.WebhookTargets(p.ctx, 1)
	if err != nil || len(ts) != 1 || ts[0].URL != s.srv.URL || !ts[0].Active {
		t.Fatalf("seeded targets = %+v, %v", ts, err)
	}
	key, _ := p.externalKey()
	if _, _, err := env.Sim.CreateTransfer(p.ctx, 1, pix.TransferRequest{IdempotencyKey: uuid.NewString(), PixKey: key, Currency: "BRL", Amount: "1"}, scenarios.None); err != nil {
		t.Fatal(err)
	}
	p.advance(2 * time.Second)
	if bodies, _ := s.received(); len(bodies) != 1 || bodies[0]["type"] != "TRANSFER" {
		t.Fatalf("webhooks = %v", bodies)
	}

	// A bad target in the fixtures stops the start with a message naming it.
	acct["webhookTargets"] = []any{map[string]any{"url": "ftp://x", "eventType": "cash_out"}}
	raw, _ = json.Marshal(doc)
	_ = os.WriteFile(path, raw, 0o644)
	if set, err = fixtures.Dir(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := simulatortestNew(set); err == nil {
		t.Fatal("a bad fixture webhook target must be refused")
	}
}

// simulatortestNew opens a simulator on set and reports its error instead of
// failing the test.
func simulatortestNew(set *fixtures.Set) (*core.Simulator, error) {
	st, err := badgerstore.Open(badgerstore.Options{})
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return core.New(context.Background(), core.Config{Store: st, ClockMode: clock.ModeVirtual, ClockStart: fixtures.Epoch, Fixtures: set})
}
