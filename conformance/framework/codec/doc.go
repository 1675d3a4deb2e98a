// Package codec holds the conformance suite's own codecs: the BR Code parser
// (TLV, CRC-16/CCITT-FALSE) and its rules, JWT reading and forging for the
// negative token checks, and self-signed certificates. They are written apart
// from the simulator's, so a bug in its BR Code encoder is not mirrored here.
package codec
