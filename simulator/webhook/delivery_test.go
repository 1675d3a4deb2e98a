package webhook

import (
	"regexp"
	"slices"
	"testing"
	"time"
)

func TestNewEventID(t *testing.T) {
	re := regexp.MustCompile(`^evt_[A-Z2-7]{26}$`)
	a, b := NewEventID(), NewEventID()
	if !re.MatchString(a) || !re.MatchString(b) || a == b {
		t.Fatalf("NewEventID gave %q and %q", a, b)
	}
}

func testEvent() Event {
	return Event{
		ID: NewEventID(), AccountID: 7, EventType: EventCashOut, Kind: "TRANSFER", TransactionID: 42,
		Body: []byte(`{"type":"TRANSFER","data":{"id":42}}`), CreatedAt: t0,
	}
}

func TestPlan(t *testing.T) {
	ev := testEvent()
	targets := []Target{
		target(5, "https://e.example/", EventCashOut, true, t0.Add(4*time.Second)),
		target(1, "https://a.example/", EventCashOut, true, t0.Add(2*time.Second)),
		target(2, "https://b.example/", EventCashOut, false, t0),
		target(4, "https://d.example/", EventCashOut, true, t0.Add(time.Second)),
		target(3, "https://c.example/", EventCashOut, true, t0.Add(time.Second)),
		target(9, "https://x.example/", EventCashIn, true, t0),
		{ID: 10, AccountID: 8, URL: "https://other.example/", EventType: EventCashOut, Active: true},
	}
	targets[3].Headers = []Header{{Key: "X-Api-Key", Value: "d"}}
	targets[3].Secret = vectorSecret
	now := t0.Add(time.Minute)
	ds := Plan(ev, targets, now)
	var ids []int64
	seen := map[string]bool{}
	for _, d := range ds {
		ids = append(ids, d.TargetID)
		if seen[d.ID] || !regexp.MustCompile(`^dlv_[A-Z2-7]{26}$`).MatchString(d.ID) {
			t.Errorf("delivery id %q", d.ID)
		}
		seen[d.ID] = true
		if d.EventID != ev.ID || d.AccountID != 7 || d.TransactionID != 42 || d.EventType != EventCashOut ||
			d.Status != StatusScheduled || !d.NextAttemptAt.Equal(now) || !d.CreatedAt.Equal(now) || len(d.Attempts) != 0 {
			t.Errorf("delivery %+v", d)
		}
	}
	if want := []int64{3, 4, 1}; !slices.Equal(ids, want) {
		t.Fatalf("planned target ids %v, want %v", ids, want)
	}
	if ds[1].URL != "https://d.example/" || ds[1].Secret != vectorSecret || !slices.Equal(ds[1].Headers, targets[3].Headers) {
		t.Fatalf("delivery did not copy its target: %+v", ds[1])
	}
	targets[3].Headers[0].Value = "changed"
	if ds[1].Headers[0].Value != "d" {
		t.Fatal("the delivery shares its target's header array")
	}
	if got := Plan(ev, targets[5:6], now); len(got) != 0 {
		t.Fatalf("no cash_out target: planned %v", got)
	}
}

func TestOneOff(t *testing.T) {
	ev := testEvent()
	d := OneOff(ev, "http://127.0.0.1:9/x", t0)
	if d.TargetID != 0 || d.URL != "http://127.0.0.1:9/x" || d.Secret != "" || d.Headers != nil || d.Status != StatusScheduled ||
		d.EventID != ev.ID || !d.NextAttemptAt.Equal(t0) {
		t.Fatalf("OneOff = %+v", d)
	}
}

func TestSchedule(t *testing.T) {
	tests := []struct {
		failed int
		want   time.Duration
		ok     bool
	}{
		{failed: -1}, {failed: 0},
		{failed: 1, want: 5 * time.Second, ok: true},
		{failed: 2, want: 30 * time.Second, ok: true},
		{failed: 3, want: 2 * time.Minute, ok: true},
		{failed: 4, want: 10 * time.Minute, ok: true},
		{failed: 5, want: 30 * time.Minute, ok: true},
		{failed: 6, want: 2 * time.Hour, ok: true},
		{failed: 7}, {failed: 100},
	}
	for _, tt := range tests {
		got, ok := DefaultPolicy.Next(tt.failed)
		if got != tt.want || ok != tt.ok {
			t.Errorf("DefaultPolicy.Next(%d) = %v, %v; want %v, %v", tt.failed, got, ok, tt.want, tt.ok)
		}
	}
	if _, ok := (Schedule{}).Next(1); ok {
		t.Error("an empty Schedule allows a retry")
	}
	if got, ok := (Schedule{time.Millisecond}).Next(1); !ok || got != time.Millisecond {
		t.Errorf("Schedule{1ms}.Next(1) = %v, %v", got, ok)
	}
}

func TestSuccess(t *testing.T) {
	for status, want := range map[int]bool{0: false, 100: false, 199: false, 200: true, 201: true, 204: true, 299: true,
		300: false, 301: false, 302: false, 304: false, 400: false, 410: false, 429: false, 500: false, 503: false} {
		if Success(status) != want {
			t.Errorf("Success(%d) = %v", status, !want)
		}
	}
}

func TestStatus(t *testing.T) {
	for _, s := range []Status{StatusScheduled, StatusDelivered, StatusRetrying, StatusFailed} {
		if !s.IsValid() {
			t.Errorf("%s is not valid", s)
		}
	}
	if Status("pending").IsValid() || Status("").IsValid() {
		t.Error("an unknown status is valid")
	}
	if StatusScheduled.Final() || StatusRetrying.Final() || !StatusDelivered.Final() || !StatusFailed.Final() {
		t.Error("Final is wrong")
	}
}

func TestRecord(t *testing.T) {
	d := Plan(testEvent(), []Target{target(1, "https://a.example/", EventCashOut, true, t0)}, t0)[0]
	at := func(n int, status int, sent time.Time) Attempt {
		return Attempt{ID: int64(100 + n), Number: n, SentAt: sent, StatusCode: status}
	}

	t.Run("delivered at once", func(t *testing.T) {
		got := d.Record(at(1, 204, t0), DefaultPolicy)
		if got.Status != StatusDelivered || !got.NextAttemptAt.IsZero() || len(got.Attempts) != 1 || got.Attempts[0].ID != 101 {
			t.Fatalf("got %+v", got)
		}
		if d.Status != StatusScheduled || len(d.Attempts) != 0 {
			t.Fatal("Record modified its receiver")
		}
	})

	t.Run("retries then fails", func(t *testing.T) {
		p := Schedule{5 * time.Second, 30 * time.Second}
		cur, sent := d, t0
		wantWaits := []time.Duration{5 * time.Second, 30 * time.Second}
		for i, w := range wantWaits {
			cur = cur.Record(at(i+1, 500, sent), p)
			if cur.Status != StatusRetrying || !cur.NextAttemptAt.Equal(sent.Add(w)) {
				t.Fatalf("after attempt %d: %s next %v; want retrying at %v", i+1, cur.Status, cur.NextAttemptAt, sent.Add(w))
			}
			sent = cur.NextAttemptAt
		}
		cur = cur.Record(at(3, 0, sent), p)
		if cur.Status != StatusFailed || !cur.NextAttemptAt.IsZero() || len(cur.Attempts) != 3 {
			t.Fatalf("after the last attempt: %+v", cur)
		}
	})

	t.Run("3xx is a failure", func(t *testing.T) {
		if got := d.Record(at(1, 302, t0), DefaultPolicy); got.Status != StatusRetrying || !got.NextAttemptAt.Equal(t0.Add(5*time.Second)) {
			t.Fatalf("got %s at %v", got.Status, got.NextAttemptAt)
		}
	})

	t.Run("nil policy is DefaultPolicy", func(t *testing.T) {
		if got := d.Record(at(1, 503, t0), nil); got.Status != StatusRetrying || !got.NextAttemptAt.Equal(t0.Add(5*time.Second)) {
			t.Fatalf("got %s at %v", got.Status, got.NextAttemptAt)
		}
	})

	t.Run("DefaultPolicy makes seven attempts", func(t *testing.T) {
		cur := d
		n := 0
		for !cur.Status.Final() {
			n++
			sent := cur.NextAttemptAt
			cur = cur.Record(at(n, 500, sent), DefaultPolicy)
		}
		if n != 7 || cur.Status != StatusFailed {
			t.Fatalf("%d attempts, status %s", n, cur.Status)
		}
		if total := cur.Attempts[6].SentAt.Sub(t0); total != 5*time.Second+30*time.Second+2*time.Minute+10*time.Minute+30*time.Minute+2*time.Hour {
			t.Fatalf("last attempt %v after the first", total)
		}
	})

	t.Run("does not write into a shared backing array", func(t *testing.T) {
		base := d
		base.Attempts = make([]Attempt, 1, 4)
		a := base.Record(at(2, 500, t0), DefaultPolicy)
		b := base.Record(at(2, 200, t0), DefaultPolicy)
		if a.Attempts[1].StatusCode != 500 || b.Attempts[1].StatusCode != 200 {
			t.Fatal("two Records of one delivery share attempts")
		}
	})
}
