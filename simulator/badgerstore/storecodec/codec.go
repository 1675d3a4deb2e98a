// Package storecodec is how badgerstore writes a record as bytes: JSON,
// encoded and decoded with github.com/goccy/go-json, which writes the bytes
// encoding/json writes for every stored type and reads them back into the
// same values (badgerstore's TestCodec_SameAsEncodingJSON), so data
// directories written before read the same; transactions without their zero
// fields (Tx); webhook events with their body as JSON (Event).
package storecodec

import gojson "github.com/goccy/go-json"

// Encode returns the stored bytes of v. It costs about half of
// encoding/json's time for a transaction record (BenchmarkCodec).
func Encode(v any) ([]byte, error) { return gojson.Marshal(v) }

// Decode reads stored bytes into v, at about a quarter of encoding/json's
// time for a transaction record. Its strings are copies, never views of b,
// which may be Badger's own memory.
func Decode(b []byte, v any) error { return gojson.Unmarshal(b, v) }
