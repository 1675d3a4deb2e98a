// Package docs carries the API document, docs/openapi.yaml, into the binary:
// the server serves it at GET /_sandbox/openapi.yaml and renders it at GET
// /_sandbox/docs. A package can embed only files under its own directory, so
// the document's embedding lives beside it. It also generates the Postman
// collection docs/pixsandbox.postman_collection.json from the document (make
// collection).
package docs

import _ "embed"

// OpenAPI is docs/openapi.yaml as committed.
//
//go:embed openapi.yaml
var OpenAPI []byte
