package httpapi

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"syscall"
)

// addressDeniedError: the connector's host resolved to an address its policy
// does not reach. Do reports it as a DeniedError.
type addressDeniedError struct{}

func (addressDeniedError) Error() string {
	return "the host resolves to a private, loopback or otherwise internal address"
}

// connKey carries the call's connector to the dialer and the redirect check.
type connKey struct{}

func connectorOf(ctx context.Context) *connector {
	conn, _ := ctx.Value(connKey{}).(*connector)
	return conn
}

// dial is the transport's DialContext. It dials only the host of the call's
// connector: the name is resolved here and each address dialed as an IP, and
// the dialer's ControlContext checks the address actually connected to, so
// a name that resolves differently between a check and the connection (DNS
// rebinding) reaches nothing the policy refuses.
func (c *Client) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	conn := connectorOf(ctx)
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if conn == nil || !strings.EqualFold(host, conn.hostname) {
		return nil, addressDeniedError{} // only the connector's own host is ever dialed
	}
	var addrs []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{ip}
	} else if addrs, err = c.resolve(ctx, host); err != nil {
		return nil, err
	}
	if len(addrs) == 0 {
		return nil, &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
	}
	if !conn.allowPrivate {
		for _, a := range addrs {
			if internal(a) {
				return nil, addressDeniedError{}
			}
		}
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, a := range addrs {
		nc, err := c.dialer.DialContext(ctx, network, netip.AddrPortFrom(a, uint16(p)).String())
		if err == nil {
			return nc, nil
		}
		if errors.As(err, new(addressDeniedError)) || ctx.Err() != nil {
			return nil, err
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

// control is the dialer's ControlContext: the last check, on the address the
// socket connects to.
func control(ctx context.Context, _, address string, _ syscall.RawConn) error {
	conn := connectorOf(ctx)
	ap, err := netip.ParseAddrPort(address)
	if conn == nil || err != nil {
		return addressDeniedError{}
	}
	if !conn.allowPrivate && internal(ap.Addr()) {
		return addressDeniedError{}
	}
	return nil
}

// internalPrefixes are ranges outside the ones netip's methods name that no
// public service lives in.
var internalPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),      // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),  // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),   // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),  // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),    // reserved, and the broadcast address
	netip.MustParsePrefix("::/96"),          // IPv4-compatible (deprecated)
	netip.MustParsePrefix("fec0::/10"),      // site-local (deprecated)
	netip.MustParsePrefix("64:ff9b:1::/48"), // local-use IPv4/IPv6 translation
	netip.MustParsePrefix("2001::/32"),      // Teredo (embeds an obfuscated IPv4)
}

var (
	nat64  = netip.MustParsePrefix("64:ff9b::/96") // the IPv4 address is the last 4 bytes
	sixTo4 = netip.MustParsePrefix("2002::/16")    // the IPv4 address is bytes 2 to 5
)

// internal reports whether a is private, loopback, link-local, multicast,
// unspecified, carrier-grade NAT or another range no public service lives
// in. IPv4-mapped, NAT64 and 6to4 addresses are judged by the IPv4 address
// they carry.
func internal(a netip.Addr) bool {
	a = a.Unmap().WithZone("")
	if a.Is6() {
		b := a.As16()
		switch {
		case nat64.Contains(a):
			return internal(netip.AddrFrom4([4]byte(b[12:16])))
		case sixTo4.Contains(a):
			return internal(netip.AddrFrom4([4]byte(b[2:6])))
		}
	}
	if a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() {
		return true
	}
	for _, p := range internalPrefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
