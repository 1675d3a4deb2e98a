package docs

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestPostmanCollection_UpToDate fails when docs/pixsandbox.postman_collection.json
// is not what docs/openapi.yaml generates; make collection (UPDATE_GOLDEN=1)
// writes it.
func TestPostmanCollection_UpToDate(t *testing.T) {
	got, err := PostmanCollection(OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(CollectionFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(CollectionFile)
	if err != nil {
		t.Fatalf("%v: run make collection", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("docs/%s is out of date with docs/openapi.yaml: run make collection", CollectionFile)
	}
}

// TestPostmanCollection_Shape checks the collection is Postman v2.1 and holds
// one request per operation, with its path variables and a JSON body where the
// operation takes one.
func TestPostmanCollection_Shape(t *testing.T) {
	raw, err := PostmanCollection(OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	var c pmCollection
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	if c.Info.Schema != postmanSchema {
		t.Fatalf("schema %q", c.Info.Schema)
	}
	d, _ := parse(OpenAPI)
	n := 0
	byKey := map[string]pmRequest{}
	for _, f := range c.Item {
		for _, it := range f.Item {
			n++
			byKey[it.Request.Method+" "+"/"+strings.Join(it.Request.URL.Path, "/")] = it.Request
		}
	}
	if n != len(d.Ops) {
		t.Fatalf("%d requests for %d operations", n, len(d.Ops))
	}
	cob, ok := byKey["PUT /cob/:txid"]
	if !ok {
		t.Fatal("no PUT /cob/:txid request")
	}
	if len(cob.URL.Variable) != 1 || cob.URL.Variable[0].Key != "txid" {
		t.Fatalf("PUT /cob/:txid path variables %+v", cob.URL.Variable)
	}
	if cob.Body == nil || !json.Valid([]byte(cob.Body.Raw)) || !strings.Contains(cob.Body.Raw, `"valor"`) {
		t.Fatalf("PUT /cob/:txid body %+v", cob.Body)
	}
	tok := byKey["POST /api/auth/token"]
	if tok.Auth == nil || tok.Auth.Type != "noauth" || !hasHeader(tok.Header, "X-SSL-Client-Cert") {
		t.Fatalf("token request: auth %+v headers %+v", tok.Auth, tok.Header)
	}
	for key, r := range byKey {
		if r.Body != nil && !json.Valid([]byte(r.Body.Raw)) {
			t.Errorf("%s: body is not JSON: %s", key, r.Body.Raw)
		}
		if strings.HasPrefix(key, "POST /_sandbox") && !hasHeader(r.Header, "X-Sandbox-Admin-Token") {
			t.Errorf("%s has no X-Sandbox-Admin-Token header", key)
		}
	}
}
