package agenda

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync/atomic"
	"time"
)

// run runs one due job and records the outcome:
//
//   - success: a recurring job is rescheduled at its spec's next activation
//     after j.Due with Attempts reset; any other job is marked done;
//   - failure (an error or a panic): Attempts grows and the job is retried at
//     now plus backoff(Attempts); once its retries are used up a one-shot job
//     is marked done and a recurring job moves to its next activation, both
//     logged at error level;
//   - unknown kind: logged and marked done, so it never loops.
//
// If the handler deleted or replaced its own job, the store is left as the
// handler left it (a deleted job still gets its done record on success). If
// ctx was cancelled while the handler ran, the job is left pending and runs
// again later. run returns only store errors. The caller must hold a.runMu.
func (a *Agenda) run(ctx context.Context, j Job, handled func()) error {
	return a.runIn(ctx, WithJob(ctx), j, handled)
}

// runIn is run with the handler given hctx, a context of ctx that may carry
// the job's place in its group; handled is called once the handler returned.
func (a *Agenda) runIn(ctx, hctx context.Context, j Job, handled func()) error {
	now := a.clk.Now()

	h := a.handler(j.Kind)
	if h == nil {
		handled()
		a.jobLog(j).Error("agenda: no handler for job kind; marking it done")
		return a.markDone(ctx, j, now)
	}

	run := &handlerRun{id: j.ID}
	herr := call(context.WithValue(hctx, runKey{}, run), h, now, j)
	handled()
	if herr == nil && run.completed.Load() {
		// The handler's own transaction recorded the job done (Committed):
		// reading the job back and MarkDone would find nothing to do.
		return nil
	}
	log := a.jobLog(j)
	if herr != nil && ctx.Err() != nil {
		log.Warn("agenda: job interrupted; it stays pending", "error", herr)
		return nil
	}

	cur, ok, err := a.store.GetJob(ctx, j.ID)
	if err != nil {
		return fmt.Errorf("agenda: get job %s: %w", j.ID, err)
	}
	switch {
	case !ok && herr == nil:
		// The handler deleted its job: record it as done, do not reschedule.
		return a.markDone(ctx, j, now)
	case !ok:
		log.Warn("agenda: job failed and was deleted by its handler; not retrying", "error", herr)
		return nil
	case !SameJob(cur, j):
		log.Debug("agenda: handler replaced its job; keeping the new version", "due", cur.Due)
		return nil
	}

	if herr == nil {
		if j.Cron == "" {
			return a.markDone(ctx, j, now)
		}
		return a.reschedule(ctx, log, j)
	}

	attempts := j.Attempts + 1
	if d, ok := backoff(attempts); ok {
		log.Warn("agenda: job failed; retrying", "attempts", attempts, "retry_in", d, "error", herr)
		next := j
		next.Attempts, next.Due = attempts, now.Add(d)
		return a.replace(ctx, j, next)
	}
	if j.Cron == "" {
		log.Error("agenda: job failed too many times; giving up", "attempts", attempts, "error", herr)
		return a.markDone(ctx, j, now)
	}
	log.Error("agenda: recurring job failed too many times; skipping to its next run", "attempts", attempts, "error", herr)
	return a.reschedule(ctx, log, j)
}

// reschedule moves recurring job j to its spec's next activation after j.Due,
// with Attempts reset. A spec that no longer parses or never fires again ends
// the job.
func (a *Agenda) reschedule(ctx context.Context, log *slog.Logger, j Job) error {
	sched, err := parseCron(j.Cron)
	if err != nil {
		log.Error("agenda: recurring job has a bad cron spec; marking it done", "error", err)
		return a.markDone(ctx, j, a.clk.Now())
	}
	next := sched.Next(j.Due.UTC()).UTC()
	if next.IsZero() {
		log.Error("agenda: recurring job never fires again; marking it done", "cron", j.Cron)
		return a.markDone(ctx, j, a.clk.Now())
	}
	n := j
	n.Due, n.Attempts = next, 0
	return a.replace(ctx, j, n)
}

// replace writes next in place of the run job j unless j was replaced while
// it ran (the newer version wins).
func (a *Agenda) replace(ctx context.Context, j, next Job) error {
	if _, err := a.store.ReplaceJob(ctx, j, next); err != nil {
		return fmt.Errorf("agenda: reschedule %s (%s): %w", j.ID, j.Kind, err)
	}
	return nil
}

func (a *Agenda) jobLog(j Job) *slog.Logger { return a.log.With("job_id", j.ID, "kind", j.Kind) }

// handlerRun is one run of a job's handler, carried by its context: a store
// reports through Committed what the handler's committed transactions did
// to the job.
type handlerRun struct {
	id        string
	completed atomic.Bool
}

type runKey struct{}

// Committed is called by a store once a transaction made under ctx has
// committed and wrote job id: completed is true when the transaction's last
// word on the job was its completion (storage.Tx.CompleteJob: the done record,
// and the job's removal if it was still that version), false when it put or
// deleted the job after that or without it. When ctx is the context of that
// job's handler, or one derived from it, and the handler succeeds with its
// last committed word a completion, the agenda skips its own bookkeeping of
// the job (reading it back, MarkDone), which would find nothing to do.
// Stores that do not call it cost the agenda those reads only.
func Committed(ctx context.Context, id string, completed bool) {
	if r, ok := ctx.Value(runKey{}).(*handlerRun); ok && r.id == id {
		r.completed.Store(completed)
	}
}

func (a *Agenda) markDone(ctx context.Context, j Job, ranAt time.Time) error {
	if err := a.store.MarkDone(ctx, j, ranAt); err != nil {
		return fmt.Errorf("agenda: mark %s (%s) done: %w", j.ID, j.Kind, err)
	}
	return nil
}

// call runs h, turning a panic into an error.
func call(ctx context.Context, h Handler, now time.Time, j Job) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &panicError{value: r, stack: debug.Stack()}
		}
	}()
	return h(ctx, now, j)
}

// panicError is the error a panicking handler is treated as returning.
type panicError struct {
	value any
	stack []byte
}

func (e *panicError) Error() string {
	return fmt.Sprintf("agenda: handler panicked: %v\n%s", e.value, e.stack)
}
