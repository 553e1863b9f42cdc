package lint

import (
	"slices"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
)

// Rule describes one static lint rule: its stable code, severity, meaning and usual fix.
// docs/lint-rules.md documents every rule Rules returns.
type Rule struct {
	// Code is the stable kebab-case identifier findings of this rule carry.
	Code string
	// Severity is the severity of every finding of this rule.
	Severity card.Severity
	// Summary says in one line what the rule detects.
	Summary string
	// Fix is the usual one-line remedy (findings may give a more specific one).
	Fix string
}

// Rules returns every static lint rule, in the order Lint applies them.
func Rules() []Rule {
	out := make([]Rule, len(rules))
	for i, r := range rules {
		out[i] = r.Rule
	}
	return out
}

// rule is a Rule with its check. A check returns hits; Lint stamps code and severity.
type rule struct {
	Rule
	check func(*linter) []hit
}

// hit is one occurrence of a rule; an empty fix means the rule's default fix.
type hit struct {
	iface   string
	message string
	fix     string
}

// rules is the table of static checks. Codes are a stable contract: add rules, never
// rename them. Keep docs/lint-rules.md in step (a test enforces it). The signature rules
// (lint_signature.go) come last.
var rules = append([]rule{
	{Rule{card.CodeNoInterfaces, card.SeverityError,
		"the card declares no interface at all (no supportedInterfaces entry, no v0.3 url)",
		"declare at least one interface in supportedInterfaces (and url + preferredTransport for v0.3 clients)"},
		(*linter).noInterfaces},
	{Rule{card.CodeRequiredFieldMissing, card.SeverityWarning,
		"a field the specification marks REQUIRED is absent or empty; a2a-go and a2a-js clients use the agent without it",
		"add the field with a non-empty value"},
		(*linter).requiredFields},
	{Rule{card.CodeFieldNull, card.SeverityWarning,
		"a list or object field is null: read as empty, as the proto3 JSON mapping says, but clients that validate the card against the schema may reject it",
		"write the field's value (a list or object), or leave the field out"},
		(*linter).nullFields},
	{Rule{card.CodeSupportedInterfacesMissing, card.SeverityWarning,
		"a v0.3-only card: v1.0 clients (a2a-go, a2a-js, a2a-java default resolvers) find no interface in it",
		"add supportedInterfaces listing the same interfaces (a union card serves v0.3 and v1.0 clients)"},
		(*linter).supportedMissing},
	{Rule{card.CodePreferredURLMismatch, card.SeverityError,
		"the preferred binding (v0.3 preferredTransport, v1.0 first entry) is declared at another address, not at the preferred URL: clients that honour the preference dial the wrong socket",
		"make url (v1.0: the first entry) the address where the preferred binding is served, or prefer the binding served at that URL"},
		(*linter).preferredURLMismatch},
	{Rule{card.CodePreferredTransportMissing, card.SeverityWarning,
		"a v0.3 card with url but no (or an empty) preferredTransport",
		`write "preferredTransport": "JSONRPC" (or the binding really served at url)`},
		(*linter).preferredMissing},
	{Rule{card.CodeURLConflictingBindings, card.SeverityWarning,
		"v0.3: one URL is declared with two different bindings (A2A 0.3 §5.6.4 forbids it); clients select by binding, so they fail only where the URL does not serve the one they pick (probe checks)",
		"give each binding its own URL, and declare at url only the binding served there"},
		(*linter).v03Conflicts},
	{Rule{card.CodeURLSharedBindings, card.SeverityWarning,
		"v1.0: one address is declared with two different bindings; valid only if one server really serves both there",
		"check with `a2abind probe`; give each binding its own URL unless one server multiplexes them"},
		(*linter).v1Shared},
	{Rule{card.CodeUnionMismatch, card.SeverityWarning,
		"a union card whose v0.3 fields and 0.3 supportedInterfaces entries declare different interfaces: v0.3 and v1.0 clients are told different things",
		"make url/preferredTransport/additionalInterfaces list exactly the supportedInterfaces entries with protocolVersion 0.3"},
		(*linter).unionMismatch},
	{Rule{card.CodeURLMissing, card.SeverityError,
		"an interface has no URL",
		"set the interface url to the address where its binding is served"},
		(*linter).urlMissing},
	{Rule{card.CodeGRPCURLScheme, card.SeverityError,
		"a GRPC interface URL carries an http://, https://, grpc:// or grpcs:// scheme, which Go gRPC clients reject (other SDKs strip it)",
		`write the GRPC address as host:port, e.g. "agent.example.com:443"`},
		(*linter).grpcScheme},
	{Rule{card.CodeURLNotAbsolute, card.SeverityError,
		"an interface URL is not an absolute URL (or, for GRPC, not host:port)",
		"write an absolute URL such as https://agent.example.com/a2a/jsonrpc (GRPC: host:port)"},
		(*linter).urlAbsolute},
	{Rule{card.CodeURLPlainHTTP, card.SeverityWarning,
		"an interface uses plain http:// on a host that is not loopback",
		"serve the interface over https:// (plain http is for loopback and tests)"},
		(*linter).plainHTTP},
	{Rule{card.CodeURLWildcardHost, card.SeverityWarning,
		"an interface URL names a wildcard listen address (0.0.0.0, ::) that remote clients cannot dial",
		"publish the host name or address clients reach the agent at, not the bind address"},
		(*linter).wildcardHost},
	{Rule{card.CodeFieldNameCase, card.SeverityError,
		"a member is named like a card field at any depth but not exactly (\"URL\", \"ProtocolBinding\", \"supported_interfaces\"): a2abind, protojson, a2a-js and a2a-python do not read it, a2a-go does",
		"spell the field name exactly as the specification does, or remove the member"},
		(*linter).fieldCase},
	{Rule{card.CodeMemberDuplicate, card.SeverityError,
		"a member name appears twice in one JSON object: parsers disagree on which copy wins (protojson rejects the card), so a2abind refuses to read it",
		"keep one copy of the member"},
		nil}, // reported from the reader's *ReadError (Parse refuses the document)
	{Rule{card.CodeDocumentRefused, card.SeverityError,
		"a2a-go's card resolver refuses the document's bytes, which a2a-js reads: a leading UTF-8 byte order mark, or nesting deeper than encoding/json's 10000 levels or two byte order marks (which a2abind refuses to read too)",
		"write the document as plain UTF-8 JSON: no byte order mark, nesting at most 10000 levels deep"},
		(*linter).documentRefused}, // lint_card.go; nesting too deep is the reader's *ReadError
	{Rule{card.CodeBindingMissing, card.SeverityError,
		"an interface declares no binding (protocolBinding / transport)",
		`set the binding to "JSONRPC", "GRPC" or "HTTP+JSON"`},
		(*linter).bindingMissing},
	{Rule{card.CodeBindingCase, card.SeverityError,
		"a core binding name is spelt in the wrong case; a2a-go compares bindings case-sensitively and skips it",
		`write the binding exactly "JSONRPC", "GRPC" or "HTTP+JSON"`},
		(*linter).bindingCase},
	{Rule{card.CodeBindingUnknown, card.SeverityError,
		"a binding is neither a core binding nor a custom binding URI; no client can select it",
		`use "JSONRPC", "GRPC" or "HTTP+JSON", or a URI for a custom binding`},
		(*linter).bindingUnknown},
	{Rule{card.CodeBindingCustom, card.SeverityInfo,
		"a custom binding (a URI): only clients that implement it can use this interface",
		"also declare a core binding for clients without the custom one"},
		(*linter).bindingCustom},
	{Rule{card.CodeProtocolVersionMissing, card.SeverityError,
		"a supportedInterfaces entry has no protocolVersion; a2a-go silently drops it",
		`set protocolVersion, e.g. "1.0"`},
		(*linter).versionMissing},
	{Rule{card.CodeProtocolVersionMalformed, card.SeverityError,
		"a protocolVersion is not a Major.Minor version number",
		`write the version as Major.Minor, e.g. "1.0" or "0.3"`},
		(*linter).versionMalformed},
	{Rule{card.CodeProtocolVersionThreePart, card.SeverityWarning,
		"a supportedInterfaces protocolVersion has a patch part; A2A 1.0 identifies versions by Major.Minor only",
		`drop the patch part: "1.0.0" becomes "1.0"`},
		(*linter).versionThreePart},
	{Rule{card.CodeProtocolVersionUnsupported, card.SeverityWarning,
		"a protocolVersion is neither 1.0 nor 0.3; current clients select no interface for it",
		`declare "1.0" (or "0.3" for v0.3 clients)`},
		(*linter).versionUnsupported},
	{Rule{card.CodeInterfaceDuplicate, card.SeverityWarning,
		"the same interface (url, binding, version) is declared twice in one list; a2a-js picks the last copy",
		"remove the repeated entry"},
		(*linter).duplicates},
}, signatureRules...)

// Lint applies every static rule to c and returns the findings, errors first, each group
// in rule order. It reads only the document; no socket is touched. A Card built by hand
// (not by Parse or Load) is checked on its Interfaces alone. For a parsed card the rules
// run once (and once more after VerifySignatures changes what is known of its
// signatures): every caller (lint, probe's diagnosis and client predictions) gets a copy
// of that one result.
func Lint(c *card.Card) []card.Finding {
	if c == nil {
		return nil
	}
	findings := c.LintMemo(c.SignatureState(), func() any { return lint(c) }).([]card.Finding)
	return slices.Clone(findings)
}

func lint(c *card.Card) []card.Finding {
	l := newLinter(c)
	var out []card.Finding
	for _, r := range rules {
		if r.check == nil {
			continue
		}
		for _, h := range r.check(l) {
			fix := h.fix
			if fix == "" {
				fix = r.Fix
			}
			out = append(out, card.Finding{Code: r.Code, Severity: r.Severity, Message: h.message, Fix: fix, Interface: h.iface})
		}
	}
	slices.SortStableFunc(out, func(a, b card.Finding) int { return rank(a.Severity) - rank(b.Severity) })
	return out
}

// linter holds the card and what the checks share.
type linter struct {
	c        *card.Card
	doc      *card.Written // empty for hand-built cards
	hand     bool          // the card was not parsed from a document
	declared []card.Interface
	addrs    map[addressIn]parsedAddress // parseAddress's
	keys     map[addressIn]keyed         // addressKey's
	versions []versionField              // versionFields, listed once for the version rules
}

func newLinter(c *card.Card) *linter {
	l := &linter{c: c, doc: c.Written(), declared: c.Declared()}
	if l.doc == nil {
		l.doc, l.hand = &card.Written{}, true
	}
	l.versions = l.versionFields()
	return l
}

// bindingDeclared reports whether the interface's binding was written in the document
// (false for a v0.3 primary whose preferredTransport defaulted to JSONRPC).
func (l *linter) bindingDeclared(i card.Interface) bool {
	if i.Source == card.SourcePrimary && !l.hand {
		return val(l.doc.PreferredTransport) != ""
	}
	return true
}

func canonical(b a2a.TransportProtocol) a2a.TransportProtocol {
	c, _ := addr.CanonicalBinding(b)
	return c
}

func isGRPC(b a2a.TransportProtocol) bool { return canonical(b) == a2a.TransportProtocolGRPC }

// rank orders severities for sorting: errors first.
func rank(s card.Severity) int {
	switch s {
	case card.SeverityError:
		return 0
	case card.SeverityWarning:
		return 1
	default:
		return 2
	}
}
