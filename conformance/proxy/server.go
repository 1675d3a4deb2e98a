package proxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"time"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
)

// Server is a proxy listening on an address.
type Server struct {
	*Proxy
	// URL is the proxy's base URL: clients use it in place of the upstream's.
	URL string
	// WebhooksURL is the URL to register with the upstream in place of the
	// integrator's webhook receiver: URL + WebhooksPath, or the root of the
	// webhook listener (Options.WebhooksAddr). Empty without WebhooksTo.
	WebhooksURL string
	http        *http.Server
	done        chan error
	hooksHTTP   *http.Server // the webhook listener, when one was asked for
	hooksDone   chan error
}

// Listen starts a proxy to o.Upstream on addr (host:port; port 0 picks a
// free one).
func Listen(addr string, o Options) (*Server, error) {
	p, err := New(o)
	if err != nil {
		return nil, err
	}
	var hooksLn net.Listener
	if o.WebhooksAddr != "" {
		if hooksLn, err = net.Listen("tcp", o.WebhooksAddr); err != nil {
			return nil, fmt.Errorf("--webhooks-addr: %w", err)
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		if hooksLn != nil {
			hooksLn.Close()
		}
		return nil, err
	}
	s := &Server{Proxy: p, URL: "http://" + ln.Addr().String(), done: make(chan error, 1),
		http: &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second}}
	go serve(s.http, ln, s.done)
	switch {
	case hooksLn != nil:
		s.WebhooksURL = "http://" + hooksLn.Addr().String()
		s.hooksHTTP, s.hooksDone = &http.Server{Handler: p.WebhookHandler(), ReadHeaderTimeout: 30 * time.Second}, make(chan error, 1)
		go serve(s.hooksHTTP, hooksLn, s.hooksDone)
	case o.WebhooksTo != "":
		s.WebhooksURL = s.URL + WebhooksPath
	}
	return s, nil
}

// serve runs srv on ln and reports how it ended (nil once shut down).
func serve(srv *http.Server, ln net.Listener, done chan<- error) {
	err := srv.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	done <- err
}

// Shutdown stops accepting requests, waits for those in flight (until ctx
// ends) and returns once every exchange has been judged and the judging
// process, if any, has ended (Close).
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.http.Shutdown(ctx)
	if err == nil {
		err = <-s.done
	}
	if s.hooksHTTP != nil {
		herr := s.hooksHTTP.Shutdown(ctx)
		if herr == nil {
			herr = <-s.hooksDone
		}
		err = errors.Join(err, herr)
	}
	err = errors.Join(err, s.Close())
	for _, rp := range []*httputil.ReverseProxy{s.rp, s.webhookProxy()} {
		if rp == nil {
			continue
		}
		if t, ok := rp.Transport.(interface{ CloseIdleConnections() }); ok {
			t.CloseIdleConnections()
		}
	}
	return err
}

// Start runs a proxy to upstream on a free loopback port, for tests: point
// the client (for instance the conformance suite's --target) at url, then
// call findings for the findings of every exchange answered so far (it
// waits for the exchanges in flight to be judged) and stop at the end.
//
//	url, findings, stop, err := proxy.Start(sandboxURL, proxy.Options{})
//	defer stop()
//	... run the suite against url ...
//	for _, f := range findings() { ... f.Kind, f.Rule ... }
func Start(upstream string, o Options) (url string, findings func() []contract.Finding, stop func(), err error) {
	o.Upstream = upstream
	s, err := Listen("127.0.0.1:0", o)
	if err != nil {
		return "", nil, nil, err
	}
	findings = func() []contract.Finding {
		s.Quiesce()
		return s.Findings()
	}
	stop = func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
	}
	return s.URL, findings, stop, nil
}
