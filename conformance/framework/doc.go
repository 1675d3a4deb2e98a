// Package framework is the machinery of the PIX API conformance suite: its
// configuration (flags with PIXSANDBOX_CONFORMANCE_* environment defaults), the
// suite bootstrap (Run), per-spec isolation (Framework), Ginkgo labels and It
// wrappers, a typed HTTP client for the public API and for the /_sandbox control
// plane, a webhook receiver with Standard Webhooks signature verification,
// Gomega matchers for the specification's wire shapes, its own BR Code parser
// (TLV, CRC-16/CCITT-FALSE) behind the BeValidBRCode matcher, and helpers that
// forge tokens and certificates for the negative checks.
//
// It is an independent oracle: it imports only the standard library, Ginkgo and
// Gomega, never the simulator, and it spells wire strings (field names, codes) as
// literals. Everything but Run, New and the It wrappers is usable without a
// running Ginkgo suite, and is unit-tested with the standard testing package.
package framework
