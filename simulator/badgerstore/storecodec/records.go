package storecodec

import (
	"encoding/json"
	"time"

	gojson "github.com/goccy/go-json"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// Tx is how a transaction is stored: pix.Transaction's fields under
// their own names, the zero ones left out (a settled cash-out's record shrinks
// from 772 to 610 bytes, and a cash-out writes it twice). Records
// written in full decode the same. It is a conversion of pix.Transaction, so
// the two cannot drift apart: a field added there fails to compile here.
type Tx struct {
	ID             int64           `json:",omitzero"`
	UUID           string          `json:",omitzero"`
	AccountID      pix.AccountID   `json:",omitzero"`
	Kind           pix.TxKind      `json:",omitzero"`
	Status         pix.TxStatus    `json:",omitzero"`
	Amount         pix.Cents       `json:",omitzero"`
	Fee            pix.Cents       `json:",omitzero"`
	ExternalID     string          `json:",omitzero"`
	IdempotencyKey string          `json:",omitzero"`
	EndToEndID     string          `json:",omitzero"`
	PixKey         string          `json:",omitzero"`
	PixKeySent     string          `json:",omitzero"`
	KeyType        string          `json:",omitzero"`
	Description    string          `json:",omitzero"`
	Priority       string          `json:",omitzero"`
	Expiration     time.Duration   `json:",omitzero"`
	Counterpart    pix.Counterpart `json:",omitzero"`
	Document       string          `json:",omitzero"`
	CreatedAt      time.Time       `json:",omitzero"`
	ProcessedAt    time.Time       `json:",omitzero"`
	ErrorCode      pix.Code        `json:",omitzero"`
	ErrorMessage   string          `json:",omitzero"`
	Scenario       string          `json:",omitzero"`
	RelatedID      int64           `json:",omitzero"`
	TxID           string          `json:",omitzero"`
}

// Event is how an event is stored: its body, a JSON document, as JSON
// (BodyJSON) rather than as base64 in Body, which makes it a third larger
// (the largest record a settlement writes). The codec, as encoding/json, stores a raw
// message compacted and with <, > and & escaped, so only a body already in
// that form is stored as JSON, and it reads back byte for byte (signatures
// are over those bytes); any other body stays in Body as base64, as every
// event did before.
type Event struct {
	webhook.Event
	BodyJSON json.RawMessage `json:",omitempty"`
}

// NewEvent is the stored form of e.
func NewEvent(e webhook.Event) Event {
	if !storableAsJSON(e.Body) {
		return Event{Event: e}
	}
	r := Event{Event: e, BodyJSON: e.Body}
	r.Body = nil
	return r
}

// storableAsJSON reports whether the codec would store b, as a raw message,
// unchanged: b is valid JSON, has no space between its tokens, and no <, >, &,
// U+2028 or U+2029, which it would escape. A body json.Marshal wrote always is.
// One pass over the bytes after the codec's validity check, a third of the
// cost of compacting and escaping b to compare (FuzzEventBody holds it to
// that definition).
func storableAsJSON(b []byte) bool {
	if len(b) == 0 || !gojson.Valid(b) {
		return false
	}
	inString, escaped := false, false
	for i, c := range b {
		switch {
		case c == '<' || c == '>' || c == '&':
			return false
		case c == 0xE2 && i+2 < len(b) && b[i+1] == 0x80 && (b[i+2] == 0xA8 || b[i+2] == 0xA9):
			return false
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			return false
		}
	}
	return true
}

// Webhook is the event r stores, its body as it was given.
func (r Event) Webhook() webhook.Event {
	e := r.Event
	if r.BodyJSON != nil {
		e.Body = []byte(r.BodyJSON)
	}
	return e
}
