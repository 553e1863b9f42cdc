package server

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
)

// ErrCardMismatch is matched (errors.Is) by every *BindingError: the card declares an
// interface this server does not serve at the declared address.
var ErrCardMismatch = errors.New("card declares an interface that is not served")

// BindingError is the publish-time invariant's refusal: one declared interface of a
// hand-written card is not backed by a registered, listening binding at its address.
// New joins one per offending interface (errors.As finds the first).
type BindingError struct {
	// Interface is the declared interface, as the card says it.
	Interface card.Interface
	// Declared is the interface rendered as "GRPC 1.0 at http://127.0.0.1:8443".
	Declared string
	// Problem says in one clause why the interface is refused.
	Problem string
	// Served lists what this server serves at the declared address (empty when nothing
	// of this server listens there), e.g. "JSONRPC 1.0 at http://127.0.0.1:8443/a2a/jsonrpc".
	Served []string
	// Elsewhere lists where this server serves the declared binding and version instead.
	Elsewhere []string
}

// Error names the interface, what it declares, why it is refused and what is served there.
func (e *BindingError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "card interface %s", e.Interface.Source)
	if e.Interface.Preferred {
		b.WriteString(" (the preferred entry)")
	}
	fmt.Fprintf(&b, " declares %s: %s", e.Declared, e.Problem)
	if len(e.Served) > 0 {
		fmt.Fprintf(&b, "; served there: %s", strings.Join(e.Served, ", "))
	} else {
		b.WriteString("; nothing of this server is served there")
	}
	if len(e.Elsewhere) > 0 {
		canonical, _ := addr.CanonicalBinding(e.Interface.Binding)
		fmt.Fprintf(&b, "; %s %s is served at %s", canonical, e.Interface.ProtocolVersion, strings.Join(e.Elsewhere, ", "))
	}
	if e.Interface.Preferred {
		b.WriteString("; clients that honour the card's preference fail before delegation")
	}
	return b.String()
}

// Is makes errors.Is(err, ErrCardMismatch) true.
func (e *BindingError) Is(target error) bool { return target == ErrCardMismatch }

// configError is a usage error in the options.
type configError struct{ msg string }

func (e *configError) Error() string { return "server: " + e.msg }

func errorf(format string, args ...any) error { return &configError{fmt.Sprintf(format, args...)} }

// declAddr is a declared interface URL as addr.ParseDeclared reads it, with its path
// cleaned for comparison.
type declAddr struct {
	addr.Address
	path string // cleaned, "/" for none; "" for a gRPC address
}

// parseDeclared reads a declared URL with addr.ParseDeclared (the one address model).
// A URL that is not an address of its binding (a bare host:port declared for JSON-RPC)
// still names a socket: d has it, for the message, and err says why the interface is
// refused.
func parseDeclared(raw string, b a2a.TransportProtocol) (d declAddr, err error) {
	a, err := addr.ParseDeclared(raw, b)
	if a.Local() {
		return declAddr{}, fmt.Errorf("%q names a local %s: socket; this server listens on TCP", raw, a.Scheme)
	}
	d = declAddr{Address: a, path: cleanPath(a.Path)}
	if a.GRPC && err == nil {
		d.path = ""
	}
	return d, err
}

// bare reports a gRPC target with no URL scheme: host:port, or its dns:/// and
// passthrough:/// resolver forms.
func (d declAddr) bare() bool {
	return d.Scheme == "" || d.Scheme == "dns" || d.Scheme == "passthrough"
}

func cleanPath(p string) string {
	if p == "" {
		return "/"
	}
	return path.Clean("/" + p)
}

// at reports whether the declared address names the host and port of e.
func (d declAddr) at(e endpoint) bool { return d.Port == e.port && e.matchesHost(d.Address) }

// matches reports whether the declared address is exactly where s is served.
func (srv *Server) matches(d declAddr, s served) bool {
	e := srv.endpointOf(s)
	if !d.at(e) {
		return false
	}
	if s.path == "" { // gRPC: a bare host:port
		return d.bare()
	}
	return d.Scheme == e.scheme && d.Query == "" && d.path == cleanPath(e.basePath+s.path)
}

// verify checks a card against what the server serves and returns one *BindingError
// per offending interface, joined; and for the accepted card, the served binding each
// declared interface maps to (in card order).
func (srv *Server) verify(c *card.Card) ([]served, error) {
	if len(c.Interfaces) == 0 {
		return nil, fmt.Errorf("%w: the card declares no interface (neither supportedInterfaces nor url)", ErrCardMismatch)
	}
	var errs []error
	var out []served
	for _, iface := range c.Interfaces {
		s, err := srv.check(iface)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, s)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// check decides one declared interface.
func (srv *Server) check(iface card.Interface) (served, error) {
	be := &BindingError{Interface: iface, Declared: iface.String()}
	canonical, core := addr.CanonicalBinding(iface.Binding)
	d, addrErr := parseDeclared(iface.URL, iface.Binding)
	if d.Host != "" {
		for _, s := range srv.served {
			if d.at(srv.endpointOf(s)) {
				be.Served = append(be.Served, s.String())
			}
		}
	}
	for _, s := range srv.served {
		if s.binding == canonical && s.version == iface.ProtocolVersion {
			be.Elsewhere = append(be.Elsewhere, s.public)
		}
	}
	fail := func(problem string) (served, error) {
		be.Problem = problem
		return served{}, be
	}

	switch {
	case !core:
		return fail(fmt.Sprintf("binding %q is not one this server serves (JSONRPC, GRPC, HTTP+JSON)", iface.Binding))
	case canonical != iface.Binding:
		return fail(fmt.Sprintf("binding %q must be spelled %q: a2a-go and other SDKs compare binding names case-sensitively and skip this interface", iface.Binding, canonical))
	case iface.ProtocolVersion == "":
		return fail("no protocolVersion: a2a-go clients drop an interface without one")
	case iface.ProtocolVersion != card.V1 && iface.ProtocolVersion != card.V03:
		return fail(fmt.Sprintf("protocolVersion %q is not an A2A version this server speaks (1.0, 0.3)", iface.ProtocolVersion))
	case addrErr != nil && canonical != "GRPC" && d.Host != "" && d.bare():
		return fail(fmt.Sprintf("%s needs an absolute http(s):// URL, not a bare host:port", canonical))
	case addrErr != nil:
		return fail("unusable URL: " + addrErr.Error())
	case canonical == "GRPC" && !d.bare() && !srv.grpcAt(d):
		return fail("gRPC is not served at that address")
	case canonical == "GRPC" && !d.GoGRPCAccepts():
		return fail(fmt.Sprintf("a gRPC address must be a bare host:port; %v", addr.GoGRPCTarget(iface.URL)))
	case canonical != "GRPC" && d.bare():
		return fail(fmt.Sprintf("%s needs an absolute http(s):// URL, not a bare host:port", canonical))
	}
	for _, s := range srv.served {
		if s.binding == canonical && s.version == iface.ProtocolVersion && srv.matches(d, s) {
			if problem := srv.tenantProblem(iface.Tenant); problem != "" {
				return fail(problem)
			}
			return s, nil
		}
	}
	if len(be.Served) == 0 {
		return fail(fmt.Sprintf("no listener of this server is at %s (listeners: %s)", d.HostPort(), srv.listenersText()))
	}
	for _, s := range srv.served {
		if s.binding == canonical && s.version == iface.ProtocolVersion && s.path != "" && d.at(srv.endpointOf(s)) && d.Scheme != srv.endpointOf(s).scheme {
			return fail(fmt.Sprintf("scheme %s://, but that listener serves %s://", d.Scheme, srv.endpointOf(s).scheme))
		}
	}
	return fail(fmt.Sprintf("%s %s is not served at that address", canonical, iface.ProtocolVersion))
}

// tenantProblem says why a declared tenant is not the served one ("" when it is).
func (srv *Server) tenantProblem(declared string) string {
	served := srv.o.tenant
	switch {
	case declared == served:
		return ""
	case served == "":
		return fmt.Sprintf("tenant %q is declared, but this server routes no tenant (serve it with WithTenant / --tenant)", declared)
	case declared == "":
		return fmt.Sprintf("no tenant is declared, but this server serves tenant %q: clients would send none and be refused", served)
	}
	return fmt.Sprintf("tenant %q is declared, but this server serves tenant %q: clients would send the wrong one and be refused", declared, served)
}

func (srv *Server) listenersText() string {
	parts := []string{"HTTP " + srv.httpEP.hostPort()}
	if srv.hasGRPC {
		parts = append(parts, "gRPC "+srv.grpcEP.hostPort())
	}
	return strings.Join(parts, ", ")
}

// grpcAt reports whether this server serves gRPC at the host and port of d.
func (srv *Server) grpcAt(d declAddr) bool {
	for _, s := range srv.served {
		if s.path == "" && d.at(srv.endpointOf(s)) { // gRPC: served without a path
			return true
		}
	}
	return false
}
