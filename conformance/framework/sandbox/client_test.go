package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
)

// fakeControlPlane answers control-plane routes with canned bodies and
// records the requests.
type fakeControlPlane struct {
	mu       sync.Mutex
	requests []recorded
}

type recorded struct {
	method, path, body, admin string
}

func (f *fakeControlPlane) last() recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests[len(f.requests)-1]
}

func startFakeControlPlane(t *testing.T) (*Client, *fakeControlPlane) {
	t.Helper()
	fake := &fakeControlPlane{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		fake.mu.Lock()
		fake.requests = append(fake.requests, recorded{r.Method, r.URL.Path, string(b), r.Header.Get("X-Sandbox-Admin-Token")})
		fake.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch r.Method + " " + r.URL.Path {
		case "GET /_sandbox/clock":
			io.WriteString(w, `{"now":"2025-01-01T12:00:00.5Z","mode":"virtual"}`)
		case "POST /_sandbox/clock/advance", "POST /_sandbox/clock":
			io.WriteString(w, `{"now":"2025-01-01T12:01:30Z","mode":"virtual","jobsRun":2}`)
		case "POST /_sandbox/accounts":
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, `{"id":42,"name":"N","document":"12345678909","clientId":"c","clientSecret":"s","certificate":"C","privateKey":"K","balance":1234.56,"pixKeys":[{"type":"EVP","key":"k"}]}`)
		case "POST /_sandbox/accounts/42/certificates":
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, `{"certificate":"C2","privateKey":"K2","fingerprint":"ab","notBefore":"2024-12-30T12:00:00Z","notAfter":"2024-12-31T12:00:00Z","revoked":true}`)
		case "POST /_sandbox/jobs":
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, `{"id":"j1","kind":"marker","due":"2025-01-01T12:00:10Z","status":"scheduled"}`)
		case "GET /_sandbox/jobs/j1":
			io.WriteString(w, `{"id":"j1","kind":"marker","due":"2025-01-01T12:00:10Z","status":"done","ranAt":"2025-01-01T12:00:10Z"}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"statusCode":404,"message":"no such route","error":"Not Found"}`)
		}
	}))
	t.Cleanup(srv.Close)
	return New(apiclient.NewClient(srv.URL, 5*time.Second), "admin-secret"), fake
}

func TestSandboxClient(t *testing.T) {
	sb, fake := startFakeControlPlane(t)
	ctx := context.Background()

	c, err := sb.Clock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Virtual() || !c.Now.Equal(time.Date(2025, 1, 1, 12, 0, 0, 5e8, time.UTC)) {
		t.Errorf("Clock = %+v", c)
	}
	if got := fake.last(); got.admin != "admin-secret" || got.body != "" {
		t.Errorf("GET clock request = %+v, want the admin token and no body", got)
	}

	if c, err = sb.Advance(ctx, 90); err != nil || c.JobsRun != 2 {
		t.Fatalf("Advance = %+v, %v", c, err)
	}
	if got := fake.last().body; got != `{"seconds":90,"wait":"webhooks"}` {
		t.Errorf("Advance body = %s", got)
	}
	if _, err = sb.AdvanceDuration(ctx, "30m"); err != nil {
		t.Fatal(err)
	}
	if got := fake.last().body; got != `{"duration":"30m","wait":"webhooks"}` {
		t.Errorf("AdvanceDuration body = %s", got)
	}
	if _, err = sb.SetClock(ctx, time.Date(2025, 1, 1, 10, 0, 0, 0, time.FixedZone("BRT", -3*3600))); err != nil {
		t.Fatal(err)
	}
	if got := fake.last().body; got != `{"now":"2025-01-01T13:00:00Z","wait":"webhooks"}` {
		t.Errorf("SetClock body = %s", got)
	}

	a, err := sb.CreateAccount(ctx, AccountOptions{Balance: "1234.56"})
	if err != nil {
		t.Fatal(err)
	}
	if a.ID != "42" || a.ClientID != "c" || a.Certificate != "C" || a.Balance != "1234.56" || len(a.PixKeys) != 1 {
		t.Errorf("CreateAccount = %+v", a)
	}
	if got := fake.last().body; got != `{"balance":1234.56}` {
		t.Errorf("CreateAccount body = %s, want the balance as a JSON number", got)
	}
	if _, err := sb.CreateAccount(ctx, AccountOptions{Balance: "1.234"}); err == nil {
		t.Error("CreateAccount with 3 decimals: want an error before sending")
	}

	cert, err := sb.AddCertificate(ctx, a.ID.String(), CertificateOptions{
		NotBefore: time.Date(2024, 12, 30, 12, 0, 0, 0, time.UTC),
		NotAfter:  time.Date(2024, 12, 31, 12, 0, 0, 0, time.UTC),
		Revoked:   true,
	})
	if err != nil {
		t.Fatal(err)
	}
	if cert.Certificate != "C2" || !cert.Revoked || cert.Fingerprint != "ab" {
		t.Errorf("AddCertificate = %+v", cert)
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(fake.last().body), &body); err != nil {
		t.Fatal(err)
	}
	if body["notBefore"] != "2024-12-30T12:00:00Z" || body["notAfter"] != "2024-12-31T12:00:00Z" || body["revoked"] != true {
		t.Errorf("AddCertificate body = %v", body)
	}
	if _, err := sb.AddCertificate(ctx, a.ID.String(), CertificateOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := fake.last().body; got != `{}` {
		t.Errorf("AddCertificate with defaults sent %s, want {}", got)
	}

	j, err := sb.ScheduleJob(ctx, JobOptions{Kind: "marker", Seconds: 10})
	if err != nil {
		t.Fatal(err)
	}
	if got := fake.last().body; got != `{"kind":"marker","seconds":10}` {
		t.Errorf("ScheduleJob body = %s", got)
	}
	if j.ID != "j1" || j.Status != "scheduled" || j.RanAt != nil {
		t.Errorf("ScheduleJob = %+v", j)
	}
	if j, err = sb.Job(ctx, "j1"); err != nil || j.Status != "done" || j.RanAt == nil {
		t.Errorf("Job = %+v, %v", j, err)
	}

	_, err = sb.Job(ctx, "unknown")
	var se *StatusError
	if !errors.As(err, &se) || se.Want != 200 || se.Response.Status != 404 {
		t.Fatalf("Job(unknown) error = %v, want a *StatusError for 404", err)
	}
}

func TestID_UnmarshalJSON(t *testing.T) {
	for in, want := range map[string]ID{`42`: "42", `"abc"`: "abc", `"7"`: "7"} {
		var id ID
		if err := json.Unmarshal([]byte(in), &id); err != nil || id != want {
			t.Errorf("Unmarshal(%s) = %q, %v; want %q", in, id, err, want)
		}
	}
	var id ID
	if err := json.Unmarshal([]byte(`{}`), &id); err == nil {
		t.Error("Unmarshal({}) = nil error")
	}
}

// requestBody reads the JSON object a fake control plane received; nil when
// the request had no body. A body that is not JSON fails the test.
func requestBody(t *testing.T, r *http.Request) map[string]any {
	b, _ := io.ReadAll(r.Body)
	if len(b) == 0 {
		return nil
	}
	v, err := apiclient.DecodeJSON(b)
	if err != nil {
		t.Errorf("%s %s: body is not JSON: %s", r.Method, r.URL, b)
	}
	body, _ := v.(map[string]any)
	return body
}
