package clock_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/clock"
)

var epoch = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// fakeWall is a wall clock a test moves by hand.
type fakeWall struct {
	mu sync.Mutex
	t  time.Time
}

func (w *fakeWall) now() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.t
}

func (w *fakeWall) add(d time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.t = w.t.Add(d)
}

func TestVirtual_Now(t *testing.T) {
	brt := time.FixedZone("BRT", -3*60*60)
	v := clock.NewVirtual(epoch.In(brt))
	got := v.Now()
	if !got.Equal(epoch) || got.Location() != time.UTC {
		t.Fatalf("Now()=%v, want %v in UTC", got, epoch)
	}
	if got, want := v.Mode(), clock.ModeVirtual; got != want {
		t.Fatalf("Mode()=%q, want %q", got, want)
	}
	if got := v.Now(); !got.Equal(epoch) {
		t.Fatalf("Now() moved without Set: %v", got)
	}
}

func TestVirtual_Set(t *testing.T) {
	tests := []struct {
		name string
		to   time.Time
		want time.Time
		err  error
	}{
		{name: "forward", to: epoch.Add(time.Hour), want: epoch.Add(time.Hour)},
		{name: "equal", to: epoch, want: epoch},
		{name: "backwards", to: epoch.Add(-time.Nanosecond), want: epoch, err: clock.ErrBackwards},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := clock.NewVirtual(epoch)
			if err := v.Set(tt.to); !errors.Is(err, tt.err) {
				t.Fatalf("Set(%v)=%v, want %v", tt.to, err, tt.err)
			}
			if got := v.Now(); !got.Equal(tt.want) {
				t.Fatalf("Now()=%v, want %v", got, tt.want)
			}
		})
	}
}

func TestReal_Now(t *testing.T) {
	w := &fakeWall{t: epoch}
	r := clock.NewRealWithWall(time.Hour, w.now)
	if got, want := r.Now(), epoch.Add(time.Hour); !got.Equal(want) || got.Location() != time.UTC {
		t.Fatalf("Now()=%v, want %v in UTC", got, want)
	}
	w.add(time.Minute)
	if got, want := r.Now(), epoch.Add(time.Hour+time.Minute); !got.Equal(want) {
		t.Fatalf("Now() after wall moved=%v, want %v", got, want)
	}
	if got, want := r.Mode(), clock.ModeReal; got != want {
		t.Fatalf("Mode()=%q, want %q", got, want)
	}
}

func TestReal_Now_wallSteppedBack(t *testing.T) {
	w := &fakeWall{t: epoch}
	r := clock.NewRealWithWall(0, w.now)
	first := r.Now()
	w.add(-time.Minute)
	if got := r.Now(); got.Before(first) {
		t.Fatalf("Now()=%v went back from %v", got, first)
	}
	w.add(2 * time.Minute)
	if got, want := r.Now(), epoch.Add(time.Minute); !got.Equal(want) {
		t.Fatalf("Now()=%v, want %v once the wall caught up", got, want)
	}
}

func TestReal_Set(t *testing.T) {
	tests := []struct {
		name       string
		by         time.Duration
		wantOffset time.Duration
		err        error
	}{
		{name: "forward", by: 90 * time.Second, wantOffset: time.Hour + 90*time.Second},
		{name: "equal", by: 0, wantOffset: time.Hour},
		{name: "backwards", by: -time.Nanosecond, wantOffset: time.Hour, err: clock.ErrBackwards},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &fakeWall{t: epoch}
			r := clock.NewRealWithWall(time.Hour, w.now)
			to := r.Now().Add(tt.by)
			if err := r.Set(to); !errors.Is(err, tt.err) {
				t.Fatalf("Set(%v)=%v, want %v", to, err, tt.err)
			}
			if got := r.Offset(); got != tt.wantOffset {
				t.Fatalf("Offset()=%v, want %v", got, tt.wantOffset)
			}
			if got, want := r.Now(), epoch.Add(tt.wantOffset); !got.Equal(want) {
				t.Fatalf("Now()=%v, want %v", got, want)
			}
		})
	}
}

func TestReal_Set_offsetOnlyGrows(t *testing.T) {
	w := &fakeWall{t: epoch}
	r := clock.NewRealWithWall(0, w.now)
	prev := r.Offset()
	for i := range 10 {
		w.add(time.Second)
		if err := r.Set(r.Now().Add(time.Duration(i) * time.Minute)); err != nil {
			t.Fatalf("Set #%d: %v", i, err)
		}
		if got := r.Offset(); got < prev {
			t.Fatalf("Offset()=%v shrank from %v", got, prev)
		}
		prev = r.Offset()
	}
	if got, want := prev, 45*time.Minute; got != want {
		t.Fatalf("Offset()=%v, want %v", got, want)
	}
	// A wall clock stepped back must not shrink the offset either.
	before := r.Now()
	w.add(-time.Hour)
	if err := r.Set(before.Add(time.Second)); err != nil {
		t.Fatalf("Set after wall stepped back: %v", err)
	}
	if got := r.Offset(); got < prev {
		t.Fatalf("Offset()=%v shrank from %v", got, prev)
	}
	if got, want := r.Now(), before.Add(time.Second); !got.Equal(want) {
		t.Fatalf("Now()=%v, want %v", got, want)
	}
}

func TestNewReal(t *testing.T) {
	r := clock.NewReal(24 * time.Hour)
	got := r.Now()
	if got.Location() != time.UTC {
		t.Fatalf("Now() location=%v, want UTC", got.Location())
	}
	// Wall time: checking that the offset is applied to the host clock.
	if d := time.Until(got); d < 23*time.Hour || d > 25*time.Hour {
		t.Fatalf("Now()-time.Now()=%v, want about 24h", d)
	}
}

func TestSettable_concurrent(t *testing.T) {
	clocks := []struct {
		name string
		clk  clock.Settable
	}{
		{name: "virtual", clk: clock.NewVirtual(epoch)},
		{name: "real", clk: clock.NewReal(0)},
	}
	for _, c := range clocks {
		t.Run(c.name, func(t *testing.T) {
			var wg sync.WaitGroup
			for range 8 {
				wg.Go(func() {
					last := c.clk.Now()
					for range 200 {
						now := c.clk.Now()
						if now.Before(last) {
							t.Errorf("Now()=%v went back from %v", now, last)
							return
						}
						last = now
						err := c.clk.Set(now.Add(time.Millisecond))
						if err != nil && !errors.Is(err, clock.ErrBackwards) {
							t.Errorf("Set: %v", err)
							return
						}
						if got := c.clk.Now(); got.Before(now) {
							t.Errorf("Now()=%v went back from %v", got, now)
							return
						}
					}
				})
			}
			wg.Wait()
		})
	}
}
