package webhook

import (
	"context"
	"sync"
	"testing"
	"time"
)

// A target whose attempts never end holds its PerTarget slots only: another
// target's attempts run, and its own further attempts queue behind its slots.
func TestPool_PerTargetLimitAndOrder(t *testing.T) {
	p := &Pool{Workers: 8, PerTarget: 2}
	release := make(chan struct{})
	var mu sync.Mutex
	var started []int
	for i := range 5 {
		p.Submit("slow", func(ctx context.Context) {
			mu.Lock()
			started = append(started, i)
			mu.Unlock()
			select {
			case <-release:
			case <-ctx.Done():
			}
		})
	}
	fast := make(chan struct{})
	for range 3 {
		p.Submit("fast", func(context.Context) { fast <- struct{}{} })
	}
	for range 3 {
		select {
		case <-fast:
		case <-time.After(10 * time.Second): // only a hang reaches this
			t.Fatal("a target's attempts waited behind another target's hanging ones")
		}
	}
	// The hanging target holds its 2 slots and queues the rest. Its attempts
	// run on goroutines of their own, which the fast target's may overtake:
	// wait for both to have started rather than assume they have.
	p.mu.Lock()
	running, queued := p.targets["slow"].running, len(p.targets["slow"].queue)
	p.mu.Unlock()
	if running != 2 || queued != 3 {
		t.Fatalf("hanging target: %d attempts running and %d queued, want its 2 slots and 3 queued", running, queued)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		mu.Lock()
		n := len(started)
		mu.Unlock()
		if n == 2 {
			break
		}
		if n > 2 || time.Now().After(deadline) {
			t.Fatalf("%d attempts of the hanging target started, want its 2 slots", n)
		}
	}
	for deadline := time.Now().Add(10 * time.Second); p.Pending() != 5; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("pending %d, want the 5 of the hanging target", p.Pending())
		}
	}
	close(release)
	if err := p.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(started) != 5 {
		t.Fatalf("started %v", started)
	}
}

// With one slot, a target's attempts run one at a time in the order submitted.
func TestPool_OneSlotKeepsOrder(t *testing.T) {
	p := &Pool{Workers: 4, PerTarget: 1}
	var mu sync.Mutex
	var order []int
	for i := range 20 {
		p.Submit("t", func(context.Context) {
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
		})
	}
	if err := p.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	for i, v := range order {
		if v != i {
			t.Fatalf("order %v", order)
		}
	}
}

func TestPool_WorkersBoundAll(t *testing.T) {
	p := &Pool{Workers: 3, PerTarget: 3}
	var mu sync.Mutex
	running, peak := 0, 0
	for i := range 12 {
		p.Submit(string(rune('a'+i%6)), func(context.Context) {
			mu.Lock()
			running++
			peak = max(peak, running)
			mu.Unlock()
			time.Sleep(time.Millisecond)
			mu.Lock()
			running--
			mu.Unlock()
		})
	}
	if err := p.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if peak > 3 || peak < 2 {
		t.Fatalf("peak %d attempts at once with 3 workers", peak)
	}
}

// Stop cancels the attempts running and queued, waits for them, and leaves
// the pool usable; Wait gives up with its context.
func TestPool_StopAndWait(t *testing.T) {
	p := &Pool{Workers: 2, PerTarget: 1}
	var mu sync.Mutex
	cancelled := 0
	for range 3 {
		p.Submit("t", func(ctx context.Context) {
			<-ctx.Done()
			mu.Lock()
			cancelled++
			mu.Unlock()
		})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := p.Wait(ctx); err == nil {
		t.Fatal("Wait returned nil while attempts hang")
	}
	p.Stop()
	if cancelled != 3 || p.Pending() != 0 {
		t.Fatalf("after Stop: %d cancelled, %d pending", cancelled, p.Pending())
	}
	ran := make(chan struct{})
	p.Submit("t", func(ctx context.Context) {
		if ctx.Err() == nil {
			close(ran)
		}
	})
	select {
	case <-ran:
	case <-time.After(10 * time.Second):
		t.Fatal("the pool took no attempt after Stop")
	}
}
