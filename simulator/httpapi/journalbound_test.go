package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi"
	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

// TestJournal_SecretSpellings: every spelling of clientSecret that the token
// route accepts (it answers 201 to each), in a whole body and in one cut at
// the journal's body limit, secrets in a query string, a form body and an
// admin token header are all masked in the journal.
func TestJournal_SecretSpellings(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{JournalSize: 200})
	a := env.Fixtures.Accounts[0]
	pemBytes, _ := env.Fixtures.ReadFile(a.Certificate)
	hdr := map[string]string{"Content-Type": "application/json", "X-SSL-Client-Cert": pix.EncodeCertHeader(pemBytes)}
	member := func(key string) string { return `"` + key + `":"` + a.ClientSecret + `"` }
	id := `"clientId":"` + a.ClientID + `"`
	pad := func(n int) string { return `"pad":"` + strings.Repeat("x", n) + `"` }

	bodies := map[string]string{}
	for _, key := range []string{"clientSecret", "CLIENTSECRET", "clientsecret", "ClientSecret", "clientſecret", `client\u017fecret`,
		`client\u0053ecret`, `\u0063\u006c\u0069\u0065\u006e\u0074\u0053\u0065\u0063\u0072\u0065\u0074`} {
		bodies["key "+key] = "{" + id + "," + member(key) + "}"
		bodies["key "+key+" in a body over the limit"] = "{" + id + "," + member(key) + "," + pad(20<<10) + "}"
	}
	// The secret's value cut by the limit: its first 8 bytes are recorded.
	around := `{"pad":"",` + id + `,"client\u0053ecret":"`
	bodies["value cut at the limit"] = `{"pad":"` + strings.Repeat("x", 16<<10-8-len(around)) + `",` + id + `,"client\u0053ecret":"` + a.ClientSecret + `"}`

	for name, body := range bodies {
		if r := apitest.DoRaw(t, http.MethodPost, env.URL+"/api/auth/token", strings.NewReader(body), hdr); r.Status != http.StatusCreated {
			t.Fatalf("%s: the token route answers %d %s", name, r.Status, r.Raw)
		}
	}
	queries := []string{"access_token=q-secret-1", "ACCESS_TOKEN=q-secret-2", "access%5Ftoken=q-secret-3", "adminToken=q-secret-4",
		"client_secret=q-secret-5&x=1", "x=1&password=q-secret-6"}
	for _, q := range queries {
		apitest.DoRaw(t, http.MethodGet, env.URL+"/accounts/balances?"+q, nil, nil)
	}
	apitest.DoRaw(t, http.MethodPost, env.URL+"/api/auth/token", strings.NewReader("clientId=x&client_secret=f-secret-1"),
		map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
	apitest.DoRaw(t, http.MethodGet, env.URL+"/_sandbox/clock", nil, map[string]string{"X-Sandbox-Admin-Token": "h-secret-1", "X-Api-Token": "h-secret-2"})

	r := apitest.DoRaw(t, http.MethodGet, env.URL+"/_sandbox/requests?limit=200", nil, nil)
	l := listJournal(t, env, "limit=200")
	if want := len(bodies) + len(queries) + 2; len(l.Data) != want {
		t.Fatalf("the journal holds %d entries, want %d", len(l.Data), want)
	}
	secrets := []string{a.ClientSecret, a.ClientSecret[:8], "f-secret-1", "h-secret-1", "h-secret-2"}
	for i := range queries {
		secrets = append(secrets, "q-secret-"+strconv.Itoa(i+1))
	}
	for _, s := range secrets {
		if strings.Contains(string(r.Raw), s) {
			t.Errorf("the journal shows %q", s)
		}
	}
	masked := 0
	for _, e := range l.Data {
		if strings.Contains(e.RequestBody, `":"***"`) {
			masked++
		}
	}
	if masked != len(bodies) {
		t.Errorf("%d of %d token bodies show a masked secret", masked, len(bodies))
	}
}

// TestJournal_FatHeadersBounded: 5,000 requests with a 60 KB header each
// leave the heap grown by less than the journal's byte budget plus 10 MiB, at
// the default size and at 5,000 entries, as one header or as sixty; the fat
// header is cut in the entry.
func TestJournal_FatHeadersBounded(t *testing.T) {
	for _, size := range []int{1000, 5000} {
		for _, headers := range []int{1, 60} {
			t.Run(strconv.Itoa(size)+"/"+strconv.Itoa(headers), func(t *testing.T) { fatHeaders(t, size, headers) })
		}
	}
}

func fatHeaders(t *testing.T, size, headers int) {
	env := simulatortest.New(t, simulatortest.Options{JournalSize: size})
	h := env.Server.Config.Handler
	fat := strings.Repeat("f", 60_000/headers)
	before := heapAfterGC()
	for i := range 5000 {
		req := httptest.NewRequest(http.MethodGet, "/accounts/balances", nil)
		for k := range headers {
			// each request's own, as net/http reads it
			req.Header.Set("X-Fat-"+strconv.Itoa(k), strings.Clone(fat))
		}
		req.Header.Set("X-Seq", strconv.Itoa(i))
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
	grown := int64(heapAfterGC()) - int64(before)
	if limit := int64(httpapi.DefaultJournalBytes + 10<<20); grown > limit {
		t.Errorf("the heap grew %d MiB, over the journal's budget plus 10 MiB (%d MiB)", grown>>20, limit>>20)
	}
	l := listJournal(t, env, "limit=1")
	if l.Size == 0 || len(l.Data[0].RequestHeaders["X-Fat-0"]) > 2<<10 {
		t.Fatalf("journal of %d entries; last X-Fat-0 kept %d bytes", l.Size, len(l.Data[0].RequestHeaders["X-Fat-0"]))
	}
	t.Logf("%d entries held, heap grew %.1f MiB", l.Size, float64(grown)/(1<<20))
}

func heapAfterGC() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
