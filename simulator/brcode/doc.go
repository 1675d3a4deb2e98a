// Package brcode is the codec of the PIX BR Code (the "copia e cola" text, an EMV
// QR Code in Merchant Presented Mode): Code, NewDynamic, Encode, Parse and the
// CRC16 checksum. It is pure: no clock, no I/O.
//
// The payload is a run of TLV fields: a 2-digit ID, a 2-digit decimal length and the
// value. Fields 26 (PIX merchant account) and 62 (additional data) are templates of
// nested TLV fields. Field 00 comes first and field 63 (the CRC) last.
//
// Only printable ASCII is emitted and accepted, so a TLV length counts bytes and
// characters alike. Name and city are folded to ASCII by NewDynamic; unlike
// some generators, their case is kept ("Fulano de Tal" stays as written), because
// the Central Bank's examples keep it and uppercasing is not a rule of the standard.
package brcode
