package sandboxapi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/events"
	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

// TestSandboxEvents: GET /_sandbox/events lists the catalogue; POST
// /_sandbox/events/{event} without a body triggers it for account 1 with the
// defaults and answers 201 with what it did (no target: no delivery); bad
// parameters are 400 naming the field, an unknown event 404, a step the
// sandbox refuses 422 naming the step.
func TestSandboxEvents(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{})
	list := apitest.Do(t, "GET", env.URL+"/_sandbox/events", nil, nil)
	var got struct {
		Data []struct {
			Name       string   `json:"name"`
			EventType  string   `json:"eventType"`
			Parameters []string `json:"parameters"`
		} `json:"data"`
	}
	if err := json.Unmarshal(list.Raw, &got); err != nil || list.Status != 200 || len(got.Data) != len(events.Names()) {
		t.Fatalf("GET /_sandbox/events = %d %s", list.Status, list.Raw)
	}
	for i, name := range events.Names() {
		if got.Data[i].Name != name || got.Data[i].EventType == "" || got.Data[i].Parameters[0] != "accountId" {
			t.Errorf("event %d: %+v, want %s", i, got.Data[i], name)
		}
	}

	r := apitest.Do(t, "POST", env.URL+"/_sandbox/events/cashout.confirmed", nil, nil)
	if r.Status != 201 || r.Body["accountId"] != json.Number("1") || r.Body["eventType"] != "cash_out" || r.Body["clockMovedSeconds"] != json.Number("0") ||
		len(r.Body["steps"].([]any)) != 2 || len(r.Body["deliveries"].([]any)) != 0 {
		t.Fatalf("cashout.confirmed = %d %s", r.Status, r.Raw)
	}
	tx := apitest.Do(t, "GET", env.URL+"/_sandbox/transactions/"+r.Body["transactionId"].(json.Number).String(), nil, nil)
	if tx.Body["status"] != "CONFIRMED" || tx.Body["amount"] != json.Number("10.00") {
		t.Fatalf("its transaction: %s", tx.Raw)
	}
	r = apitest.Do(t, "POST", env.URL+"/_sandbox/events/refundin.failed", strings.NewReader(`{"accountId":2,"amount":2.5,"errorCode":"ACCOUNT_CLOSED"}`), nil)
	if r.Status != 201 || r.Body["accountId"] != json.Number("2") || !strings.Contains(string(r.Raw), "ERROR ACCOUNT_CLOSED") {
		t.Fatalf("refundin.failed for account 2 = %d %s", r.Status, r.Raw)
	}

	for _, tc := range []struct {
		event, body string
		status      int
		message     string
	}{
		{"cashout.confirmed", `{"accountId":0}`, 400, "accountId"},
		{"cashout.confirmed", `{"amount":1.005}`, 400, "amount"},
		{"cashout.confirmed", `{"amount":"10.00"}`, 400, "amount"},
		{"cashout.failed", `{"errorCode":""}`, 400, "errorCode"},
		{"cashout.failed", `{"errorCode":"NOPE"}`, 400, "errorCode"},
		{"transfer.liquidated", `{"key":"nobody@nowhere.example"}`, 400, "key"},
		{"transfer.liquidated", `{"accountId":1,"extra":[}`, 400, "body"},
		{"cashout.nope", ``, 404, "unknown event"},
		{"pixin.received", `{"accountId":424242}`, 404, "424242"},
		{"cashout.confirmed", `{"amount":999999}`, 422, "POST /api/pix/cash-out: "},
	} {
		r := apitest.Do(t, "POST", env.URL+"/_sandbox/events/"+tc.event, strings.NewReader(tc.body), nil)
		if r.Status != tc.status || len(r.Body) != 3 || !strings.Contains(r.Body["message"].(string), tc.message) {
			t.Errorf("POST /_sandbox/events/%s %s = %d %s, want %d naming %q", tc.event, tc.body, r.Status, r.Raw, tc.status, tc.message)
		}
		if tc.status == 400 && !strings.HasPrefix(r.Body["message"].(string), tc.message) {
			t.Errorf("POST /_sandbox/events/%s %s: message does not start with the field: %s", tc.event, tc.body, r.Raw)
		}
	}
}
