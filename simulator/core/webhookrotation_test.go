package core_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/pixsandbox/pixsandbox/fixtures"
	"github.com/pixsandbox/pixsandbox/simulator/badgerstore"
	"github.com/pixsandbox/pixsandbox/simulator/clock"
	"github.com/pixsandbox/pixsandbox/simulator/core"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// rawSink records each delivery's headers and exact body, answering with
// statuses in turn (then 200).
type rawSink struct {
	srv      *httptest.Server
	mu       sync.Mutex
	got      []verified
	bodies   [][]byte
	statuses []int
}

func newRawSink(t *testing.T, statuses ...int) *rawSink {
	s := &rawSink{statuses: statuses}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.got = append(s.got, verified{header: r.Header.Clone(), arrived: time.Now()})
		s.bodies = append(s.bodies, body)
		status := http.StatusOK
		if n := len(s.got); n <= len(s.statuses) {
			status = s.statuses[n-1]
		}
		s.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// last returns the latest delivery's headers and body; n says how many came.
func (s *rawSink) last(t *testing.T, n int) (http.Header, []byte) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.got) != n {
		t.Fatalf("%d deliveries arrived, want %d", len(s.got), n)
	}
	return s.got[n-1].header, s.bodies[n-1]
}

// rotationSim runs a simulator on the data dir dir (virtual clock) whose
// wall clock is the host's moved by shift.
type rotationSim struct {
	t     *testing.T
	dir   string
	shift *atomic.Int64 // nanoseconds added to the wall clock
	sim   *core.Simulator
	store *badgerstore.Store
}

func (r *rotationSim) start() {
	r.t.Helper()
	st, err := badgerstore.Open(badgerstore.Options{Dir: r.dir})
	if err != nil {
		r.t.Fatal(err)
	}
	sim, err := core.New(context.Background(), core.Config{Store: st, Logger: simulatortest.Logger(), ClockMode: clock.ModeVirtual,
		ClockStart: fixtures.Epoch, Seed: fixtures.Seed, Fixtures: simulatortest.MustFixtures(r.t),
		Wall: func() time.Time { return time.Now().Add(time.Duration(r.shift.Load())) }}) // wall time, moved by the test
	if err != nil {
		st.Close()
		r.t.Fatal(err)
	}
	sim.Start(context.Background())
	r.sim, r.store = sim, st
}

func (r *rotationSim) stop() {
	r.sim.Stop()
	if err := r.store.Close(); err != nil {
		r.t.Fatal(err)
	}
}

// pixOut drives the running simulator as the other tests of the package do.
func (r *rotationSim) pixOut() *pixOut {
	return &pixOut{t: r.t, env: &simulatortest.Env{Sim: r.sim, Store: r.store, Fixtures: simulatortest.MustFixtures(r.t)}, ctx: context.Background()}
}

// verifies reports whether the official Standard Webhooks library, at its
// default tolerance against this machine's clock, verifies a delivery with
// secret.
func verifies(t *testing.T, secret string, h http.Header, body []byte) error {
	t.Helper()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	return wh.Verify(body, h)
}

// TestWebhookRotation_OverlapVerifiesUnderBothSecrets is the acceptance test
// of secret rotation (Gap G-67): a delivery signed with the old secret and
// refused is retried after the rotation signed afresh with both secrets; the
// rotation survives a restart; during the overlap every delivery verifies
// with the official Standard Webhooks library under the old secret and under
// the new one; once the wall clock passes the overlap's end (the virtual
// clock does not decide it) only the new one verifies.
func TestWebhookRotation_OverlapVerifiesUnderBothSecrets(t *testing.T) {
	ctx := context.Background()
	r := &rotationSim{t: t, dir: t.TempDir(), shift: &atomic.Int64{}}
	r.start()
	a, err := r.sim.CreateAccount(ctx, pix.NewAccount{Balance: 1_000_00})
	if err != nil {
		t.Fatal(err)
	}
	old := webhook.NewSecret()
	sink := newRawSink(t, http.StatusServiceUnavailable) // the first attempt fails, so a retry comes after the rotation
	tg, _, err := r.sim.RegisterWebhookTarget(ctx, webhook.Target{AccountID: int64(a.Account.ID), URL: sink.srv.URL,
		EventType: webhook.EventCashOut, Active: true, Secret: old}, false)
	if err != nil {
		t.Fatal(err)
	}
	r.pixOut().settledCashOut(a.Account.ID)
	h, body := sink.last(t, 1)
	if sigs := strings.Fields(h.Get("webhook-signature")); len(sigs) != 1 || verifies(t, old, h, body) != nil {
		t.Fatalf("before the rotation: webhook-signature %q, want one v1 signature of the old secret", h.Get("webhook-signature"))
	}

	const overlap = 2 * time.Minute // short enough that a wall clock moved past it stays within the library's 5-minute tolerance
	ts, err := r.sim.RotateWebhookSecrets(ctx, []int64{tg.ID}, "", overlap)
	if err != nil || len(ts) != 1 {
		t.Fatal(ts, err)
	}
	rotated := ts[0]
	fresh := rotated.Secret
	if !webhook.ValidSecret(fresh) || fresh == old || rotated.PreviousSecret != old {
		t.Fatalf("rotated target: secret %q previous %q", fresh, rotated.PreviousSecret)
	}
	r.stop() // the old secret and the overlap's end are stored with the target
	r.start()
	defer r.stop()
	p := r.pixOut()

	p.advance(5 * time.Second) // the first retry of the Standard Webhooks schedule
	h, body = sink.last(t, 2)
	if sigs := strings.Fields(h.Get("webhook-signature")); len(sigs) != 2 {
		t.Fatalf("the retry after the rotation: webhook-signature %q, want two v1 signatures", h.Get("webhook-signature"))
	}
	for name, secret := range map[string]string{"old": old, "new": fresh} {
		if err := verifies(t, secret, h, body); err != nil {
			t.Errorf("the retry does not verify with the %s secret: %v", name, err)
		}
	}

	p.settledCashOut(a.Account.ID)
	h, body = sink.last(t, 3)
	for name, secret := range map[string]string{"old": old, "new": fresh} {
		if err := verifies(t, secret, h, body); err != nil {
			t.Errorf("a delivery during the overlap does not verify with the %s secret: %v", name, err)
		}
	}

	p.advance(30 * 24 * time.Hour) // simulation time: the overlap runs on
	p.settledCashOut(a.Account.ID)
	h, body = sink.last(t, 4)
	if err := verifies(t, old, h, body); err != nil {
		t.Errorf("after 30 days of simulation time the old secret no longer verifies: %v", err)
	}

	r.shift.Store(int64(overlap + time.Second)) // the wall clock passes the overlap's end
	p.settledCashOut(a.Account.ID)
	h, body = sink.last(t, 5)
	if err := verifies(t, fresh, h, body); err != nil {
		t.Errorf("after the overlap the new secret does not verify: %v", err)
	}
	if err := verifies(t, old, h, body); err == nil {
		t.Errorf("after the overlap the old secret still verifies (webhook-signature %q)", h.Get("webhook-signature"))
	}
}

// TestRotateWebhookSecret_Errors: an unknown target is 404; an overlap
// beyond its bounds, a secret that is not whsec_ and the target's current
// secret are 400 naming the field.
func TestRotateWebhookSecret_Errors(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{})
	ctx := context.Background()
	a, err := env.Sim.CreateAccount(ctx, pix.NewAccount{})
	if err != nil {
		t.Fatal(err)
	}
	secret := webhook.NewSecret()
	tg, _, err := env.Sim.RegisterWebhookTarget(ctx, webhook.Target{AccountID: int64(a.Account.ID), URL: "http://127.0.0.1:9/h",
		EventType: webhook.EventCashIn, Active: true, Secret: secret}, false)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		id      int64
		secret  string
		overlap time.Duration
		kind    pix.Kind
		field   string
	}{
		{"unknown target", tg.ID + 1000, "", time.Hour, pix.KindNotFound, ""},
		{"negative overlap", tg.ID, "", -time.Second, pix.KindInvalid, "overlap"},
		{"overlap beyond 7 days", tg.ID, "", webhook.MaxRotationOverlap + time.Second, pix.KindInvalid, "overlap"},
		{"not a whsec_ secret", tg.ID, "whsec_short", time.Hour, pix.KindInvalid, "secret"},
		{"the current secret", tg.ID, secret, time.Hour, pix.KindInvalid, "secret"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := env.Sim.RotateWebhookSecrets(ctx, []int64{tc.id}, tc.secret, tc.overlap)
			pe, ok := err.(*pix.Error)
			if !ok || pe.Kind != tc.kind || (tc.field != "" && (len(pe.Violations) != 1 || pe.Violations[0].Field != tc.field)) {
				t.Fatalf("error %#v, want %v naming %q", err, tc.kind, tc.field)
			}
		})
	}
	got, err := env.Sim.WebhookTargets(ctx, a.Account.ID)
	if err != nil || len(got) != 1 || got[0].Secret != secret || got[0].PreviousSecret != "" {
		t.Fatalf("a refused rotation changed the target: %+v %v", got, err)
	}
}
