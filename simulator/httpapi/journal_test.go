package httpapi_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

type journalList struct {
	Enabled  bool `json:"enabled"`
	Capacity int  `json:"capacity"`
	Size     int  `json:"size"`
	Data     []struct {
		ID             int64             `json:"id"`
		RequestID      string            `json:"requestId"`
		Method         string            `json:"method"`
		Path           string            `json:"path"`
		Route          string            `json:"route"`
		AccountID      *int64            `json:"accountId"`
		Status         int               `json:"status"`
		RequestHeaders map[string]string `json:"requestHeaders"`
		RequestBody    string            `json:"requestBody"`
		ResponseBody   string            `json:"responseBody"`
		Refs           []string          `json:"refs"`
	} `json:"data"`
}

func listJournal(tb testing.TB, env *simulatortest.Env, query string) journalList {
	tb.Helper()
	r := apitest.DoRaw(tb, http.MethodGet, env.URL+"/_sandbox/requests?"+query, nil, nil)
	if r.Status != http.StatusOK {
		tb.Fatalf("GET /_sandbox/requests?%s = %d %s", query, r.Status, r.Raw)
	}
	var l journalList
	if err := json.Unmarshal(r.Raw, &l); err != nil {
		tb.Fatal(err)
	}
	return l
}

// TestJournal_MasksSecrets: the token request's clientSecret and certificate
// header, the token in its answer and the Authorization header of a later
// request are masked; the rest is kept.
func TestJournal_MasksSecrets(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{JournalSize: 50})
	token := apitest.TokenFor(t, env, 0)
	a := env.Fixtures.Accounts[0]
	if r := apitest.DoRaw(t, http.MethodGet, env.URL+"/accounts/balances", nil, map[string]string{"Authorization": "Bearer " + token}); r.Status != 200 {
		t.Fatalf("balance: %d", r.Status)
	}
	l := listJournal(t, env, "")
	if !l.Enabled || l.Capacity != 50 || l.Size != 2 || len(l.Data) != 2 {
		t.Fatalf("journal %+v", l)
	}
	bal, tok := l.Data[0], l.Data[1] // newest first
	if bal.Path != "/accounts/balances" || tok.Path != "/api/auth/token" || bal.ID <= tok.ID {
		t.Fatalf("order: %s (%d) then %s (%d)", bal.Path, bal.ID, tok.Path, tok.ID)
	}
	raw, _ := json.Marshal(l)
	for _, secret := range []string{a.ClientSecret, token, "BEGIN%20CERTIFICATE", "BEGIN CERTIFICATE"} {
		if strings.Contains(string(raw), secret) {
			t.Errorf("the journal shows a secret: %q", secret)
		}
	}
	if tok.RequestHeaders["X-Ssl-Client-Cert"] != "***" || !strings.Contains(tok.RequestBody, `"clientSecret":"***"`) || !strings.Contains(tok.RequestBody, a.ClientID) {
		t.Errorf("token request: headers %v body %s", tok.RequestHeaders, tok.RequestBody)
	}
	if !strings.Contains(tok.ResponseBody, `"access_token":"***"`) || !strings.Contains(tok.ResponseBody, `"token_type":"Bearer"`) || tok.Status != 201 {
		t.Errorf("token answer: %d %s", tok.Status, tok.ResponseBody)
	}
	if bal.RequestHeaders["Authorization"] != "Bearer ***" || bal.AccountID == nil || *bal.AccountID != a.ID || !strings.Contains(bal.ResponseBody, "balanceAmount") {
		t.Errorf("balance request: headers %v account %v body %s", bal.RequestHeaders, bal.AccountID, bal.ResponseBody)
	}
	if bal.RequestID == "" || bal.Route != "/accounts/balances" {
		t.Errorf("balance entry %+v", bal)
	}
}

// TestJournal_Filters: account, path prefix, status (exact and class), since,
// after, ref and limit select entries; DELETE empties the journal; the
// journal's own routes are not recorded.
func TestJournal_Filters(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{JournalSize: 100})
	token := apitest.TokenFor(t, env, 0)
	auth := map[string]string{"Authorization": "Bearer " + token, "Content-Type": "application/json"}
	apitest.DoRaw(t, http.MethodGet, env.URL+"/api/transactions", nil, auth)
	apitest.DoRaw(t, http.MethodGet, env.URL+"/nowhere", nil, nil) // 401
	co := apitest.Do(t, http.MethodPost, env.URL+"/api/pix/cash-out", strings.NewReader(`{"value":1.00,"externalId":"journal-1",
		"details":{"key":"12345678909","keyType":"DOCUMENT","name":"Ana","document":"12345678909"}}`), auth)
	if co.Status != 201 {
		t.Fatalf("cash-out: %d %s", co.Status, co.Raw)
	}
	txID, _ := co.Body["transactionId"].(string)

	all := listJournal(t, env, "")
	if len(all.Data) != 4 {
		t.Fatalf("%d entries, want 4 (token, list, unmatched, cash-out)", len(all.Data))
	}
	cases := []struct {
		query string
		paths []string
	}{
		{query: "path=/api/", paths: []string{"/api/pix/cash-out", "/api/transactions", "/api/auth/token"}},
		{query: "status=401", paths: []string{"/nowhere"}},
		{query: "status=2xx&path=/api/pix", paths: []string{"/api/pix/cash-out"}},
		{query: "account=1", paths: []string{"/api/pix/cash-out", "/api/transactions"}},
		{query: "ref=" + url.QueryEscape(txID), paths: []string{"/api/pix/cash-out"}},
		{query: "ref=journal-1", paths: []string{"/api/pix/cash-out"}},
		{query: "ref=nothing&ref=journal-1", paths: []string{"/api/pix/cash-out"}},
		{query: "ref=nothing", paths: nil},
		{query: "after=" + jsonInt(all.Data[1].ID), paths: []string{"/api/pix/cash-out"}},
		{query: "limit=1", paths: []string{"/api/pix/cash-out"}},
		{query: "since=2999-01-01T00:00:00Z", paths: nil},
		{query: "since=2000-01-01T00:00:00Z&limit=2", paths: []string{"/api/pix/cash-out", "/nowhere"}},
	}
	for _, c := range cases {
		var got []string
		for _, e := range listJournal(t, env, c.query).Data {
			got = append(got, e.Path)
		}
		if strings.Join(got, " ") != strings.Join(c.paths, " ") {
			t.Errorf("?%s: %v, want %v", c.query, got, c.paths)
		}
	}
	if r := apitest.Do(t, http.MethodDelete, env.URL+"/_sandbox/requests", nil, nil); r.Status != 200 || r.Body["deleted"] != json.Number("4") {
		t.Fatalf("DELETE: %d %s", r.Status, r.Raw)
	}
	if l := listJournal(t, env, ""); l.Size != 0 || len(l.Data) != 0 {
		t.Fatalf("after DELETE: %+v", l)
	}
}

func jsonInt(n int64) string { b, _ := json.Marshal(n); return string(b) }

// TestJournal_LimitAboveCapacity: a limit above what the journal keeps
// answers what it keeps (issue 28: the console asks for 200).
func TestJournal_LimitAboveCapacity(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{JournalSize: 3})
	for range 5 {
		apitest.Do(t, http.MethodGet, env.URL+"/healthz", nil, nil)
	}
	l := listJournal(t, env, "limit=200")
	if l.Capacity != 3 || len(l.Data) != 3 {
		t.Errorf("limit=200 on a journal of 3: capacity %d, %d entries; want 3 and 3", l.Capacity, len(l.Data))
	}
}

// TestJournal_BadQuery: a bad filter answers 400 in the minimal shape naming it.
func TestJournal_BadQuery(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{JournalSize: 10})
	for _, c := range []struct{ query, field string }{
		{"status=99", "status"}, {"status=4x", "status"}, {"status=600", "status"}, {"since=yesterday", "since"},
		{"account=-1", "account"}, {"account=x", "account"}, {"after=-1", "after"}, {"limit=0", "limit"}, {"limit=1000001", "limit"},
		{"path=api", "path"}, {"matched=no", "matched"}, {"matched=1", "matched"},
	} {
		r := apitest.Do(t, http.MethodGet, env.URL+"/_sandbox/requests?"+c.query, nil, nil)
		if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Raw), c.field) {
			t.Errorf("?%s = %d %s, want 400 naming %s", c.query, r.Status, r.Raw, c.field)
		}
	}
}

// TestJournal_Off: without a journal the route says so and lists nothing.
func TestJournal_Off(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{})
	apitest.DoRaw(t, http.MethodGet, env.URL+"/healthz", nil, nil)
	if l := listJournal(t, env, ""); l.Enabled || l.Size != 0 || len(l.Data) != 0 {
		t.Fatalf("journal off: %+v", l)
	}
}
