// Package contract holds the rules of the PIX payment contract
// (spec/pix-payment-service.md) as pure functions over HTTP exchanges, the
// one source of the checks that the validating proxy (conformance/proxy)
// applies to live traffic.
//
// An Exchange is one request and its answer. Judge applies the request and
// response rules of the exchange's route (the route table, Routes) and
// returns Findings; JudgeDelivery does the same for a webhook delivery of
// the upstream. Every finding names its rule (Rules lists them all: id, kind,
// contract section), the exchange, the field, and what was expected and
// seen. The state rules, which judge an exchange against what earlier ones
// showed, are conformance/contract/state's.
//
// The package never imports the simulator: like the conformance suite it is
// an independent oracle, and it spells the contract's wire words literally.
package contract
