// Package contract holds the rules of the PIX payment contract
// (spec/pix-payment-service.md) as pure functions over HTTP exchanges, the
// one source of the checks that the validating proxy (conformance/proxy)
// applies to live traffic.
//
// An Exchange is one request and its answer. Judge applies the request and
// response rules of the exchange's route (the route table, Routes) and
// returns Findings; a Model keeps a bounded window of what earlier exchanges
// showed and returns the state findings a new exchange contradicts. Every
// finding names its rule (Rules lists them: id, kind, contract section), the
// exchange, the field, and what was expected and seen. JudgeDelivery and
// Hooks do the same for a webhook delivery of the upstream.
//
// The package never imports the simulator: like the conformance suite it is
// an independent oracle, and it spells the contract's wire words literally.
package contract
