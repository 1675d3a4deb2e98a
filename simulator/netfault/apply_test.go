package netfault_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/netfault"
)

// faultServer serves every request with fault f as the transport applies it:
// an in-place fault instead of the answer, another to the answer "hello,
// world" held; each request's arrival is sent on arrived, its end (whether
// answered) on done.
func faultServer(t *testing.T, f netfault.Fault, stop <-chan struct{}) (*httptest.Server, <-chan bool) {
	srv, _, done := faultServerArrivals(t, f, stop)
	return srv, done
}

func faultServerArrivals(t *testing.T, f netfault.Fault, stop <-chan struct{}) (*httptest.Server, <-chan struct{}, <-chan bool) {
	t.Helper()
	arrived, done := make(chan struct{}, 16), make(chan bool, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		var answered bool
		if f.InPlace() {
			answered = netfault.Answer(f, w, r, stop)
		} else {
			h := netfault.Hold(w)
			h.Header().Set("Content-Type", "text/plain")
			h.WriteHeader(http.StatusCreated)
			_, _ = io.WriteString(h, "hello, world")
			answered = h.Release(f, r, stop)
		}
		done <- answered
		if !answered {
			panic(http.ErrAbortHandler)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, arrived, done
}

// client is a client of its own, so that no connection is reused between
// tests.
func client(t *testing.T, timeout time.Duration) *http.Client {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: timeout}
}

func TestAnswer_Status(t *testing.T) {
	for _, tt := range []struct {
		fault, ctype, body string
		code               int
	}{
		{"status=502", "text/html", "<title>502 Bad Gateway</title>", 502},
		{"status=599", "text/html", "<h1>599 Error</h1>", 599},
		{"status=503;body=json", "application/json", `{"message":"Service Unavailable"}`, 503},
	} {
		f, _ := netfault.Parse(tt.fault)
		srv, done := faultServer(t, f, nil)
		resp, err := client(t, 5*time.Second).Post(srv.URL, "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.code || resp.Header.Get("Content-Type") != tt.ctype || !strings.Contains(string(b), tt.body) ||
			resp.Header.Get("Server") != netfault.GatewayName {
			t.Errorf("%s: %d %v %q", tt.fault, resp.StatusCode, resp.Header, b)
		}
		if !<-done {
			t.Errorf("%s: not answered", tt.fault)
		}
	}
}

func TestAnswer_ResetBefore(t *testing.T) {
	srv, done := faultServer(t, netfault.Fault{Kind: netfault.ResetBefore}, nil)
	if resp, err := client(t, 5*time.Second).Get(srv.URL); err == nil {
		resp.Body.Close()
		t.Fatalf("answered %d, want the connection closed", resp.StatusCode)
	}
	if <-done {
		t.Error("reset-before reported an answer")
	}
}

// TestAnswer_TimeoutEndsWhenTheClientGivesUp: a timeout holds the request
// until the client's own timeout, and the handler ends then (no goroutine
// left waiting); a POST body is read so that the client's going away is seen.
func TestAnswer_TimeoutEndsWhenTheClientGivesUp(t *testing.T) {
	srv, done := faultServer(t, netfault.Fault{Kind: netfault.Timeout}, nil)
	const clientTimeout = 150 * time.Millisecond
	start := time.Now()
	resp, err := client(t, clientTimeout).Post(srv.URL, "application/json", strings.NewReader(`{"value":1}`))
	if err == nil {
		resp.Body.Close()
		t.Fatalf("answered %d", resp.StatusCode)
	}
	if held := time.Since(start); held < clientTimeout {
		t.Errorf("the client gave up after %s, before its timeout %s", held, clientTimeout)
	}
	if !errors.Is(err, context.DeadlineExceeded) && !strings.Contains(err.Error(), "Timeout") {
		t.Errorf("the client's error is %v, want its timeout", err)
	}
	select {
	case answered := <-done:
		if answered {
			t.Error("timeout reported an answer")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the held request did not end when its client went away")
	}
}

// TestAnswer_TimeoutEndsWhenTheServerStops: Stop ends a timeout's hold while
// its client still waits, and the client sees the connection closed.
func TestAnswer_TimeoutEndsWhenTheServerStops(t *testing.T) {
	rs := netfault.NewRules()
	srv, arrived, done := faultServerArrivals(t, netfault.Fault{Kind: netfault.Timeout}, rs.Stopping())
	errc := make(chan error, 1)
	go func() {
		resp, err := client(t, time.Minute).Get(srv.URL)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	// Stop once the request arrived: before, Stop would only make its hold
	// end at once, which proves less.
	select {
	case <-arrived:
	case <-time.After(10 * time.Second):
		t.Fatal("the request never arrived")
	}
	rs.Stop()
	rs.Stop() // twice is fine
	select {
	case answered := <-done:
		if answered {
			t.Error("a stopped timeout reported an answer")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Stop did not end the hold")
	}
	if err := <-errc; err == nil {
		t.Error("the client got an answer")
	}
}

func TestHeld_Delay(t *testing.T) {
	const delay = 200 * time.Millisecond
	srv, done := faultServer(t, netfault.Fault{Kind: netfault.Delay, Delay: delay}, nil)
	start := time.Now()
	resp, err := client(t, 10*time.Second).Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if held := time.Since(start); held < delay {
		t.Errorf("answered after %s, before the delay %s", held, delay)
	}
	if resp.StatusCode != http.StatusCreated || string(b) != "hello, world" || resp.Header.Get("Content-Type") != "text/plain" {
		t.Errorf("the delayed answer: %d %v %q", resp.StatusCode, resp.Header, b)
	}
	if !<-done {
		t.Error("delay reported no answer")
	}
}

func TestHeld_ResetAfter(t *testing.T) {
	srv, done := faultServer(t, netfault.Fault{Kind: netfault.ResetAfter}, nil)
	if resp, err := client(t, 5*time.Second).Get(srv.URL); err == nil {
		resp.Body.Close()
		t.Fatalf("answered %d, want the connection closed", resp.StatusCode)
	}
	if <-done {
		t.Error("reset-after reported an answer")
	}
}

// TestHeld_Trickle: the whole answer arrives, at the rate asked: 12 bytes at
// 40 a second (pieces of 4 every 100 ms) take at least 200 ms.
func TestHeld_Trickle(t *testing.T) {
	srv, done := faultServer(t, netfault.Fault{Kind: netfault.Trickle, Rate: 40}, nil)
	start := time.Now()
	resp, err := client(t, 10*time.Second).Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || string(b) != "hello, world" || resp.StatusCode != http.StatusCreated || resp.ContentLength != 12 {
		t.Fatalf("trickled answer: %d %d %q %v", resp.StatusCode, resp.ContentLength, b, err)
	}
	if took := time.Since(start); took < 200*time.Millisecond {
		t.Errorf("12 bytes at 40 B/s took %s", took)
	}
	if !<-done {
		t.Error("trickle reported no answer")
	}
}
