package proxy

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
)

// Server is a proxy listening on an address.
type Server struct {
	*Proxy
	// URL is the proxy's base URL: clients use it in place of the upstream's.
	URL  string
	http *http.Server
	done chan error
}

// Listen starts a proxy to o.Upstream on addr (host:port; port 0 picks a
// free one).
func Listen(addr string, o Options) (*Server, error) {
	p, err := New(o)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &Server{Proxy: p, URL: "http://" + ln.Addr().String(), done: make(chan error, 1),
		http: &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second}}
	go func() {
		err := s.http.Serve(ln)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		s.done <- err
	}()
	return s, nil
}

// Shutdown stops accepting requests, waits for those in flight (until ctx
// ends) and returns once every exchange has been judged.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.http.Shutdown(ctx)
	if err == nil {
		err = <-s.done
	}
	s.Quiesce()
	if t, ok := s.rp.Transport.(interface{ CloseIdleConnections() }); ok {
		t.CloseIdleConnections()
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
