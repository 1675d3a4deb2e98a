package badgerstore

import gojson "github.com/goccy/go-json"

// Records are stored as JSON. They are encoded and decoded with
// github.com/goccy/go-json, which writes the bytes encoding/json writes for
// every stored type and reads them back into the same values
// (TestCodec_SameAsEncodingJSON), so data directories written before read the
// same; it costs about half of encoding/json's time to encode a transaction
// record and a quarter to decode one (BenchmarkCodec). Its decoded strings are
// copies, never views of the input, which may be Badger's own memory.
func encode(v any) ([]byte, error) { return gojson.Marshal(v) }

func decode(b []byte, v any) error { return gojson.Unmarshal(b, v) }
