package notifier

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
)

// ErrForbiddenTarget is wrapped by every refusal of the SSRF guard: a
// non-http(s) URL, or a host that is or resolves to an address the service
// must not call (loopback, private, link-local, ...).
var ErrForbiddenTarget = errors.New("notifier: forbidden webhook target")

// forbiddenPrefixes are the ranges refused besides what netip's predicates
// catch (loopback, private, link-local, multicast, unspecified).
var forbiddenPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // carrier-grade NAT (RFC 6598)
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // TEST-NET-1
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // TEST-NET-2
	netip.MustParsePrefix("203.0.113.0/24"),  // TEST-NET-3
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and 255.255.255.255
	netip.MustParsePrefix("fec0::/10"),       // deprecated site-local
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("100::/64"),        // discard-only
	// IPv6 forms a translator may turn into any IPv4 address, internal
	// ones included, and never a public receiver's: local-use NAT64 (RFC
	// 8215), IPv4-compatible (deprecated) and IPv4-translated (SIIT).
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("::/96"),
	netip.MustParsePrefix("::ffff:0:0:0/96"),
}

// embedsIPv4 lists IPv6 ranges that carry an IPv4 address a gateway may
// forward to; the embedded address is checked too.
var (
	nat64Prefix = netip.MustParsePrefix("64:ff9b::/96") // NAT64: low 32 bits
	sixToFour   = netip.MustParsePrefix("2002::/16")    // 6to4: bits 16-47
)

// ForbiddenIP reports whether ip is an address webhooks must not reach:
// loopback (127/8, ::1), private (RFC 1918, fc00::/7), link-local
// (169.254/16, fe80::/10), unspecified, multicast, CGNAT (100.64/10),
// other special-use IPv4 ranges, and IPv4-mapped, NAT64 or 6to4 forms of
// any of these, and the IPv6 forms meant for translators that may hide
// them (local-use NAT64, IPv4-compatible, IPv4-translated). The zero
// netip.Addr is forbidden.
func ForbiddenIP(ip netip.Addr) bool {
	if !ip.IsValid() {
		return true
	}
	ip = ip.Unmap()
	if ip.IsLoopback() || ip.IsPrivate() || ip.IsUnspecified() || ip.IsMulticast() ||
		ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() {
		return true
	}
	for _, p := range forbiddenPrefixes {
		if p.Contains(ip) {
			return true
		}
	}
	if ip.Is6() {
		b := ip.As16()
		if nat64Prefix.Contains(ip) {
			return ForbiddenIP(netip.AddrFrom4([4]byte(b[12:16])))
		}
		if sixToFour.Contains(ip) {
			return ForbiddenIP(netip.AddrFrom4([4]byte(b[2:6])))
		}
	}
	return false
}

// guardControl is a net.Dialer Control function that refuses forbidden
// addresses. It runs after name resolution, on the exact address about to
// be connected, so a DNS answer that changes between a check and the
// connection (DNS rebinding) cannot slip through.
func guardControl(network, address string, _ syscall.RawConn) error {
	if !strings.HasPrefix(network, "tcp") {
		return fmt.Errorf("%w: network %s", ErrForbiddenTarget, network)
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: address %q", ErrForbiddenTarget, address)
	}
	if ForbiddenIP(ap.Addr()) {
		return fmt.Errorf("%w: %s", ErrForbiddenTarget, ap.Addr())
	}
	return nil
}

// CheckWebhookURL validates a webhook URL at registration time: an absolute
// http or https URL with a host, no user info, and, unless allowPrivate,
// no literal forbidden IP and no "localhost" name. It does not resolve
// names (their addresses are checked when dialing); use it to give the
// user an early, clear error.
func CheckWebhookURL(raw string, allowPrivate bool) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrForbiddenTarget, err)
	}
	if err := checkURL(u, allowPrivate); err != nil {
		return nil, err
	}
	return u, nil
}

func checkURL(u *url.URL, allowPrivate bool) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%w: scheme %q (want http or https)", ErrForbiddenTarget, u.Scheme)
	}
	if u.Hostname() == "" {
		return fmt.Errorf("%w: no host", ErrForbiddenTarget)
	}
	if u.User != nil {
		return fmt.Errorf("%w: user info in URL", ErrForbiddenTarget)
	}
	if allowPrivate {
		return nil
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return fmt.Errorf("%w: %s", ErrForbiddenTarget, host)
	}
	if ip, err := netip.ParseAddr(host); err == nil && ForbiddenIP(ip) {
		return fmt.Errorf("%w: %s", ErrForbiddenTarget, ip)
	}
	// Odd IPv4 spellings ("2130706433", "0x7f.1") are not parsed by netip but
	// may be by a resolver; the dial-time check sees the real address.
	return nil
}

// guardedDialer returns a dialer that refuses forbidden addresses unless
// allowPrivate is set.
func guardedDialer(allowPrivate bool, d net.Dialer) *net.Dialer {
	if !allowPrivate {
		d.Control = guardControl
	}
	return &d
}
