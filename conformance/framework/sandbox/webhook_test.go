package sandbox

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
)

func TestSandboxClient_WebhookRegistration(t *testing.T) {
	var mu sync.Mutex
	mode := "disabled"
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, r.Method+" "+r.URL.RequestURI()+" "+string(b))
		w.Header().Set("Content-Type", "application/json")
		switch r.Method + " " + r.URL.Path {
		case "GET /_sandbox/webhook-registration":
		case "PUT /_sandbox/webhook-registration":
			v, err := apiclient.DecodeJSON(b)
			m, _ := v.(map[string]any)
			if err != nil || (m["mode"] != "enabled" && m["mode"] != "disabled") {
				w.WriteHeader(http.StatusBadRequest)
				io.WriteString(w, `{"statusCode":400,"message":"mode","error":"Bad Request"}`)
				return
			}
			mode = m["mode"].(string)
		case "GET /_sandbox/webhook-targets":
			if r.URL.Query().Get("accountId") != "1000" {
				w.WriteHeader(http.StatusBadRequest)
				io.WriteString(w, `{"statusCode":400,"message":"accountId","error":"Bad Request"}`)
				return
			}
			io.WriteString(w, `{"data":[{"id":3,"accountId":1000,"url":"https://h/x","eventType":"cash_in","headers":[{"key":"X-A","value":"1"}],"signed":false,"isActive":true,"createdAt":"2026-03-02T12:00:00.000Z"}]}`)
			return
		default:
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"statusCode":404,"message":"no such route","error":"Not Found"}`)
			return
		}
		io.WriteString(w, `{"mode":"`+mode+`"}`)
	}))
	t.Cleanup(srv.Close)
	sb := New(apiclient.NewClient(srv.URL, 5*time.Second), "")
	ctx := context.Background()
	last := func() string {
		mu.Lock()
		defer mu.Unlock()
		return seen[len(seen)-1]
	}

	if m, err := sb.WebhookRegistration(ctx); err != nil || m != WebhookRegistrationDisabled {
		t.Errorf("WebhookRegistration = %q, %v", m, err)
	}
	if m, err := sb.SetWebhookRegistration(ctx, WebhookRegistrationEnabled); err != nil || m != WebhookRegistrationEnabled {
		t.Errorf("SetWebhookRegistration(enabled) = %q, %v", m, err)
	}
	if got := last(); got != `PUT /_sandbox/webhook-registration {"mode":"enabled"}` {
		t.Errorf("request = %s", got)
	}
	if m, err := sb.WebhookRegistration(ctx); err != nil || m != WebhookRegistrationEnabled {
		t.Errorf("WebhookRegistration after enabling = %q, %v", m, err)
	}
	n := len(seen)
	if _, err := sb.SetWebhookRegistration(ctx, "on"); err == nil {
		t.Error(`SetWebhookRegistration("on") was accepted`)
	}
	if len(seen) != n {
		t.Error("an unknown mode was sent")
	}

	ts, err := sb.WebhookTargets(ctx, "1000")
	if err != nil {
		t.Fatal(err)
	}
	if got := last(); got != "GET /_sandbox/webhook-targets?accountId=1000 " {
		t.Errorf("request = %q", got)
	}
	if len(ts) != 1 || ts[0].ID != "3" || ts[0].EventType != "cash_in" || ts[0].URL != "https://h/x" || !ts[0].IsActive || len(ts[0].Headers) != 1 {
		t.Errorf("targets = %+v", ts)
	}
	if _, err := sb.WebhookTargets(ctx, "abc"); err == nil {
		t.Error("a non-numeric account id was accepted")
	}
	var se *StatusError
	if _, err := sb.WebhookTargets(ctx, "1001"); !errors.As(err, &se) || se.Response.Status != http.StatusBadRequest {
		t.Errorf("WebhookTargets(1001) = %v, want a StatusError with 400", err)
	}
}
