// Package agenda runs the simulator's future work at simulated times.
//
// Future work is data: settlements, expiries, webhook retries and recurring
// resets are Jobs persisted in a Store, so a restart does not lose a pending
// settlement. A job that fell due while the server was down runs right after
// Start.
//
// Time. Every "now" the agenda reads comes from its clock.Settable. In virtual
// mode time moves only through Advance and AdvanceTo, which run the jobs that
// fall due on the way, in due order, with the clock set to each job's Due while
// it runs. In real mode the background runner started by Start also sleeps on a
// wall-time timer until the next job is due; that timer is the only place the
// package reads wall time.
//
// Delivery. Jobs run at least once. A crash between a handler's own commit and
// the agenda's bookkeeping (MarkDone or the reschedule) runs the job again after
// restart, so handlers must be idempotent. A handler may delete its own job, or
// replace it with a new version, inside its own store transaction; the agenda
// then leaves the store as the handler left it.
//
// Recurring jobs use only the parser and Schedule.Next of
// github.com/robfig/cron/v3. cron.Cron's runner reads time.Now and cannot
// follow a virtual clock, so it is never started.
//
// The package embeds the time zone database so CRON_TZ= specs work on hosts
// without one.
package agenda
