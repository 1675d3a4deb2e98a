// Package webhook holds the stateless parts of the simulator's webhooks: the
// bodies of every event (payload.go: the V2 envelope of TRANSFER, RECEIVE and
// REFUND, the flat CashOut and CashIn payloads, the MED events), target
// validation, the plan of one delivery per active target of an event
// (fan-out, at most MaxActivePerType), one HTTP attempt (Dispatcher), the
// retry Policy that decides what happens next, and the worker pool
// (Scheduler). It keeps no state in the store: simulator/webhook/outbox stores
// events, deliveries and their jobs and calls this package for each step, and
// the core and simulator/med and simulator/refund choose which body an event
// carries.
//
// Deliveries are at least once. Every attempt of one event carries the same
// webhook-id (the event's ID), so receivers deduplicate on it. A target may
// carry a Standard Webhooks signing secret; deliveries to it are then signed
// (webhook-signature, HMAC-SHA256 over "{id}.{timestamp}.{body}"). Signing is
// off by default, as the spec shows none.
//
// Time. Every instant the package records or schedules is passed in by the
// caller (now, the simulation clock's instant), so a virtual clock drives
// retries. Wall time is read only for the HTTP timeout and for an attempt's
// measured Duration.
//
// Server-side request forgery. Target URLs are user-supplied, and
// ValidateTarget checks only their syntax. A Dispatcher with DenyPrivate
// refuses, at dial time and on the resolved IP address, every private,
// loopback, link-local, metadata and other non-public address
// (PrivateAddress), uses no proxy, and, like every Dispatcher, never follows
// redirects and caps each response's size and time.
//
// Workers. A server-wide Scheduler runs the attempts of every workspace: at
// most Workers at once in slots all owners (a workspace's account) share,
// PerTarget for one URL of a workspace and PerOwner for one owner; an owner
// with nothing under way always starts one attempt in a slot of its own, and
// freed shared slots go to the waiting owners in turn, so one owner's hanging
// receivers never hold another's deliveries (Gap G-62). Each workspace's
// simulator sees its own Space of the Scheduler: it waits for and stops its
// own attempts only.
package webhook
