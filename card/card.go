// Package card reads A2A AgentCards in every shape found in the wild (v1.0
// supportedInterfaces, v0.3 url + preferredTransport + additionalInterfaces,
// and union cards carrying both) into one ordered list of declared interfaces,
// exactly (a repeated or mis-cased member is reported, never guessed at), loads and
// fetches them, and publishes them. Addresses are package addr's; package lint checks
// the document and package signature its signatures, both on top of this one.
package card

import (
	"encoding/json"
	"strings"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Shape names which card layout a document uses.
type Shape string

const (
	// ShapeV1 is a v1.0 card: interfaces come from supportedInterfaces.
	ShapeV1 Shape = "v1.0"
	// ShapeV03 is a v0.3 card: url + preferredTransport, then additionalInterfaces.
	ShapeV03 Shape = "v0.3"
	// ShapeUnion carries both the v1.0 and the v0.3 fields (as a2a-go's compat producer serves).
	ShapeUnion Shape = "union"
	// ShapeNone declares no interface in either layout.
	ShapeNone Shape = "none"
)

// Protocol versions a2abind speaks on the wire, in Major.Minor form.
const (
	// V1 is A2A protocol version 1.0.
	V1 = "1.0"
	// V03 is A2A protocol version 0.3.
	V03 = "0.3"
)

// Interface is one declared (url, binding, version) of a card.
type Interface struct {
	// URL is the interface address exactly as declared.
	URL string `json:"url"`
	// Binding is the protocol binding exactly as declared (JSONRPC, GRPC, HTTP+JSON or a custom URI);
	// see CanonicalBinding for the case-insensitive form.
	Binding a2a.TransportProtocol `json:"binding"`
	// ProtocolVersion is the declared version normalised to Major.Minor ("0.3.0" becomes "0.3");
	// empty when the card does not say, unchanged when it is not a version at all.
	ProtocolVersion string `json:"protocolVersion"`
	// Tenant is the v1.0 tenant routing value, if declared.
	Tenant string `json:"tenant,omitempty"`
	// Source says where in the document the interface was declared, e.g.
	// "supportedInterfaces[0]" (its text in JSON).
	Source Source `json:"source"`
	// Preferred marks the entry a client honouring the card's hint picks first: the first
	// supportedInterfaces entry, or the v0.3 primary.
	Preferred bool `json:"preferred,omitempty"`
}

// Key identifies an interface for de-duplication: url, binding and version. Core
// binding names are compared case-insensitively ("grpc" and "GRPC" are one interface;
// lint reports the spelling), custom bindings exactly.
func (i Interface) Key() string {
	id := i.ID()
	return id.URL + "\x00" + string(id.Binding) + "\x00" + id.Version
}

// InterfaceID is Key's identity of an interface as a comparable value, for maps that
// look interfaces up often and should not build a string for each look-up.
type InterfaceID struct {
	// URL is the interface URL as declared.
	URL string
	// Binding is the canonical binding (CanonicalBinding).
	Binding a2a.TransportProtocol
	// Version is the normalised protocol version.
	Version string
}

// ID is the interface's identity, the one Key writes as a string.
func (i Interface) ID() InterfaceID {
	b, _ := addr.CanonicalBinding(i.Binding)
	return InterfaceID{URL: i.URL, Binding: b, Version: i.ProtocolVersion}
}

// String renders the interface as "GRPC 1.0 at 127.0.0.1:9443".
func (i Interface) String() string {
	v := i.ProtocolVersion
	if v == "" {
		v = "?"
	}
	return string(i.Binding) + " " + v + " at " + i.URL
}

// Card is a loaded AgentCard: the declared interfaces in order, plus what lint and
// the clients need of the rest of the document.
type Card struct {
	// Shape is the layout of the document.
	Shape Shape `json:"shape"`
	// Name is the agent's name.
	Name string `json:"name,omitempty"`
	// Version is the agent's own version (not the protocol version).
	Version string `json:"version,omitempty"`
	// Interfaces are the declared interfaces, v1.0 entries first, then the v0.3 primary, then
	// additionalInterfaces, de-duplicated on (url, binding, version).
	Interfaces []Interface `json:"interfaces"`
	// Capabilities are the card's capability claims (streaming, push notifications,
	// the extended card), as its clients read them.
	Capabilities Capabilities `json:"-"`
	// SecuritySchemes are the names of the security schemes the card declares, sorted.
	SecuritySchemes []string `json:"securitySchemes,omitempty"`
	// ETag is the card's ETag header when it was fetched over HTTP.
	ETag string `json:"-"`
	// Location is where the card was loaded from (file path, URL or "-"); for a fetched
	// card, the URL that answered it (after redirects).
	Location string `json:"-"`
	// Origin is, for a fetched card, the origin of the URL the user named, before any
	// redirect: the origin credentials belong to (see CredentialPolicy). Zero for a file.
	Origin addr.Origin `json:"-"`

	doc      *document
	declared []Interface // before de-duplication, for lint
	sigs     any         // what package signature found (SetSignatureState)
	lintMemo *lintMemo   // the one Lint result of a parsed card (nil for a hand-built one)
}

// MarshalJSON writes the card with "interfaces" always a list ([] when there is none).
func (c Card) MarshalJSON() ([]byte, error) {
	type fields Card // the same fields without this method
	f := fields(c)
	if f.Interfaces == nil {
		f.Interfaces = []Interface{}
	}
	return json.Marshal(f)
}

// Preferred returns the interfaces marked preferred (at most one per shape).
func (c *Card) Preferred() []Interface {
	var out []Interface
	for _, i := range c.Interfaces {
		if i.Preferred {
			out = append(out, i)
		}
	}
	return out
}

// Primary returns the v0.3 primary interface (url + preferredTransport), if the card has one.
func (c *Card) Primary() (Interface, bool) {
	for _, i := range c.declared {
		if i.Source == SourcePrimary {
			return i, true
		}
	}
	return Interface{}, false
}

// NormalizeVersion turns "0.3.0" into "0.3" and "1.0.0" into "1.0"; a leading "v" is
// dropped. Anything that is not a dotted number is returned unchanged.
func NormalizeVersion(v string) string {
	v = strings.TrimSpace(v)
	s := strings.TrimPrefix(v, "v")
	// A probe reads every interface's version: the parts are cut, not split, so that
	// no allocation is made (the result is a prefix of s).
	major, rest, ok := strings.Cut(s, ".")
	if !ok {
		return v
	}
	minor, patch, three := strings.Cut(rest, ".")
	if !digits(major) || !digits(minor) || three && !digits(patch) {
		return v
	}
	return s[:len(major)+1+len(minor)]
}

// digits reports whether p is one or more ASCII digits.
func digits(p string) bool {
	if p == "" {
		return false
	}
	for i := 0; i < len(p); i++ {
		if p[i] < '0' || p[i] > '9' {
			return false
		}
	}
	return true
}
