package framework

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// mustStartReceiver starts a receiver on a kernel-chosen loopback port and
// closes it when the test ends.
func mustStartReceiver(tb testing.TB, publicURL string) *Receiver {
	tb.Helper()
	r, err := StartReceiver("127.0.0.1:0", publicURL)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := r.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return r
}

// post sends body to url and returns the status; it must run on the test's
// goroutine.
func post(tb testing.TB, url, body string, header http.Header) int {
	tb.Helper()
	status, err := postErr(url, body, header)
	if err != nil {
		tb.Fatal(err)
	}
	return status
}

func postErr(url, body string, header http.Header) (int, error) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

func TestReceiver_RecordsDeliveriesPerToken(t *testing.T) {
	r := mustStartReceiver(t, "")
	a, b := r.NewInbox(), r.NewInbox()
	if a.Token == b.Token {
		t.Fatalf("two inboxes share token %q", a.Token)
	}
	if got := post(t, a.URL(), `{"type":"TRANSFER","data":{"id":1}}`, http.Header{"X-Custom": {"v1"}}); got != http.StatusOK {
		t.Fatalf("status = %d, want 200", got)
	}
	post(t, a.URL()+"/cash-out?x=1", `{"n":2}`, nil)

	ds := a.Deliveries()
	if len(ds) != 2 {
		t.Fatalf("inbox a has %d deliveries, want 2", len(ds))
	}
	if got := ds[0]; got.Method != http.MethodPost || got.Path != "/hooks/"+a.Token || got.Header.Get("X-Custom") != "v1" || got.Status != 200 {
		t.Errorf("first delivery = %+v", got)
	}
	if v, ok := ds[0].Field("data.id"); !ok || fmt.Sprint(v) != "1" {
		t.Errorf(`Field("data.id") = %v, %v; want 1, true`, v, ok)
	}
	if got := ds[1]; got.Path != "/hooks/"+a.Token+"/cash-out" || got.Query != "x=1" {
		t.Errorf("second delivery path %q query %q", got.Path, got.Query)
	}
	if ds[0].ReceivedAt.IsZero() {
		t.Error("ReceivedAt not set")
	}
	if last := a.Last(); last == nil || string(last.Body) != `{"n":2}` {
		t.Errorf("Last() = %v", last)
	}
	if n := b.Count(); n != 0 {
		t.Errorf("inbox b has %d deliveries, want 0", n)
	}
	if b.Last() != nil {
		t.Error("Last() of an empty inbox is not nil")
	}
}

func TestReceiver_ScriptedStatuses(t *testing.T) {
	r := mustStartReceiver(t, "")
	in := r.NewInbox()
	in.Respond(500, 503, 200)
	var got []int
	for range 5 {
		got = append(got, post(t, in.URL(), `{}`, nil))
	}
	want := []int{500, 503, 200, 200, 200}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("statuses = %v, want %v", got, want)
	}
	var recorded []int
	for _, d := range in.Deliveries() {
		recorded = append(recorded, d.Status)
	}
	if fmt.Sprint(recorded) != fmt.Sprint(want) {
		t.Fatalf("recorded statuses = %v, want %v", recorded, want)
	}
}

func TestReceiver_OutsideHooksIs404(t *testing.T) {
	r := mustStartReceiver(t, "")
	for _, p := range []string{"/", "/hooks/", "/other/x"} {
		if got := post(t, r.BaseURL()+p, `{}`, nil); got != http.StatusNotFound {
			t.Errorf("POST %s = %d, want 404", p, got)
		}
	}
}

func TestReceiver_URL(t *testing.T) {
	r := mustStartReceiver(t, "")
	if want := "http://" + r.Addr() + "/hooks/tok"; r.URL("tok") != want {
		t.Errorf("URL = %q, want %q", r.URL("tok"), want)
	}
	pub := mustStartReceiver(t, "https://hooks.example.test/tunnel/")
	if want := "https://hooks.example.test/tunnel/hooks/tok"; pub.URL("tok") != want {
		t.Errorf("URL with public base = %q, want %q", pub.URL("tok"), want)
	}
}

func TestReceiver_Forget(t *testing.T) {
	r := mustStartReceiver(t, "")
	in := r.NewInbox()
	in.Respond(500)
	in.Forget()
	if got := post(t, in.URL(), `{}`, nil); got != http.StatusOK {
		t.Errorf("status after Forget = %d, want 200 (script dropped)", got)
	}
	in.Forget()
	if n := in.Count(); n != 0 {
		t.Errorf("Count after Forget = %d, want 0", n)
	}
}

func TestReceiver_Concurrent(t *testing.T) {
	r := mustStartReceiver(t, "")
	in := r.NewInbox()
	const n = 32
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if _, err := postErr(in.URL(), fmt.Sprintf(`{"i":%d}`, i), nil); err != nil {
				t.Error(err)
			}
			_ = in.Count()
		})
	}
	wg.Wait()
	if got := in.Count(); got != n {
		t.Fatalf("Count = %d, want %d", got, n)
	}
}

func TestStartReceiver_BadAddress(t *testing.T) {
	if _, err := StartReceiver("not-an-address", ""); err == nil {
		t.Fatal("StartReceiver on a bad address: want an error")
	}
}
