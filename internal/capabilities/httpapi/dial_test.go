package httpapi

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"testing"
)

func TestInternalAddresses(t *testing.T) {
	for _, a := range []string{
		"127.0.0.1", "127.8.9.10", "10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.1.1",
		"169.254.169.254", "224.0.0.1", "239.255.255.250", "0.0.0.0", "0.1.2.3", "100.64.0.1", "100.127.255.254",
		"255.255.255.255", "198.18.0.1", "192.0.0.170",
		"::1", "::", "fe80::1", "fe80::1%eth0", "fc00::1", "fd00:ec2::254", "ff02::1", "ff05::2", "fec0::1",
		"::ffff:127.0.0.1", "::ffff:10.1.2.3", "::ffff:169.254.169.254", "::127.0.0.1",
		"64:ff9b::7f00:1", "64:ff9b::a00:1", "2002:7f00:1::", "2002:c0a8:101::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2",
	} {
		if !internal(netip.MustParseAddr(a)) {
			t.Errorf("%s is not internal", a)
		}
	}
	for _, a := range []string{
		"8.8.8.8", "1.1.1.1", "100.63.255.255", "100.128.0.1", "172.32.0.1", "203.0.113.9", "2606:4700::1111",
		"::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1",
	} {
		if internal(netip.MustParseAddr(a)) {
			t.Errorf("%s is internal", a)
		}
	}
}

// A connector whose base URL names a host that resolves to loopback is
// refused before a byte is sent, even though the stub is there.
func TestNameResolvingToLoopbackIsRefused(t *testing.T) {
	s := newStub(t, func(http.ResponseWriter, *http.Request) {})
	port := s.Listener.Addr().(*net.TCPAddr).Port
	c := newClient(t, map[string]Connector{"crm": crm("http://crm.example.com:" + itoa(port) + "/")})
	for _, addrs := range [][]string{
		{"127.0.0.1"},
		{"::ffff:127.0.0.1"},
		{"203.0.113.9", "127.0.0.1"}, // one internal address is enough
	} {
		resolveTo(c, addrs...)
		_, err := c.Do(context.Background(), "acme", Request{Connector: "crm", Method: "GET", Path: "/customers"})
		d := asDenied(t, err)
		if !strings.Contains(d.Message, `connector "crm": the host resolves to a private, loopback`) {
			t.Fatalf("message = %q", d.Message)
		}
	}
	s.assertHits(t, 0)
}

// The same stub is reachable when the base URL names loopback itself.
func TestLiteralLoopbackAndLocalhostAreReachable(t *testing.T) {
	s := newStub(t, func(http.ResponseWriter, *http.Request) {})
	port := itoa(s.Listener.Addr().(*net.TCPAddr).Port)
	c := newClient(t, map[string]Connector{"ip": crm("http://127.0.0.1:" + port), "name": crm("http://LocalHost:" + port)})
	resolveTo(c, "127.0.0.1") // what the machine's resolver says of localhost
	for _, name := range []string{"ip", "name"} {
		if _, err := c.Do(context.Background(), "acme", Request{Connector: name, Method: "GET", Path: "/customers"}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	s.assertHits(t, 2)
}

// The dialer's last check holds on its own: a connection to an internal
// address is refused whatever resolved it (DNS rebinding).
func TestControlChecksTheConnectedAddress(t *testing.T) {
	s := newStub(t, func(http.ResponseWriter, *http.Request) {})
	c := newClient(t, map[string]Connector{"crm": crm("http://crm.example.com/")})
	ctx := context.WithValue(context.Background(), connKey{}, c.connectors["crm"])
	if _, err := c.dialer.DialContext(ctx, "tcp", s.Listener.Addr().String()); !isAddressDenied(err) {
		t.Fatalf("dial = %v, want the address refused", err)
	}
	if _, err := c.dialer.DialContext(context.Background(), "tcp", s.Listener.Addr().String()); !isAddressDenied(err) {
		t.Fatalf("dial without a connector = %v, want the address refused", err)
	}
	// A host other than the connector's is never dialed.
	if _, err := c.dial(ctx, "tcp", s.Listener.Addr().String()); !isAddressDenied(err) {
		t.Fatalf("dial of another host = %v, want refused", err)
	}
	s.assertHits(t, 0)
}

// The executor's proxy variables never route connector traffic.
func TestNoProxyFromTheEnvironment(t *testing.T) {
	proxy := newStub(t, func(http.ResponseWriter, *http.Request) {})
	s := newStub(t, func(http.ResponseWriter, *http.Request) {})
	t.Setenv("HTTP_PROXY", proxy.URL)
	t.Setenv("http_proxy", proxy.URL)
	t.Setenv("NO_PROXY", "")
	c := newClient(t, map[string]Connector{"crm": crm(s.URL)})
	if _, err := c.Do(context.Background(), "acme", Request{Connector: "crm", Method: "GET", Path: "/customers"}); err != nil {
		t.Fatal(err)
	}
	proxy.assertHits(t, 0)
	s.assertHits(t, 1)
}

func isAddressDenied(err error) bool { return errors.As(err, new(addressDeniedError)) }

func itoa(n int) string { return strconv.Itoa(n) }
