// Package delivery delivers webhooks: the outbox (Emit writes an event and
// one delivery and deliver job per active target inside the store
// transaction of the state change), the deliver job that hands each attempt
// to the worker pool, the recording of attempts and their retries, the
// recovery of attempts a stop cut short, waiting for attempts due, and the
// one-off resend of a transaction's webhook.
//
// It is the stateful half of webhook delivery: it reads and writes the store
// and schedules agenda jobs, while simulator/webhook holds the stateless
// parts (payload builders, target rules, the retry policy, one HTTP attempt,
// the worker pool).
//
// Its slice of the store: the outbox (Outbox: webhook targets, events,
// deliveries and their jobs), the webhook-attempt sequence, and the
// transactions a resend names (storage.TransactionTx).
package outbox
