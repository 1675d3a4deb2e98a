package sandboxapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

// TestRotateSecret_Target: rotating a target answers 200 with the new secret
// and the end of the 24 h default overlap in wall time, which the listing
// shows too; an overlap of 0 keeps no previous secret; a bad overlap is 400
// naming overlap; an unknown target 404.
func TestRotateSecret_Target(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{})
	const old = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	r := apitest.Do(t, http.MethodPost, env.URL+"/_sandbox/webhook-targets",
		strings.NewReader(`{"accountId":1,"eventType":"cash_in","url":"http://127.0.0.1:9/h","secret":"`+old+`"}`), nil)
	if r.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	path := env.URL + "/_sandbox/webhook-targets/" + r.Body["id"].(interface{ String() string }).String() + "/rotate-secret"

	before := time.Now() // wall time: the overlap's end is counted from it
	r = apitest.Do(t, http.MethodPost, path, nil, nil)
	after := time.Now()
	secret, _ := r.Body["secret"].(string)
	if r.Status != http.StatusOK || !strings.HasPrefix(secret, "whsec_") || secret == old || r.Body["signed"] != true {
		t.Fatalf("rotate: %d %s", r.Status, r.Raw)
	}
	until, err := time.Parse(time.RFC3339Nano, r.Body["previousSecretExpiresAt"].(string))
	if err != nil || until.Before(before.Add(24*time.Hour).Truncate(time.Millisecond)) || until.After(after.Add(24*time.Hour)) {
		t.Fatalf("previousSecretExpiresAt %v (%v), want 24 h after %s", r.Body["previousSecretExpiresAt"], err, before)
	}
	list := apitest.Do(t, http.MethodGet, env.URL+"/_sandbox/webhook-targets?accountId=1", nil, nil)
	if !strings.Contains(string(list.Raw), `"previousSecretExpiresAt":"`+r.Body["previousSecretExpiresAt"].(string)+`"`) || strings.Contains(string(list.Raw), secret) {
		t.Fatalf("listing: %s", list.Raw)
	}

	chosen := "whsec_" + strings.Repeat("QUJD", 8)
	r = apitest.Do(t, http.MethodPost, path, strings.NewReader(`{"overlap":0,"secret":"`+chosen+`"}`), nil)
	if r.Status != http.StatusOK || r.Body["secret"] != chosen || r.Body["previousSecretExpiresAt"] != nil {
		t.Fatalf("rotate with overlap 0: %d %s", r.Status, r.Raw)
	}
	r = apitest.Do(t, http.MethodPost, path, strings.NewReader(`{"overlap":"90m"}`), nil)
	if r.Status != http.StatusOK {
		t.Fatalf("rotate with overlap 90m: %d %s", r.Status, r.Raw)
	}

	for body, field := range map[string]string{
		`{"overlap":"8d"}`: "overlap", `{"overlap":"169h"}`: "overlap", `{"overlap":-1}`: "overlap", `{"overlap":true}`: "overlap",
		`{"secret":"whsec_x"}`: "secret", `{"overlap":"1h","secret":7}`: "secret",
	} {
		r := apitest.Do(t, http.MethodPost, path, strings.NewReader(body), nil)
		if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Raw), field) {
			t.Errorf("%s: %d %s, want 400 naming %s", body, r.Status, r.Raw, field)
		}
	}
	both := apitest.Do(t, http.MethodPost, path, strings.NewReader(`{"overlap":"soon","secret":"whsec_x"}`), nil)
	if both.Status != http.StatusBadRequest || !strings.Contains(string(both.Raw), "overlap must be") || !strings.Contains(string(both.Raw), "secret must be") {
		t.Errorf("two bad fields: %d %s, want 400 naming both", both.Status, both.Raw)
	}
	if r := apitest.Do(t, http.MethodPost, env.URL+"/_sandbox/webhook-targets/999999/rotate-secret", nil, nil); r.Status != http.StatusNotFound {
		t.Fatalf("unknown target: %d %s", r.Status, r.Raw)
	}
}

// TestRotateSecret_Listener: rotating a listener gives every one of its
// targets the new secret, and its renewal answers it.
func TestRotateSecret_Listener(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{})
	l := createListener(t, env, `{"accountId":1,"url":"http://127.0.0.1:9/h","events":["cash_in","cash_out"]}`)
	if l.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", l.Status, l.Raw)
	}
	id := l.Body["id"].(string)
	r := apitest.Do(t, http.MethodPost, env.URL+"/_sandbox/listeners/"+id+"/rotate-secret", strings.NewReader(`{"overlap":"1h"}`), nil)
	secret, _ := r.Body["secret"].(string)
	if r.Status != http.StatusOK || secret == l.Body["secret"] || !strings.HasPrefix(secret, "whsec_") || r.Body["previousSecretExpiresAt"] == nil {
		t.Fatalf("rotate: %d %s", r.Status, r.Raw)
	}
	targets := r.Body["targets"].([]any)
	if len(targets) != 2 {
		t.Fatalf("targets: %s", r.Raw)
	}
	for _, x := range targets {
		if x.(map[string]any)["previousSecretExpiresAt"] != r.Body["previousSecretExpiresAt"] {
			t.Errorf("target %v not rotated with the listener", x)
		}
	}
	if renewed := apitest.Do(t, http.MethodPost, env.URL+"/_sandbox/listeners/"+id+"/renew", nil, nil); renewed.Body["secret"] != secret {
		t.Fatalf("renew answers secret %v, want %s", renewed.Body["secret"], secret)
	}
	if r := apitest.Do(t, http.MethodPost, env.URL+"/_sandbox/listeners/"+id+"/rotate-secret", strings.NewReader(`{"secret":"`+secret+`"}`), nil); r.Status != http.StatusBadRequest {
		t.Fatalf("rotate to the current secret: %d %s", r.Status, r.Raw)
	}
	if r := apitest.Do(t, http.MethodPost, env.URL+"/_sandbox/listeners/lst_none/rotate-secret", nil, nil); r.Status != http.StatusNotFound {
		t.Fatalf("unknown listener: %d %s", r.Status, r.Raw)
	}
}
