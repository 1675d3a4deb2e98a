package webhook

import (
	"context"
	"sync"
)

// Defaults of a Pool's zero fields.
const (
	DefaultWorkers   = 64
	DefaultPerTarget = 4
)

// Pool runs delivery attempts off the job runner: at most Workers at once in
// all, and at most PerTarget at once for one target (one URL), so a receiver
// that hangs holds only its own slots and never delays another's deliveries,
// a settlement or a clock advance. A target's attempts start in the order
// they were submitted; the rest wait in that target's queue. Its zero value
// is ready to use; set the fields before the first Submit.
type Pool struct {
	Workers   int
	PerTarget int

	once    sync.Once
	workers chan struct{} // one token per running attempt

	mu      sync.Mutex
	idle    sync.Cond
	targets map[string]*targetQueue
	pending int // submitted and not finished
	ctx     context.Context
	cancel  context.CancelFunc
	running sync.WaitGroup
}

type targetQueue struct {
	running int
	queue   []func(context.Context)
}

func (p *Pool) init() {
	p.once.Do(func() {
		n := p.Workers
		if n <= 0 {
			n = DefaultWorkers
		}
		p.workers = make(chan struct{}, n)
		p.targets = map[string]*targetQueue{}
		p.idle.L = &p.mu
		p.ctx, p.cancel = context.WithCancel(context.Background())
	})
}

func (p *Pool) perTarget() int {
	if p.PerTarget <= 0 {
		return DefaultPerTarget
	}
	return p.PerTarget
}

// Submit queues attempt for target (its URL). attempt gets a context that
// Stop cancels; it must return soon after. Submit never blocks.
func (p *Pool) Submit(target string, attempt func(context.Context)) {
	p.init()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pending++
	q := p.targets[target]
	if q == nil {
		q = &targetQueue{}
		p.targets[target] = q
	}
	if q.running < p.perTarget() {
		q.running++
		p.start(target, attempt)
		return
	}
	q.queue = append(q.queue, attempt)
}

// start runs attempt on its own goroutine once a worker slot is free.
// Call with p.mu held.
func (p *Pool) start(target string, attempt func(context.Context)) {
	p.running.Add(1)
	ctx := p.ctx
	go func() {
		defer p.running.Done()
		select {
		case p.workers <- struct{}{}:
			attempt(ctx)
			<-p.workers
		case <-ctx.Done():
			attempt(ctx) // stopped: the attempt sees a cancelled context and returns
		}
		p.finished(target)
	}()
}

// finished frees a target slot and starts the target's next attempt.
func (p *Pool) finished(target string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	q := p.targets[target]
	if len(q.queue) > 0 {
		next := q.queue[0]
		q.queue[0] = nil
		q.queue = q.queue[1:]
		p.start(target, next)
	} else if q.running--; q.running == 0 {
		delete(p.targets, target)
	}
	p.pending--
	if p.pending == 0 {
		p.idle.Broadcast()
	}
}

// Pending returns how many attempts are running or queued.
func (p *Pool) Pending() int {
	p.init()
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pending
}

// Wait returns when no attempt is running or queued, or when ctx ends.
func (p *Pool) Wait(ctx context.Context) error {
	p.init()
	stop := context.AfterFunc(ctx, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.idle.Broadcast()
	})
	defer stop()
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.pending > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		p.idle.Wait()
	}
	return nil
}

// Stop cancels the attempts running and queued, waits for them to return,
// and makes the pool ready for new attempts. Attempts cut this way are
// expected to be made again (the simulator keeps them in flight in its store
// and schedules them again on its next start).
func (p *Pool) Stop() {
	p.init()
	p.mu.Lock()
	p.cancel()
	p.mu.Unlock()
	p.running.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ctx, p.cancel = context.WithCancel(context.Background())
}
