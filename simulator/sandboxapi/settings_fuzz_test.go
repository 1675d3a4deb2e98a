package sandboxapi_test

import (
	"net/http"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
)

// FuzzSandboxSettingsRequest fuzzes the {id} and body of PUT and GET
// /_sandbox/accounts/{id}/settings.
func FuzzSandboxSettingsRequest(f *testing.F) {
	fs := apitest.NewFuzzServer(f)
	f.Add("1", `{"perTransactionLimit":1000,"dailyLimit":5000,"nightLimit":0,"fee":0.5,"cashInFee":"0.25","minExpirationTime":60,"splitSchedule":"0 3 * * *","medRateLimit":100}`)
	f.Add("1", `{"perTransactionLimit":-1,"fee":0.001,"minExpirationTime":29,"medRateLimit":0}`)
	f.Add("1", `{"minExpirationTime":1.5,"medRateLimit":1e9}`)
	f.Add("1", `{"splitSchedule":"not a cron"}`)
	f.Add("1", `{"splitSchedule":"@every 1s"}`)
	f.Add("1", `{"splitSchedule":""}`)
	f.Add("0", `{}`)
	f.Add("999", `{}`)
	f.Add("1", ``)
	f.Add("1", `{"dailyLimit":"abc"}`)
	f.Fuzz(func(t *testing.T, id, body string) {
		rq := apitest.Request{Method: http.MethodPut, Path: "/_sandbox/accounts/" + id + "/settings", Body: body}
		fs.Serve(t, rq).Check(t, rq, apitest.Minimal, "id", "perTransactionLimit", "dailyLimit", "nightLimit", "fee", "cashInFee",
			"minExpirationTime", "splitSchedule", "medRateLimit")
		get := apitest.Request{Method: http.MethodGet, Path: "/_sandbox/accounts/" + id + "/settings"}
		fs.Serve(t, get).Check(t, get, apitest.Minimal, "id")
	})
}
