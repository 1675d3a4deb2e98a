// Package pix is the PIX domain vocabulary and its pure rules: the entities,
// their status enums and transition tables, the request validators, money, the
// error kinds and codes. It takes the time as a parameter (it reads no clock)
// and does no I/O. The BR Code codec is in simulator/brcode.
//
// One file per resource, with the same names as the core, httpapi and the
// conformance suite: account.go, auth.go (tokens, credentials, certificates,
// the X-SSL-Client-Cert header), balance.go, cashin.go (the request, splits and
// the charge), cashout.go (the request and its key types), cob.go, dict.go,
// listing.go (listing types, labels, the filter), med.go, payment.go (a payer's
// payment and the BR Code location it names), refund.go, transfer.go,
// transaction.go (kinds, statuses, settlement failures). Values: money.go
// (Cents, decimals), document.go (CPF, CNPJ), key.go (DICT keys), id.go
// (end-to-end ids, UUIDs). Rules of an account: limits.go (the limits, the night
// window, São Paulo days), settings.go. Errors: error.go (Error, Kind), codes.go
// (the wire codes), violation.go (field violations and what the validators
// share). The control plane's values: clock.go, job.go, invariants.go.
package pix
