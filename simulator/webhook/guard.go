package webhook

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"syscall"
	"time"
)

// privateV4 are the IPv4 ranges PrivateAddress reports. Some entries lie
// inside a wider one; they are listed on their own so that narrowing the wider
// range cannot silently unblock them.
var privateV4 = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),          // "this network" (RFC 1122), with the unspecified 0.0.0.0, which Linux dials as loopback
	netip.MustParsePrefix("10.0.0.0/8"),         // private (RFC 1918)
	netip.MustParsePrefix("100.64.0.0/10"),      // shared address space, carrier-grade NAT (RFC 6598); Alibaba Cloud's metadata 100.100.100.200
	netip.MustParsePrefix("127.0.0.0/8"),        // loopback
	netip.MustParsePrefix("169.254.0.0/16"),     // link-local (RFC 3927), where clouds serve instance metadata
	netip.MustParsePrefix("169.254.169.254/32"), // the cloud metadata address (AWS, GCP, Azure, …)
	netip.MustParsePrefix("172.16.0.0/12"),      // private (RFC 1918)
	netip.MustParsePrefix("192.0.0.0/24"),       // IETF protocol assignments (RFC 6890)
	netip.MustParsePrefix("192.168.0.0/16"),     // private (RFC 1918)
	netip.MustParsePrefix("198.18.0.0/15"),      // benchmarking (RFC 2544)
	netip.MustParsePrefix("224.0.0.0/4"),        // multicast
	netip.MustParsePrefix("240.0.0.0/4"),        // reserved (RFC 1112)
	netip.MustParsePrefix("255.255.255.255/32"), // limited broadcast
}

// privateV6 are the IPv6 ranges PrivateAddress reports outright.
var privateV6 = []netip.Prefix{
	netip.MustParsePrefix("::/128"),          // unspecified
	netip.MustParsePrefix("::1/128"),         // loopback
	netip.MustParsePrefix("::/96"),           // IPv4-compatible (deprecated, RFC 4291), which some stacks route to the embedded IPv4 address
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use IPv4/IPv6 translation (RFC 8215): a network's own NAT64
	netip.MustParsePrefix("2001::/32"),       // Teredo, whose client address is embedded obfuscated
	netip.MustParsePrefix("fc00::/7"),        // unique local (ULA), with AWS's IPv6 metadata fd00:ec2::254
	netip.MustParsePrefix("fe80::/10"),       // link-local
	netip.MustParsePrefix("fec0::/10"),       // site-local (deprecated, RFC 3879)
	netip.MustParsePrefix("ff00::/8"),        // multicast
	netip.MustParsePrefix("::ffff:0:0:0/96"), // IPv4-translated (SIIT, RFC 2765), not routed on the Internet
}

// IPv6 ranges that embed an IPv4 address, which PrivateAddress checks instead
// of the IPv6 address: a NAT64 gateway or 6to4 relay would forward the
// connection to that IPv4 address.
var (
	nat64WellKnown = netip.MustParsePrefix("64:ff9b::/96") // RFC 6052: IPv4 in the last 4 bytes
	sixToFour      = netip.MustParsePrefix("2002::/16")    // RFC 3056: IPv4 in bytes 2 to 5
)

// PrivateAddress reports whether ip is an address a webhook delivery must not
// reach when Dispatcher.DenyPrivate is set:
//
//   - IPv4: loopback 127.0.0.0/8; private 10/8, 172.16/12 and 192.168/16
//     (RFC 1918); link-local 169.254/16 with the cloud metadata address
//     169.254.169.254; carrier-grade NAT 100.64/10; "this network" 0.0.0.0/8
//     with the unspecified 0.0.0.0; IETF protocol assignments 192.0.0.0/24;
//     benchmarking 198.18.0.0/15; multicast 224/4; reserved 240/4 with the
//     broadcast 255.255.255.255.
//   - IPv6: loopback ::1; unspecified ::; IPv4-compatible ::/96;
//     IPv4-translated ::ffff:0:0:0/96; unique local fc00::/7; link-local
//     fe80::/10; site-local fec0::/10; multicast ff00::/8; local-use NAT64
//     64:ff9b:1::/48; Teredo 2001::/32.
//   - IPv6 addresses that carry an IPv4 address to connect to are judged by
//     that IPv4 address: IPv4-mapped (::ffff:a.b.c.d), well-known NAT64
//     (64:ff9b::a.b.c.d) and 6to4 (2002:aabb:ccdd::/48).
//
// An IPv6 zone is ignored: fe80::1%eth0 is link-local like fe80::1. The zero
// Addr is reported as private, so a caller that fails to parse an address
// refuses it.
func PrivateAddress(ip netip.Addr) bool {
	if !ip.IsValid() {
		return true
	}
	ip = ip.WithZone("").Unmap() // netip.Prefix.Contains never matches a zoned address
	if ip.Is4() {
		for _, p := range privateV4 {
			if p.Contains(ip) {
				return true
			}
		}
		return false
	}
	b := ip.As16()
	switch {
	case nat64WellKnown.Contains(ip):
		return PrivateAddress(netip.AddrFrom4([4]byte(b[12:16])))
	case sixToFour.Contains(ip):
		return PrivateAddress(netip.AddrFrom4([4]byte(b[2:6])))
	}
	for _, p := range privateV6 {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// dialRefusedError is the error of a dial the DenyPrivate guard refused. Its
// text is what Send records as Attempt.Error.
type dialRefusedError struct {
	addr   string // the dialed IP, or the whole dialed address when it did not parse
	reason string
}

func (e *dialRefusedError) Error() string {
	return "dial refused: " + e.addr + " " + e.reason + " (--webhook-deny-private)"
}

// allowDialKey is the context key of a func(netip.AddrPort) bool that exempts
// the addresses it accepts from the DenyPrivate guard. Only this package can
// set it; its tests use it to reach loopback servers through the guard.
type allowDialKey struct{}

// denyPrivateControl is the Control of the guarded dialer. It runs after DNS
// resolution, on the IP and port about to be connected to, so a hostname
// resolving (or re-resolving, DNS rebinding) to a private address is refused
// whatever the URL said.
func denyPrivateControl(ctx context.Context, _, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &dialRefusedError{addr: address, reason: "is not an IP address and port"}
	}
	if allow, _ := ctx.Value(allowDialKey{}).(func(netip.AddrPort) bool); allow != nil && allow(ap) {
		return nil
	}
	if PrivateAddress(ap.Addr()) {
		return &dialRefusedError{addr: ap.Addr().String(), reason: "is a private, loopback, link-local or metadata address"}
	}
	return nil
}

// newGuardedTransport returns the transport of DenyPrivate dispatchers: the
// settings of http.DefaultTransport, a dialer whose Control is
// denyPrivateControl, and no proxy, since a proxy from the environment would
// be the only address dialed and the receiver's would never be checked. With
// DialTLSContext unset, TLS connections are dialed through DialContext too.
func newGuardedTransport() *http.Transport {
	dialer := &net.Dialer{
		Timeout:        30 * time.Second,
		KeepAlive:      30 * time.Second,
		ControlContext: denyPrivateControl,
	}
	return &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: 1 * time.Second,
	}
}

// guardedTransport is the one guarded transport every DenyPrivate dispatcher
// shares, so connections to receivers are pooled across attempts.
var guardedTransport = sync.OnceValue(newGuardedTransport)
