// Package receivercheck checks a partner's webhook receiver, for
// `pixsandbox check-receiver` and POST /_sandbox/check-receiver. Run sends
// the receiver two groups of cases (docs/receiver-check.md describes each):
// the acceptance group (AcceptanceCases), the contract's payloads and the
// hard cases a receiver must take, and the rejection group (RejectionCases),
// deliveries a receiver that verifies Standard Webhooks signatures must
// refuse (a forged or missing signature, a body changed after signing, an
// unsupported version, a timestamp out of tolerance, a replay). It returns a
// Report with a verdict per case and a score per group. Given a callback URL,
// it also reads back what the receiver applied, to tell whether a repeated
// event was applied once and a refused one not at all.
//
// The payloads come from simulator/webhook's builders, over synthetic but
// valid transactions, refunds, charges and MEDs, and go out through
// webhook.Dispatcher, signed as the simulator's own deliveries are; the two
// deliveries the dispatcher cannot produce (a signature over other bytes, a
// header without a v1 signature) go out through a sending path of their own
// with the same guards (rawsend.go). Nothing is
// stored and no simulation clock is read: every instant is wall time, because
// the receiver judges webhook-timestamp by its own clock. The check needs no
// running simulator; simulator.CheckReceiver runs it with the server's
// dispatcher settings.
package receivercheck
