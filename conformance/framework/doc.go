// Package framework is the machinery of the PIX API conformance suite: its
// configuration (flags with PIXSANDBOX_CONFORMANCE_* environment defaults), the
// suite bootstrap (Run), per-spec isolation (Framework), Ginkgo labels and It
// wrappers, a webhook receiver with Standard Webhooks signature verification,
// and Gomega matchers for the specification's wire shapes (BeValidBRCode among
// them). Its sub-packages hold the rest:
//
//   - apiclient: the typed HTTP client of the public API, its responses, JSON
//     paths and money amounts;
//   - sandbox: the client of the /_sandbox control plane (accounts, clock, jobs,
//     PIX in and out, MED, webhook targets and deliveries);
//   - codec: the suite's own BR Code parser (TLV, CRC-16/CCITT-FALSE), and the
//     helpers that forge tokens and certificates for the negative checks.
//
// It is an independent oracle: it shares no code with the simulator and spells
// wire strings (field names, codes) as literals. Everything but Run, New and
// the It wrappers is usable without a running Ginkgo suite, and is unit-tested
// with the standard testing package.
package framework
