package agenda

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
	"time"
	_ "time/tzdata" // CRON_TZ= specs must load on hosts without a zoneinfo database.

	"github.com/robfig/cron/v3"

	"github.com/pixsandbox/pixsandbox/simulator/clock"
)

// ErrInvalidJob is returned (wrapped) by Schedule and Every for a job that
// cannot be scheduled: no kind, no due time, or a bad cron spec.
var ErrInvalidJob = errors.New("agenda: invalid job")

// Agenda runs persisted jobs on the simulation clock. It is safe for
// concurrent use.
type Agenda struct {
	store Store
	clk   clock.Settable
	log   *slog.Logger

	hmu      sync.RWMutex
	handlers map[string]Handler

	// runMu serializes Advance, AdvanceTo and RunDue, so each due job runs
	// once even when callers race.
	runMu sync.Mutex

	// wake carries Wake signals to the runner; its buffer of one coalesces
	// them and keeps Wake from blocking.
	wake chan struct{}
	// nextWake is when the runner will look at the store next on its own
	// (UnixNano): a job scheduled earlier needs a Wake (WakeFor).
	// math.MaxInt64 while it runs jobs or has nothing scheduled.
	nextWake atomic.Int64

	lifeMu sync.Mutex
	cancel context.CancelFunc // non-nil while the runner is started
	done   chan struct{}      // closed when the runner exits
}

// New returns an Agenda that keeps jobs in store and reads and moves time on
// clk. A nil logger discards logs.
func New(store Store, clk clock.Settable, logger *slog.Logger) *Agenda {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	a := &Agenda{
		store:    store,
		clk:      clk,
		log:      logger,
		handlers: make(map[string]Handler),
		wake:     make(chan struct{}, 1),
	}
	a.nextWake.Store(math.MaxInt64)
	if n, ok := store.(Notifier); ok {
		n.NotifyScheduled(a.WakeFor)
	}
	return a
}

// Notifier is a Store that reports the jobs it commits: after each commit
// that scheduled jobs it calls fn with the earliest due time among them.
// An agenda over such a store wakes its runner only when that job is due
// before the runner would look again.
type Notifier interface {
	NotifyScheduled(fn func(due time.Time))
}

// WakeFor wakes the runner if a job due at due could otherwise wait: with a
// real clock, if due is before the runner's next look at the store; with a
// virtual clock, if it is already due (later ones run when time is advanced).
func (a *Agenda) WakeFor(due time.Time) {
	if a.clk.Mode() == clock.ModeReal {
		if due.UnixNano() < a.nextWake.Load() {
			a.Wake()
		}
		return
	}
	if !due.After(a.clk.Now()) {
		a.Wake()
	}
}

// Handle registers h for jobs of the given kind, replacing any earlier
// handler. Register handlers before Start; a job whose kind has no handler
// when it falls due is logged and marked done.
func (a *Agenda) Handle(kind string, h Handler) {
	a.hmu.Lock()
	defer a.hmu.Unlock()
	a.handlers[kind] = h
}

func (a *Agenda) handler(kind string) Handler {
	a.hmu.RLock()
	defer a.hmu.RUnlock()
	return a.handlers[kind]
}

// Schedule persists j, generating its ID when empty, and wakes the runner. It
// returns the job as stored (Due in UTC). A job with an existing ID replaces
// the pending one.
//
// Returns an error wrapping ErrInvalidJob if j has no Kind, no Due, or a Cron
// spec that does not parse.
func (a *Agenda) Schedule(ctx context.Context, j Job) (Job, error) {
	if j.Kind == "" {
		return Job{}, fmt.Errorf("%w: empty kind", ErrInvalidJob)
	}
	if j.Due.IsZero() {
		return Job{}, fmt.Errorf("%w: kind %q: zero due time", ErrInvalidJob, j.Kind)
	}
	if j.Cron != "" {
		if _, err := parseCron(j.Cron); err != nil {
			return Job{}, err
		}
	}
	if j.ID == "" {
		id, err := newID()
		if err != nil {
			return Job{}, err
		}
		j.ID = id
	}
	j.Due = j.Due.UTC()
	if err := a.store.PutJob(ctx, j); err != nil {
		return Job{}, fmt.Errorf("agenda: schedule %s (%s): %w", j.ID, j.Kind, err)
	}
	a.Wake()
	return j, nil
}

// Wake tells the runner to look at the store again. Schedule calls it;
// callers that persisted a job themselves (inside their own store
// transaction) call it after the commit. Wake never blocks.
func (a *Agenda) Wake() {
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

// Every schedules a recurring job of the given kind on a standard cron spec
// (five fields or a descriptor such as @daily; CRON_TZ= and TZ= prefixes are
// allowed, and specs without one are read in UTC).
//
// If a job with id is already pending it keeps its Due (so restarts neither
// skip nor repeat a run) and takes the new spec, kind and payload; otherwise
// its first Due is the spec's next activation after the clock's now. After
// each run the next Due is the spec's next activation after the previous Due,
// so the schedule is anchored and does not drift; a clock that jumps over
// several activations runs the job once for each.
//
// Every is meant for setup, before Start and before the clock is advanced.
// Returns an error wrapping ErrInvalidJob if id or kind is empty, or the spec
// does not parse or never fires.
func (a *Agenda) Every(ctx context.Context, id, spec, kind string, payload []byte) error {
	if id == "" || kind == "" {
		return fmt.Errorf("%w: recurring job needs an id and a kind", ErrInvalidJob)
	}
	sched, err := parseCron(spec)
	if err != nil {
		return err
	}
	j := Job{ID: id, Kind: kind, Payload: payload, Cron: spec}
	cur, ok, err := a.store.GetJob(ctx, id)
	if err != nil {
		return fmt.Errorf("agenda: every %s: %w", id, err)
	}
	if ok {
		j.Due, j.Attempts = cur.Due, cur.Attempts
	} else {
		j.Due = sched.Next(a.clk.Now()).UTC()
		if j.Due.IsZero() {
			return fmt.Errorf("%w: cron spec %q never fires", ErrInvalidJob, spec)
		}
	}
	if err := a.store.PutJob(ctx, j); err != nil {
		return fmt.Errorf("agenda: every %s: %w", id, err)
	}
	a.Wake()
	return nil
}

// parseCron parses a standard cron spec. robfig/cron v3.0.1 panics on some
// malformed input (for example "CRON_TZ=UTC" with no fields), so a panic is
// turned into an error.
func parseCron(spec string) (sched cron.Schedule, err error) {
	defer func() {
		if r := recover(); r != nil {
			sched, err = nil, fmt.Errorf("%w: cron spec %q: %v", ErrInvalidJob, spec, r)
		}
	}()
	sched, err = cron.ParseStandard(spec)
	if err != nil {
		return nil, fmt.Errorf("%w: cron spec %q: %v", ErrInvalidJob, spec, err)
	}
	return sched, nil
}

// newID returns 16 random bytes in hex.
func newID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("agenda: job id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// Advance moves the clock forward by d. It runs every job that falls due on
// the way, in due order, with the clock set to each job's Due while it runs
// (clockwork's FakeClock.Advance rule). Jobs scheduled by those handlers run
// too if they fall due before the target. Advance returns when all of that
// work is done, with the number of jobs run.
//
// Concurrent calls run one after another, each moving the clock by its own d
// from where the previous one left it. Returns clock.ErrBackwards if d is
// negative. On a store error or a cancelled ctx it stops early, leaving the
// clock at the last job's Due.
func (a *Agenda) Advance(ctx context.Context, d time.Duration) (ran int, err error) {
	if d < 0 {
		return 0, clock.ErrBackwards
	}
	a.runMu.Lock()
	defer a.runMu.Unlock()
	return a.advanceLocked(ctx, a.clk.Now().Add(d), nil)
}

// AdvanceTo moves the clock forward to t, running due jobs as Advance does.
// Returns clock.ErrBackwards if t is before the clock's now.
func (a *Agenda) AdvanceTo(ctx context.Context, t time.Time) (ran int, err error) {
	a.runMu.Lock()
	defer a.runMu.Unlock()
	if t.Before(a.clk.Now()) {
		return 0, clock.ErrBackwards
	}
	return a.advanceLocked(ctx, t, nil)
}

// AdvanceToEach is AdvanceTo that calls each after every group of jobs it
// runs (see runUntilLocked), before it looks for the next: a caller whose
// handlers hand work elsewhere (webhook attempts to a worker pool) waits
// there for it, so the work that schedules in turn runs at its own due time.
// An error from each stops the advance.
func (a *Agenda) AdvanceToEach(ctx context.Context, t time.Time, each func(context.Context) error) (ran int, err error) {
	a.runMu.Lock()
	defer a.runMu.Unlock()
	if t.Before(a.clk.Now()) {
		return 0, clock.ErrBackwards
	}
	return a.advanceLocked(ctx, t, each)
}

// advanceLocked runs the jobs due up to target, then moves the clock there.
// The caller must hold a.runMu.
func (a *Agenda) advanceLocked(ctx context.Context, target time.Time, each func(context.Context) error) (int, error) {
	ran, err := a.runUntilLocked(ctx, target, true, each)
	if err == nil {
		err = a.moveTo(target)
	}
	// In real mode the runner's timer was computed before the clock jumped.
	a.Wake()
	return ran, err
}

// RunDue runs every job whose Due is at or before the clock's now, in due
// order, and returns how many ran. It does not move the clock.
func (a *Agenda) RunDue(ctx context.Context) (ran int, err error) {
	a.runMu.Lock()
	defer a.runMu.Unlock()
	return a.runUntilLocked(ctx, a.clk.Now(), false, nil)
}

// runUntilLocked runs the pending jobs due at or before limit, in due order,
// including jobs that handlers schedule along the way, a group at a time
// (runGroup): every job already overdue together; otherwise, with moveClock,
// the jobs of the earliest instant, with the clock first set to it. The
// caller must hold a.runMu. each, when not nil, is called after every group.
func (a *Agenda) runUntilLocked(ctx context.Context, limit time.Time, moveClock bool, each func(context.Context) error) (int, error) {
	ran := 0
	for {
		if err := ctx.Err(); err != nil {
			return ran, err
		}
		jobs, err := a.store.DueJobs(ctx, limit, maxGroup)
		if err != nil {
			return ran, fmt.Errorf("agenda: due jobs: %w", err)
		}
		if len(jobs) == 0 {
			return ran, nil
		}
		if moveClock {
			upTo := jobs[0].Due
			if now := a.clk.Now(); now.After(upTo) {
				upTo = now
			}
			n := 1
			for n < len(jobs) && !jobs[n].Due.After(upTo) {
				n++
			}
			jobs = jobs[:n]
			if err := a.moveTo(jobs[n-1].Due); err != nil {
				return ran, err
			}
		}
		if err := a.runGroup(ctx, jobs); err != nil {
			return ran, err
		}
		ran += len(jobs)
		if each != nil {
			if err := each(ctx); err != nil {
				return ran, err
			}
		}
	}
}

// moveTo sets the clock to t unless it is already there or later. A Real
// clock can pass t between the check and Set; that is not an error.
func (a *Agenda) moveTo(t time.Time) error {
	if !t.After(a.clk.Now()) {
		return nil
	}
	err := a.clk.Set(t)
	if errors.Is(err, clock.ErrBackwards) && !a.clk.Now().Before(t) {
		return nil
	}
	return err
}

// ParseSchedule parses a standard cron spec (CRON_TZ= or TZ= prefix allowed; a
// spec without a zone is read in the zone of the time given to Next) for callers
// that place their own jobs at the next run time on the simulation clock. Only
// the parser is used: cron's runner reads the wall clock.
func ParseSchedule(spec string) (cron.Schedule, error) { return parseCron(spec) }
