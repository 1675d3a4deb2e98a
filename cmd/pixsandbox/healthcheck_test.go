package main

import (
	"bytes"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/cmd/pixsandbox/internal/cmdline"
)

func TestHealthcheck(t *testing.T) {
	m := MustRunMain(t, nil)
	var out, errb bytes.Buffer
	if code := run([]string{"healthcheck", "--url", m.URL()}, &out, &errb); code != 0 || strings.TrimSpace(out.String()) != "ok" {
		t.Errorf("against a live server: exit %d, %q %q", code, out.String(), errb.String())
	}

	// A closed port: 1, well within 3 s.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	start := time.Now()
	if code := run([]string{"healthcheck", "--url", closed, "--quiet"}, &out, &errb); code != 1 {
		t.Errorf("against a closed port: exit %d, want 1", code)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("against a closed port it took %v", d)
	}

	// A server that answers something else, or hangs past the timeout.
	for name, h := range map[string]http.HandlerFunc{
		"500":       func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(500) },
		"not ok":    func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"status":"starting"}`)) },
		"not JSON":  func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`<html>`)) },
		"hangs 2 s": func(w http.ResponseWriter, r *http.Request) { time.Sleep(2 * time.Second) },
	} {
		srv := httptest.NewServer(h)
		errb.Reset()
		if code := run([]string{"healthcheck", "--url", srv.URL, "--timeout", "500ms"}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "unhealthy") {
			t.Errorf("%s: exit %d, %q; want 1 and the reason", name, code, errb.String())
		}
		srv.Close()
	}
	for _, bad := range [][]string{{"healthcheck", "extra"}, {"healthcheck", "--timeout", "0s"}, {"healthcheck", "--nope"}} {
		if code := run(bad, &out, &errb); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
}

func TestDefaultHealthURL(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{nil, cmdline.DefaultURL},
		{map[string]string{"PIXSANDBOX_URL": "http://sandbox:9000"}, "http://sandbox:9000"},
		{map[string]string{"PIXSANDBOX_ADDR": "0.0.0.0:8080"}, "http://127.0.0.1:8080"},
		{map[string]string{"PIXSANDBOX_ADDR": ":9090"}, "http://127.0.0.1:9090"},
		{map[string]string{"PIXSANDBOX_ADDR": "10.1.2.3:8080", "PIXSANDBOX_URL": ""}, "http://10.1.2.3:8080"},
	} {
		got := defaultHealthURL(func(k string) (string, bool) { v, ok := c.env[k]; return v, ok })
		if got != c.want {
			t.Errorf("%v: %s, want %s", c.env, got, c.want)
		}
	}
}
