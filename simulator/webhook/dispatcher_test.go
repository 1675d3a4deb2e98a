package webhook

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// received is one request as a receiver saw it.
type received struct {
	header http.Header
	body   []byte
	path   string
}

// receiver is a test webhook endpoint answering with statuses in turn (the
// last one repeated) and recording every request.
type receiver struct {
	srv      *httptest.Server
	mu       sync.Mutex
	got      []received
	statuses []int
	body     string
}

func newReceiver(t *testing.T, statuses ...int) *receiver {
	t.Helper()
	r := &receiver{statuses: statuses}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, received{header: req.Header.Clone(), body: b, path: req.URL.Path})
		status := http.StatusOK
		if len(r.statuses) > 0 {
			status = r.statuses[min(len(r.got), len(r.statuses))-1]
		}
		body := r.body
		r.mu.Unlock()
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) requests() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got...)
}

func delivery(url string) Delivery {
	ev := testEvent()
	return OneOff(ev, url, t0)
}

func TestSendRequest(t *testing.T) {
	rcv := newReceiver(t, http.StatusNoContent)
	d := delivery(rcv.srv.URL + "/hook")
	d.Headers = []Header{{Key: "X-Api-Key", Value: "secret-key"}, {Key: "x-tenant", Value: "t1"}, {Key: "X-Multi", Value: "a"}, {Key: "X-Multi", Value: "b"}}
	body := []byte(`{"type":"TRANSFER","data":{"id":42,"amount":"10.00"}}`)
	wall := t0.Add(400 * 24 * time.Hour) // the wall clock, far from the simulation time t0
	dp := Dispatcher{Wall: func() time.Time { return wall }}
	a := dp.Send(context.Background(), d, "evt_FIXED", body, 900, 1, t0)

	if a.StatusCode != http.StatusNoContent || a.Error != "" || a.ID != 900 || a.Number != 1 || !a.SentAt.Equal(t0) ||
		a.URL != d.URL || a.RequestBody != string(body) || a.Duration <= 0 {
		t.Fatalf("attempt %+v", a)
	}
	reqs := rcv.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if string(r.body) != string(body) || r.path != "/hook" {
		t.Fatalf("receiver got %q at %s", r.body, r.path)
	}
	want := map[string]string{
		"Content-Type":       "application/json",
		"User-Agent":         DefaultUserAgent,
		"X-Api-Key":          "secret-key",
		"X-Tenant":           "t1",
		"Webhook-Id":         "evt_FIXED",
		"Webhook-Timestamp":  strconv.FormatInt(wall.Unix(), 10), // wall time, whatever the simulation time
		SimulationTimeHeader: "2025-03-14T12:00:00.000Z",         // t0, the simulation time of the attempt
	}
	for k, v := range want {
		if got := r.header.Get(k); got != v {
			t.Errorf("header %s = %q, want %q", k, got, v)
		}
	}
	if got := r.header.Values("X-Multi"); strings.Join(got, ",") != "a,b" {
		t.Errorf("X-Multi = %q", got)
	}
	if got := r.header.Get("Webhook-Signature"); got != "" {
		t.Errorf("unsigned delivery sent webhook-signature %q", got)
	}
	// RequestHeaders lists what was set, sorted by name.
	var names []string
	for _, h := range a.RequestHeaders {
		names = append(names, h.Key+"="+h.Value)
	}
	wantNames := "Content-Type=application/json User-Agent=pixsandbox-webhooks/1 Webhook-Id=evt_FIXED Webhook-Timestamp=" +
		strconv.FormatInt(wall.Unix(), 10) + " X-Api-Key=secret-key X-Multi=a X-Multi=b X-Pixsandbox-Simulation-Time=2025-03-14T12:00:00.000Z X-Tenant=t1"
	if got := strings.Join(names, " "); got != wantNames {
		t.Errorf("RequestHeaders\n got %s\nwant %s", got, wantNames)
	}
}

func TestSendCustomHeadersCannotOverride(t *testing.T) {
	rcv := newReceiver(t)
	d := delivery(rcv.srv.URL)
	// Not allowed by ValidateTarget, but Send must still keep its own headers.
	d.Headers = []Header{{Key: "Content-Type", Value: "text/plain"}, {Key: "webhook-id", Value: "forged"}, {Key: "Webhook-Signature", Value: "v1,forged"}}
	dp := Dispatcher{UserAgent: "custom-agent/2"}
	a := dp.Send(context.Background(), d, "evt_REAL", []byte(`{}`), 1, 1, t0)
	if a.StatusCode != http.StatusOK {
		t.Fatalf("attempt %+v", a)
	}
	h := rcv.requests()[0].header
	if h.Get("Content-Type") != "application/json" || strings.Join(h.Values("Webhook-Id"), ",") != "evt_REAL" ||
		h.Get("Webhook-Signature") != "" || h.Get("User-Agent") != "custom-agent/2" {
		t.Fatalf("headers %v", h)
	}
}

func TestSendStableWebhookID(t *testing.T) {
	rcv := newReceiver(t, 500, 200)
	d := delivery(rcv.srv.URL)
	wall := t0
	dp := Dispatcher{Wall: func() time.Time { return wall }}
	t1 := t0.Add(5 * time.Second)
	dp.Send(context.Background(), d, d.EventID, []byte(`{}`), 1, 1, t0.Add(-time.Hour))
	wall = t1
	dp.Send(context.Background(), d, d.EventID, []byte(`{}`), 2, 2, t0.Add(-time.Hour))
	reqs := rcv.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if a, b := reqs[0].header.Get("Webhook-Id"), reqs[1].header.Get("Webhook-Id"); a != d.EventID || b != d.EventID {
		t.Fatalf("webhook-id %q then %q, want %q twice", a, b, d.EventID)
	}
	if a, b := reqs[0].header.Get("Webhook-Timestamp"), reqs[1].header.Get("Webhook-Timestamp"); a != strconv.FormatInt(t0.Unix(), 10) || b != strconv.FormatInt(t1.Unix(), 10) {
		t.Fatalf("webhook-timestamp %s then %s", a, b)
	}
	// An empty eventID argument falls back to the delivery's.
	dp.Send(context.Background(), d, "", []byte(`{}`), 3, 3, t1)
	if got := rcv.requests()[2].header.Get("Webhook-Id"); got != d.EventID {
		t.Fatalf("fallback webhook-id %q", got)
	}
}

func TestSignatureVector(t *testing.T) {
	const (
		id   = "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W"
		ts   = 1674087231
		body = `{"type":"RECEIVE","data":{"id":1}}`
		want = "v1,21QfGjgdxlXsyIdNpOti8I+eIv0G67loCf2DlZJ00Kw="
	)
	rcv := newReceiver(t)
	d := delivery(rcv.srv.URL)
	d.Secret = vectorSecret
	dp := Dispatcher{Wall: func() time.Time { return time.Unix(ts, 0) }} // the signed time is the wall clock's
	a := dp.Send(context.Background(), d, id, []byte(body), 1, 1, time.Unix(ts, 0).Add(-90*24*time.Hour))
	if a.StatusCode != http.StatusOK || a.Error != "" {
		t.Fatalf("attempt %+v", a)
	}
	r := rcv.requests()[0]
	if got := r.header.Get("Webhook-Signature"); got != want {
		t.Fatalf("webhook-signature %q, want %q", got, want)
	}
	if got := r.header.Get("Webhook-Timestamp"); got != strconv.Itoa(ts) {
		t.Fatalf("webhook-timestamp %q", got)
	}
	wh, err := standardwebhooks.NewWebhook(vectorSecret)
	if err != nil {
		t.Fatal(err)
	}
	if err := wh.VerifyIgnoringTimestamp(r.body, r.header); err != nil {
		t.Fatalf("VerifyIgnoringTimestamp: %v", err)
	}
	if err := wh.Verify(r.body, r.header); err == nil {
		t.Fatal("Verify accepted a 2023 timestamp against the wall clock")
	}
	var sigHeader string
	for _, h := range a.RequestHeaders {
		if h.Key == "Webhook-Signature" {
			sigHeader = h.Value
		}
	}
	if sigHeader != want {
		t.Fatalf("RequestHeaders signature %q", sigHeader)
	}
}

func TestSignatureVerifies(t *testing.T) {
	rcv := newReceiver(t)
	d := delivery(rcv.srv.URL)
	d.Secret = NewSecret()
	body := []byte(`{"type":"TRANSFER","data":{"id":42}}`)
	var dp Dispatcher
	// Verify checks the timestamp against the wall clock, so this attempt's
	// simulation time is the wall time.
	now := time.Now()
	if a := dp.Send(context.Background(), d, d.EventID, body, 1, 1, now); a.StatusCode != http.StatusOK {
		t.Fatalf("attempt %+v", a)
	}
	r := rcv.requests()[0]
	wh, err := standardwebhooks.NewWebhook(d.Secret)
	if err != nil {
		t.Fatal(err)
	}
	if err := wh.Verify(r.body, r.header); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if err := wh.VerifyIgnoringTimestamp(r.body, r.header); err != nil {
		t.Fatalf("VerifyIgnoringTimestamp: %v", err)
	}
	other, _ := standardwebhooks.NewWebhook(NewSecret())
	if err := other.VerifyIgnoringTimestamp(r.body, r.header); err == nil {
		t.Fatal("another secret verified the signature")
	}
	if err := wh.VerifyIgnoringTimestamp(append([]byte(nil), append(r.body, ' ')...), r.header); err == nil {
		t.Fatal("a changed body verified")
	}
}

func TestSendBadSecretSendsNothing(t *testing.T) {
	rcv := newReceiver(t)
	d := delivery(rcv.srv.URL)
	d.Secret = "whsec_short"
	var dp Dispatcher
	a := dp.Send(context.Background(), d, d.EventID, []byte(`{}`), 1, 1, t0)
	if a.StatusCode != 0 || a.Error == "" || len(rcv.requests()) != 0 {
		t.Fatalf("attempt %+v, %d requests", a, len(rcv.requests()))
	}
}

// TestRetryWalk walks a delivery to a receiver answering 500, 500, 200
// through Send and Record with DefaultPolicy.
func TestRetryWalk(t *testing.T) {
	rcv := newReceiver(t, 500, 500, 200)
	d := Plan(testEvent(), []Target{{ID: 1, AccountID: 7, URL: rcv.srv.URL, EventType: EventCashOut, Active: true, CreatedAt: t0}}, t0)[0]
	var dp Dispatcher
	var waits []time.Duration
	for n := 1; !d.Status.Final(); n++ {
		if n > 10 {
			t.Fatal("delivery never finished")
		}
		sent := d.NextAttemptAt
		d = d.Record(dp.Send(context.Background(), d, d.EventID, []byte(`{"n":1}`), int64(n), n, sent), DefaultPolicy)
		if d.Status == StatusRetrying {
			waits = append(waits, d.NextAttemptAt.Sub(sent))
		}
	}
	if d.Status != StatusDelivered || len(d.Attempts) != 3 || !d.NextAttemptAt.IsZero() {
		t.Fatalf("delivery %s after %d attempts", d.Status, len(d.Attempts))
	}
	if len(waits) != 2 || waits[0] != 5*time.Second || waits[1] != 30*time.Second {
		t.Fatalf("waits %v, want [5s 30s]", waits)
	}
	for i, a := range d.Attempts {
		if a.Number != i+1 || a.StatusCode != []int{500, 500, 200}[i] {
			t.Errorf("attempt %d: %+v", i+1, a)
		}
	}
	if !d.Attempts[2].SentAt.Equal(t0.Add(35 * time.Second)) {
		t.Errorf("third attempt at %v", d.Attempts[2].SentAt)
	}
	ids := map[string]bool{}
	for _, r := range rcv.requests() {
		ids[r.header.Get("Webhook-Id")] = true
	}
	if len(ids) != 1 || !ids[d.EventID] {
		t.Fatalf("webhook-ids %v", ids)
	}
}

func TestSendDoesNotFollowRedirects(t *testing.T) {
	target := newReceiver(t)
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.srv.URL+"/moved", http.StatusFound)
	}))
	t.Cleanup(redirect.Close)
	d := delivery(redirect.URL)
	for name, dp := range map[string]*Dispatcher{
		"default client": {},
		"given client":   {Client: &http.Client{}}, // follows redirects by default
	} {
		t.Run(name, func(t *testing.T) {
			a := dp.Send(context.Background(), d, d.EventID, []byte(`{}`), 1, 1, t0)
			if a.StatusCode != http.StatusFound || a.Error != "" || Success(a.StatusCode) {
				t.Fatalf("attempt %+v", a)
			}
			if n := len(target.requests()); n != 0 {
				t.Fatalf("the redirect was followed (%d requests)", n)
			}
			if got := d.Record(a, DefaultPolicy).Status; got != StatusRetrying {
				t.Fatalf("status after a 302: %s", got)
			}
		})
	}
}

func TestSendTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // runs first: frees the handler before Close waits for it
	dp := Dispatcher{Timeout: 50 * time.Millisecond}
	d := delivery(srv.URL)
	a := dp.Send(context.Background(), d, d.EventID, []byte(`{}`), 1, 1, t0)
	if a.StatusCode != 0 || a.Error == "" {
		t.Fatalf("attempt %+v", a)
	}
	if a.Duration < 50*time.Millisecond {
		t.Fatalf("duration %v shorter than the timeout", a.Duration)
	}
	// A given client without a timeout is bounded by Timeout too.
	dp.Client = &http.Client{}
	if a := dp.Send(context.Background(), d, d.EventID, []byte(`{}`), 2, 2, t0); a.StatusCode != 0 || a.Error == "" {
		t.Fatalf("given client: attempt %+v", a)
	}
}

func TestSendConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	var dp Dispatcher
	d := delivery("http://" + addr + "/hook")
	a := dp.Send(context.Background(), d, d.EventID, []byte(`{}`), 1, 1, t0)
	if a.StatusCode != 0 || a.Error == "" || a.ResponseExcerpt != "" {
		t.Fatalf("attempt %+v", a)
	}
	if got := d.Record(a, DefaultPolicy); got.Status != StatusRetrying {
		t.Fatalf("status %s", got.Status)
	}
}

func TestSendBadURLAndNilContext(t *testing.T) {
	var dp Dispatcher
	d := delivery("://no-scheme")
	a := dp.Send(context.Background(), d, d.EventID, []byte(`{}`), 1, 1, t0)
	if a.StatusCode != 0 || a.Error == "" {
		t.Fatalf("bad URL: attempt %+v", a)
	}
	rcv := newReceiver(t)
	d = delivery(rcv.srv.URL)
	// A nil context must not panic.
	//lint:ignore SA1012 Send's handling of a nil context is what this line tests
	if a := dp.Send(nil, d, d.EventID, []byte(`{}`), 1, 1, t0); a.StatusCode != http.StatusOK {
		t.Fatalf("nil context: attempt %+v", a)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if a := dp.Send(ctx, d, d.EventID, []byte(`{}`), 1, 1, t0); a.StatusCode != 0 || a.Error == "" {
		t.Fatalf("cancelled context: attempt %+v", a)
	}
}

func TestSendResponseExcerpt(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{name: "short", body: `{"ok":true}`, want: `{"ok":true}`},
		{name: "capped at 1 KiB", body: strings.Repeat("x", 5000), want: strings.Repeat("x", 1024)},
		{name: "rune cut at the cap", body: strings.Repeat("a", 1023) + "é and more", want: strings.Repeat("a", 1023)},
		{name: "invalid bytes", body: "ok\xffok", want: "ok\uFFFDok"},
		{name: "invalid bytes near the cap", body: "\xff\xfe" + strings.Repeat("b", 2000), want: "\uFFFD" + strings.Repeat("b", 1021)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rcv := newReceiver(t, 400)
			rcv.body = tt.body
			var dp Dispatcher
			d := delivery(rcv.srv.URL)
			a := dp.Send(context.Background(), d, d.EventID, []byte(`{}`), 1, 1, t0)
			if a.StatusCode != 400 || a.Error != "" {
				t.Fatalf("attempt %+v", a)
			}
			if a.ResponseExcerpt != tt.want || len(a.ResponseExcerpt) > 1024 || !utf8.ValidString(a.ResponseExcerpt) {
				t.Fatalf("excerpt (%d bytes) %.40q…, want (%d bytes) %.40q…", len(a.ResponseExcerpt), a.ResponseExcerpt, len(tt.want), tt.want)
			}
		})
	}
}
