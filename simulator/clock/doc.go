// Package clock provides the simulator's notion of "now".
//
// Business time (timestamps, expiries, settlement, token and certificate
// validity, rate-limit windows) always comes from a Clock. Wall time is used
// only for I/O deadlines, the agenda's real-time timer and latency metrics, and
// each of those places says so in a comment.
//
// Two clocks implement Settable:
//
//   - Real follows the wall clock plus an offset. Moving it forward with Set
//     grows the offset, so a long-running sandbox can still jump ahead.
//   - Virtual stands still until Set moves it. It starts no goroutines and owns
//     no timers: future work lives in the agenda package as persisted jobs.
//
// Neither clock ever moves backwards, and both report times in UTC.
package clock
