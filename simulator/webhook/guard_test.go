package webhook

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func TestPrivateAddress(t *testing.T) {
	tests := []struct {
		ip      string
		private bool
	}{
		// IPv4
		{"127.0.0.1", true},
		{"127.255.255.254", true},
		{"10.0.0.1", true},
		{"10.255.255.255", true},
		{"172.16.0.1", true},
		{"172.31.255.255", true},
		{"172.15.255.255", false},
		{"172.32.0.0", false},
		{"192.168.1.1", true},
		{"169.254.0.1", true},
		{"169.254.169.254", true}, // cloud metadata
		{"100.64.0.1", true},
		{"100.127.255.255", true},
		{"100.100.100.200", true}, // Alibaba Cloud metadata, inside CGNAT
		{"100.63.255.255", false},
		{"100.128.0.0", false},
		{"0.0.0.0", true},
		{"0.1.2.3", true},
		{"192.0.0.8", true},
		{"192.0.1.1", false},
		{"198.18.0.1", true},
		{"198.19.255.255", true},
		{"198.20.0.0", false},
		{"224.0.0.1", true},
		{"239.255.255.250", true},
		{"240.0.0.1", true},
		{"255.255.255.255", true},
		{"8.8.8.8", false},
		{"1.1.1.1", false},
		{"200.160.2.3", false},
		{"11.0.0.1", false},
		{"192.169.0.1", false},
		// IPv6
		{"::1", true},
		{"::", true},
		{"::127.0.0.1", true}, // IPv4-compatible
		{"::8.8.8.8", true},   // IPv4-compatible, deprecated whatever it embeds
		{"fc00::1", true},
		{"fd00:ec2::254", true}, // AWS IPv6 metadata, a ULA
		{"fdff:ffff::1", true},
		{"fe80::1", true},
		{"febf::1", true},
		{"fec0::1", true},
		{"ff02::1", true},
		{"ff05::1:3", true},
		{"2001::1", true}, // Teredo
		{"64:ff9b:1::a00:1", true},
		{"2606:4700:4700::1111", false},
		{"2001:4860:4860::8888", false},
		{"2800:3f0:4001:80b::200e", false},
		{"fbff::1", false},
		// IPv6 forms of an IPv4 address
		{"::ffff:127.0.0.1", true},
		{"::ffff:7f00:1", true},
		{"::ffff:10.1.2.3", true},
		{"::ffff:169.254.169.254", true},
		{"::ffff:100.64.0.1", true},
		{"::ffff:0.0.0.0", true},
		{"::ffff:8.8.8.8", false},
		{"::ffff:0:8.8.8.8", true}, // IPv4-translated
		{"64:ff9b::127.0.0.1", true},
		{"64:ff9b::169.254.169.254", true},
		{"64:ff9b::8.8.8.8", false},
		{"2002:7f00:1::1", true},   // 6to4 of 127.0.0.1
		{"2002:a9fe:a9fe::", true}, // 6to4 of 169.254.169.254
		{"2002:808:808::1", false}, // 6to4 of 8.8.8.8
		// Zones are ignored.
		{"fe80::1%eth0", true},
		{"fe80::1%1", true},
		{"ff02::1%lo", true},
		{"::1%lo", true},
		{"fd12:3456::1%eth0", true},
		{"::ffff:127.0.0.1%eth0", true},
		{"2606:4700:4700::1111%eth0", false},
	}
	for _, tt := range tests {
		ip, err := netip.ParseAddr(tt.ip)
		if err != nil {
			t.Fatalf("%s: %v", tt.ip, err)
		}
		if got := PrivateAddress(ip); got != tt.private {
			t.Errorf("PrivateAddress(%s) = %v, want %v", tt.ip, got, tt.private)
		}
	}
	if !PrivateAddress(netip.Addr{}) {
		t.Error("the zero Addr is not reported private")
	}
}

// refusal is the Attempt.Error of a dial to ip refused by DenyPrivate.
func refusal(ip string) string {
	return "dial refused: " + ip + " is a private, loopback, link-local or metadata address (--webhook-deny-private)"
}

// hostPort returns the IP and port of an httptest server's URL.
func hostPort(t *testing.T, rawURL string) netip.AddrPort {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	ap, err := netip.ParseAddrPort(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	return ap
}

func TestSendDenyPrivateLoopback(t *testing.T) {
	rcv := newReceiver(t)
	d := delivery(rcv.srv.URL + "/hook")
	ip := hostPort(t, rcv.srv.URL).Addr().String()

	dp := Dispatcher{DenyPrivate: true}
	a := dp.Send(context.Background(), d, d.EventID, []byte(`{}`), 1, 1, t0)
	if a.StatusCode != 0 || a.Error != refusal(ip) || a.ResponseExcerpt != "" {
		t.Fatalf("attempt %+v", a)
	}
	if n := len(rcv.requests()); n != 0 {
		t.Fatalf("the receiver got %d requests", n)
	}
	if got := d.Record(a, DefaultPolicy).Status; got != StatusRetrying {
		t.Fatalf("status after a refused dial: %s", got)
	}

	// The same delivery without DenyPrivate is delivered.
	dp.DenyPrivate = false
	if a := dp.Send(context.Background(), d, d.EventID, []byte(`{}`), 2, 2, t0); a.StatusCode != http.StatusOK || a.Error != "" {
		t.Fatalf("without DenyPrivate: attempt %+v", a)
	}
	if n := len(rcv.requests()); n != 1 {
		t.Fatalf("without DenyPrivate: the receiver got %d requests", n)
	}
}

func TestSendDenyPrivateHostname(t *testing.T) {
	addrs, err := net.DefaultResolver.LookupNetIP(context.Background(), "ip", "localhost")
	if err != nil || len(addrs) == 0 {
		t.Skipf("localhost does not resolve here: %v", err)
	}
	for _, a := range addrs {
		if !PrivateAddress(a) {
			t.Skipf("localhost resolves to %s here", a)
		}
	}
	rcv := newReceiver(t)
	port := hostPort(t, rcv.srv.URL).Port()
	d := delivery("http://localhost:" + strconv.Itoa(int(port)) + "/hook")

	// The name passes the syntactic check; the address it resolves to is
	// refused when dialed.
	if err := ValidateURL(d.URL, false); err != nil {
		t.Fatalf("ValidateURL: %v", err)
	}
	dp := Dispatcher{DenyPrivate: true}
	a := dp.Send(context.Background(), d, d.EventID, []byte(`{}`), 1, 1, t0)
	ip, ok := strings.CutPrefix(a.Error, "dial refused: ")
	ip, _, _ = strings.Cut(ip, " ")
	if a.StatusCode != 0 || !ok || a.Error != refusal(ip) {
		t.Fatalf("attempt %+v", a)
	}
	if addr, err := netip.ParseAddr(ip); err != nil || !PrivateAddress(addr) {
		t.Fatalf("refused %q, not a resolved private address", ip)
	}
	if n := len(rcv.requests()); n != 0 {
		t.Fatalf("the receiver got %d requests", n)
	}
}

// proxy is a forward HTTP proxy that records the requests it is asked to
// forward and answers them itself with 200.
type proxy struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []string
}

func newProxy(t *testing.T) *proxy {
	t.Helper()
	p := &proxy{}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		p.mu.Lock()
		p.got = append(p.got, r.URL.String())
		p.mu.Unlock()
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *proxy) requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.got...)
}

func TestSendDenyPrivateSuppliedClient(t *testing.T) {
	rcv := newReceiver(t)
	d := delivery(rcv.srv.URL)
	ip := hostPort(t, rcv.srv.URL).Addr().String()
	px := newProxy(t)
	pxURL, err := url.Parse(px.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	var dialed sync.Mutex
	dials := 0
	plainDialer := &net.Dialer{}
	clients := map[string]*http.Client{
		"default transport": {Transport: http.DefaultTransport},
		"own dialer": {Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			dialed.Lock()
			dials++
			dialed.Unlock()
			return plainDialer.DialContext(ctx, network, addr)
		}}},
		"proxy": {Transport: &http.Transport{Proxy: http.ProxyURL(pxURL)}},
	}
	for name, c := range clients {
		t.Run(name, func(t *testing.T) {
			dp := Dispatcher{Client: c, DenyPrivate: true}
			a := dp.Send(context.Background(), d, d.EventID, []byte(`{}`), 1, 1, t0)
			if a.StatusCode != 0 || a.Error != refusal(ip) {
				t.Fatalf("attempt %+v", a)
			}
			if n := len(rcv.requests()); n != 0 {
				t.Fatalf("the receiver got %d requests", n)
			}
			if got := px.requests(); len(got) != 0 {
				t.Fatalf("the proxy got %q", got)
			}
		})
	}
	dialed.Lock()
	defer dialed.Unlock()
	if dials != 0 {
		t.Fatalf("the supplied transport's dialer was used %d times", dials)
	}

	// Without DenyPrivate the supplied client is used as given: through the
	// proxy. This shows the proxy above would have been reached.
	dp := Dispatcher{Client: clients["proxy"]}
	if a := dp.Send(context.Background(), d, d.EventID, []byte(`{}`), 2, 2, t0); a.StatusCode != http.StatusOK || a.Error != "" {
		t.Fatalf("without DenyPrivate: attempt %+v", a)
	}
	if got := px.requests(); len(got) != 1 || got[0] != d.URL+"/" {
		t.Fatalf("without DenyPrivate: the proxy got %q", got)
	}
}

func TestGuardedTransportUsesNoProxy(t *testing.T) {
	tr := guardedTransport()
	//lint:ignore SA1019 net/http still honours the deprecated Dial and DialTLS fields, so the guard checks them too
	if tr.Proxy != nil || tr.DialTLSContext != nil || tr.DialTLS != nil || tr.Dial != nil {
		t.Fatal("the guarded transport has a proxy or a dialer other than the guarded one")
	}
	if tr != guardedTransport() {
		t.Fatal("the guarded transport is not shared")
	}
}

func TestSendDenyPrivateDoesNotFollowRedirectToPrivate(t *testing.T) {
	target := newReceiver(t)
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.srv.URL+"/moved", http.StatusFound)
	}))
	t.Cleanup(redirect.Close)
	d := delivery(redirect.URL)

	// The redirecting server stands for a public receiver: the guard lets its
	// address alone through, and still refuses the target's.
	first := hostPort(t, redirect.URL)
	ctx := context.WithValue(context.Background(), allowDialKey{}, func(ap netip.AddrPort) bool { return ap == first })
	for name, dp := range map[string]*Dispatcher{
		"default client":   {DenyPrivate: true},
		"supplied client":  {DenyPrivate: true, Client: &http.Client{}}, // follows redirects by default
		"without the flag": {},
	} {
		t.Run(name, func(t *testing.T) {
			a := dp.Send(ctx, d, d.EventID, []byte(`{}`), 1, 1, t0)
			if a.StatusCode != http.StatusFound || a.Error != "" || Success(a.StatusCode) {
				t.Fatalf("attempt %+v", a)
			}
			if n := len(target.requests()); n != 0 {
				t.Fatalf("the redirect was followed (%d requests)", n)
			}
		})
	}
	// The allowance covers the redirecting server only.
	dp := Dispatcher{DenyPrivate: true}
	td := delivery(target.srv.URL)
	if a := dp.Send(ctx, td, td.EventID, []byte(`{}`), 2, 1, t0); a.StatusCode != 0 || a.Error != refusal(hostPort(t, target.srv.URL).Addr().String()) {
		t.Fatalf("target: attempt %+v", a)
	}
}

func TestDenyPrivateControl(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		address string
		want    string // "" when allowed
	}{
		{"93.184.216.34:443", ""},
		{"[2606:4700:4700::1111]:443", ""},
		{"127.0.0.1:80", refusal("127.0.0.1")},
		{"169.254.169.254:80", refusal("169.254.169.254")},
		{"[::1]:443", refusal("::1")},
		{"[::ffff:127.0.0.1]:80", refusal("::ffff:127.0.0.1")},
		{"[fe80::1%eth0]:80", refusal("fe80::1%eth0")},
		{"0.0.0.0:80", refusal("0.0.0.0")},
		{"example.com:80", "dial refused: example.com:80 is not an IP address and port (--webhook-deny-private)"},
	} {
		err := denyPrivateControl(ctx, "tcp", tt.address, nil)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.address, got, tt.want)
		}
	}
}
