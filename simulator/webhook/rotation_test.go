package webhook

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

func TestRotateSecret(t *testing.T) {
	a, b, c := NewSecret(), NewSecret(), NewSecret()
	wall := t0.Add(400 * 24 * time.Hour)
	tg := validTarget()
	tg.Secret = a

	r := RotateSecret(tg, b, wall, DefaultRotationOverlap)
	if r.Secret != b || r.PreviousSecret != a || !r.PreviousSecretUntil.Equal(wall.Add(24*time.Hour)) {
		t.Fatalf("first rotation: secret %q previous %q until %s", r.Secret, r.PreviousSecret, r.PreviousSecretUntil)
	}
	// A second rotation during the overlap keeps the secret it replaces, and
	// drops the oldest: at most two secrets.
	r2 := RotateSecret(r, c, wall.Add(time.Hour), time.Hour)
	if r2.Secret != c || r2.PreviousSecret != b || !r2.PreviousSecretUntil.Equal(wall.Add(2*time.Hour)) {
		t.Fatalf("second rotation: secret %q previous %q until %s", r2.Secret, r2.PreviousSecret, r2.PreviousSecretUntil)
	}
	// No overlap: the old secret stops at once.
	if r3 := RotateSecret(r, c, wall, 0); r3.Secret != c || r3.PreviousSecret != "" || !r3.PreviousSecretUntil.IsZero() {
		t.Fatalf("overlap 0: %+v", r3)
	}
	// An unsigned target gets its first secret, with nothing to overlap.
	if r4 := RotateSecret(validTarget(), a, wall, time.Hour); r4.Secret != a || r4.PreviousSecret != "" || !r4.PreviousSecretUntil.IsZero() {
		t.Fatalf("unsigned target: %+v", r4)
	}
}

func TestCheckOverlap(t *testing.T) {
	for _, d := range []time.Duration{0, time.Nanosecond, DefaultRotationOverlap, MaxRotationOverlap} {
		if err := CheckOverlap(d); err != nil {
			t.Errorf("CheckOverlap(%s) = %v", d, err)
		}
	}
	for _, d := range []time.Duration{-time.Nanosecond, MaxRotationOverlap + time.Nanosecond} {
		if got := violations(t, CheckOverlap(d)); len(got) != 1 || got[0] != "overlap" {
			t.Errorf("CheckOverlap(%s): violations %v, want overlap", d, got)
		}
	}
}

// During a rotation's overlap an attempt carries "v1,<new> v1,<old>", and the
// official library verifies it under either secret; from the overlap's end
// on (the wall clock, not the simulation time), the new signature alone.
func TestSendDuringRotation(t *testing.T) {
	old, fresh := NewSecret(), NewSecret()
	tg := validTarget()
	tg.Secret = old
	wall := time.Now() // wall time: the official library checks the timestamp against it
	tg = RotateSecret(tg, fresh, wall, time.Minute)

	rcv := newReceiver(t)
	d := OneOff(testEvent(), rcv.srv.URL, t0)
	d.TargetID = 1
	d = d.WithSecretsOf(tg)
	body := []byte(`{"type":"RECEIVE","data":{"id":1}}`)
	at := wall
	dp := Dispatcher{Wall: func() time.Time { return at }}
	verifier := func(secret string) *standardwebhooks.Webhook {
		wh, err := standardwebhooks.NewWebhook(secret)
		if err != nil {
			t.Fatal(err)
		}
		return wh
	}
	send := func(n int) received {
		t.Helper()
		if a := dp.Send(context.Background(), d, "", body, int64(n), n, t0.Add(-time.Hour)); a.StatusCode != http.StatusOK {
			t.Fatalf("attempt %d: %+v", n, a)
		}
		return rcv.requests()[n-1]
	}

	r := send(1)
	sigs := strings.Fields(r.header.Get("Webhook-Signature"))
	wantNew, _ := sign(fresh, d.EventID, at, body)
	wantOld, _ := sign(old, d.EventID, at, body)
	if len(sigs) != 2 || sigs[0] != wantNew || sigs[1] != wantOld {
		t.Fatalf("during the overlap webhook-signature %q, want %q then %q", r.header.Get("Webhook-Signature"), wantNew, wantOld)
	}
	for name, secret := range map[string]string{"old": old, "new": fresh} {
		if err := verifier(secret).Verify(r.body, r.header); err != nil {
			t.Errorf("during the overlap the %s secret does not verify: %v", name, err)
		}
	}

	at = tg.PreviousSecretUntil // the overlap's end: the new secret alone
	r = send(2)
	if got := r.header.Get("Webhook-Signature"); strings.Contains(got, " ") || !strings.HasPrefix(got, "v1,") {
		t.Fatalf("after the overlap webhook-signature %q, want one v1 signature", got)
	}
	if err := verifier(fresh).Verify(r.body, r.header); err != nil {
		t.Errorf("after the overlap the new secret does not verify: %v", err)
	}
	if err := verifier(old).Verify(r.body, r.header); err == nil {
		t.Error("after the overlap the old secret still verifies")
	}
}

// A secret set by registering a URL again replaces every secret at once:
// only a rotation keeps the old one; registering the same secret again
// keeps the overlap running.
func TestRegister_SecretEndsRotation(t *testing.T) {
	old, fresh, set := NewSecret(), NewSecret(), NewSecret()
	tg := validTarget()
	tg.ID, tg.Active, tg.Secret = 1, true, old
	rotated := RotateSecret(tg, fresh, t0, time.Hour)

	again := validTarget()
	again.Secret = fresh
	if r, _, err := Register([]Target{rotated}, again, t0); err != nil || r.PreviousSecret != old {
		t.Fatalf("same secret: %+v %v", r, err)
	}
	again.Secret = set
	if r, _, err := Register([]Target{rotated}, again, t0); err != nil || r.Secret != set || r.PreviousSecret != "" || !r.PreviousSecretUntil.IsZero() {
		t.Fatalf("another secret: %+v %v", r, err)
	}
	again.Secret = "" // the contract route: keeps every secret
	if r, _, err := Register([]Target{rotated}, again, t0); err != nil || r.Secret != fresh || r.PreviousSecret != old {
		t.Fatalf("no secret: %+v %v", r, err)
	}
}

// Plan copies a rotated target's secrets into its deliveries.
func TestPlan_CopiesRotation(t *testing.T) {
	tg := validTarget()
	tg.ID, tg.Active, tg.Secret = 3, true, NewSecret()
	tg = RotateSecret(tg, NewSecret(), t0, time.Hour)
	ev := testEvent()
	ev.AccountID, ev.EventType = tg.AccountID, tg.EventType
	ds := Plan(ev, []Target{tg}, t0)
	if len(ds) != 1 || ds[0].Secret != tg.Secret || ds[0].PreviousSecret != tg.PreviousSecret || !ds[0].PreviousSecretUntil.Equal(tg.PreviousSecretUntil) {
		t.Fatalf("planned %+v", ds)
	}
}
