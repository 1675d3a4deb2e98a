package webhook_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// A receiver verifies the sandbox's deliveries with any Standard Webhooks
// library and the target's secret: here the official Go one, against one
// attempt of a delivery as the sandbox sends it.
func ExampleDispatcher_Send() {
	secret := webhook.NewSecret()
	verified := make(chan error, 1)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		wh, err := standardwebhooks.NewWebhook(secret)
		if err == nil {
			err = wh.Verify(body, r.Header) // webhook-id, webhook-timestamp, webhook-signature
		}
		verified <- err
		if err != nil {
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	defer receiver.Close()

	d := webhook.Delivery{URL: receiver.URL, Secret: secret, EventType: "cash_in"}
	body := []byte(`{"type":"RECEIVE","data":{"id":1,"status":"LIQUIDATED","payment":{"amount":"10.50","currency":"BRL"}}}`)
	a := (&webhook.Dispatcher{}).Send(context.Background(), d, webhook.NewEventID(), body, 1, 1, time.Now())
	fmt.Println(a.StatusCode, <-verified)
	// Output:
	// 200 <nil>
}

// A target's secret is "whsec_" and the base64 of 32 random bytes, the form
// the Standard Webhooks libraries take.
func ExampleNewSecret() {
	s := webhook.NewSecret()
	fmt.Println(s[:6], len(s), webhook.ValidSecret(s), webhook.ValidSecret("whsec_not-base64!"))
	// Output:
	// whsec_ 50 true false
}
