package card

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Severity grades a Finding. The JSON strings are a stable contract.
type Severity string

const (
	// SeverityError means some clients fail against this card; lint exits 1.
	SeverityError Severity = "error"
	// SeverityWarning means the card works for some clients or in some deployments only.
	SeverityWarning Severity = "warning"
	// SeverityInfo is worth knowing and needs no change.
	SeverityInfo Severity = "info"
)

// rank orders severities for sorting: errors first.
func (s Severity) rank() int {
	switch s {
	case SeverityError:
		return 0
	case SeverityWarning:
		return 1
	default:
		return 2
	}
}

// Finding is one problem found in a card, by lint or by a wire probe. The JSON field
// names are a stable contract.
type Finding struct {
	// Code is a stable kebab-case identifier, e.g. "preferred-url-mismatch".
	Code string `json:"code"`
	// Severity is error, warning or info.
	Severity Severity `json:"severity"`
	// Message says what is wrong and who it hurts, naming the values involved.
	Message string `json:"message"`
	// Fix is a one-line remedy.
	Fix string `json:"fix,omitempty"`
	// Interface is the Source of the declared interface concerned ("supportedInterfaces[0]",
	// "url+preferredTransport", ...), empty for card-level findings.
	Interface string `json:"interface,omitempty"`
}

// HasErrors reports whether any finding has SeverityError.
func HasErrors(findings []Finding) bool {
	return slices.ContainsFunc(findings, func(f Finding) bool { return f.Severity == SeverityError })
}

// Rule describes one static lint rule: its stable code, severity, meaning and usual fix.
// docs/lint-rules.md documents every rule Rules returns.
type Rule struct {
	// Code is the stable kebab-case identifier findings of this rule carry.
	Code string
	// Severity is the severity of every finding of this rule.
	Severity Severity
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
	{Rule{"no-interfaces", SeverityError,
		"the card declares no interface at all (no supportedInterfaces entry, no v0.3 url)",
		"declare at least one interface in supportedInterfaces (and url + preferredTransport for v0.3 clients)"},
		(*linter).noInterfaces},
	{Rule{"required-field-missing", SeverityError,
		"a field the specification marks REQUIRED is absent or empty",
		"add the field with a non-empty value"},
		(*linter).requiredFields},
	{Rule{"field-null", SeverityWarning,
		"a list or object field is null: read as empty, as the proto3 JSON mapping says, but clients that validate the card against the schema may reject it",
		"write the field's value (a list or object), or leave the field out"},
		(*linter).nullFields},
	{Rule{"supported-interfaces-missing", SeverityWarning,
		"a v0.3-only card: v1.0 clients (a2a-go, a2a-js, a2a-java default resolvers) find no interface in it",
		"add supportedInterfaces listing the same interfaces (a union card serves v0.3 and v1.0 clients)"},
		(*linter).supportedMissing},
	{Rule{"preferred-url-mismatch", SeverityError,
		"the preferred binding (v0.3 preferredTransport, v1.0 first entry) is declared at another address, not at the preferred URL: clients that honour the preference dial the wrong socket",
		"make url (v1.0: the first entry) the address where the preferred binding is served, or prefer the binding served at that URL"},
		(*linter).preferredURLMismatch},
	{Rule{"preferred-transport-missing", SeverityWarning,
		"a v0.3 card with url but no (or an empty) preferredTransport",
		`write "preferredTransport": "JSONRPC" (or the binding really served at url)`},
		(*linter).preferredMissing},
	{Rule{"url-conflicting-bindings", SeverityError,
		"v0.3: one URL is declared with two different bindings (A2A 0.3 §5.6.4 forbids it)",
		"give each binding its own URL, and declare at url only the binding served there"},
		(*linter).v03Conflicts},
	{Rule{"url-shared-bindings", SeverityWarning,
		"v1.0: one address is declared with two different bindings; valid only if one server really serves both there",
		"check with `a2abind probe`; give each binding its own URL unless one server multiplexes them"},
		(*linter).v1Shared},
	{Rule{"union-mismatch", SeverityWarning,
		"a union card whose v0.3 fields and 0.3 supportedInterfaces entries declare different interfaces: v0.3 and v1.0 clients are told different things",
		"make url/preferredTransport/additionalInterfaces list exactly the supportedInterfaces entries with protocolVersion 0.3"},
		(*linter).unionMismatch},
	{Rule{"url-missing", SeverityError,
		"an interface has no URL",
		"set the interface url to the address where its binding is served"},
		(*linter).urlMissing},
	{Rule{"grpc-url-scheme", SeverityError,
		"a GRPC interface URL carries an http://, https://, grpc:// or grpcs:// scheme, which Go gRPC clients reject (other SDKs strip it)",
		`write the GRPC address as host:port, e.g. "agent.example.com:443"`},
		(*linter).grpcScheme},
	{Rule{"url-not-absolute", SeverityError,
		"an interface URL is not an absolute URL (or, for GRPC, not host:port)",
		"write an absolute URL such as https://agent.example.com/a2a/jsonrpc (GRPC: host:port)"},
		(*linter).urlAbsolute},
	{Rule{"url-plain-http", SeverityWarning,
		"an interface uses plain http:// on a host that is not loopback",
		"serve the interface over https:// (plain http is for loopback and tests)"},
		(*linter).plainHTTP},
	{Rule{"url-wildcard-host", SeverityWarning,
		"an interface URL names a wildcard listen address (0.0.0.0, ::) that remote clients cannot dial",
		"publish the host name or address clients reach the agent at, not the bind address"},
		(*linter).wildcardHost},
	{Rule{"field-name-case", SeverityError,
		"a card or interface field name is spelt in another case (\"URL\", \"ProtocolBinding\"): Go clients read it, JavaScript and Python clients ignore it",
		"spell the field name exactly as the specification does"},
		(*linter).fieldCase},
	{Rule{"binding-missing", SeverityError,
		"an interface declares no binding (protocolBinding / transport)",
		`set the binding to "JSONRPC", "GRPC" or "HTTP+JSON"`},
		(*linter).bindingMissing},
	{Rule{"binding-case", SeverityError,
		"a core binding name is spelt in the wrong case; a2a-go compares bindings case-sensitively and skips it",
		`write the binding exactly "JSONRPC", "GRPC" or "HTTP+JSON"`},
		(*linter).bindingCase},
	{Rule{"binding-unknown", SeverityError,
		"a binding is neither a core binding nor a custom binding URI; no client can select it",
		`use "JSONRPC", "GRPC" or "HTTP+JSON", or a URI for a custom binding`},
		(*linter).bindingUnknown},
	{Rule{"binding-custom", SeverityInfo,
		"a custom binding (a URI): only clients that implement it can use this interface",
		"also declare a core binding for clients without the custom one"},
		(*linter).bindingCustom},
	{Rule{"protocol-version-missing", SeverityError,
		"a supportedInterfaces entry has no protocolVersion; a2a-go silently drops it",
		`set protocolVersion, e.g. "1.0"`},
		(*linter).versionMissing},
	{Rule{"protocol-version-malformed", SeverityError,
		"a protocolVersion is not a Major.Minor version number",
		`write the version as Major.Minor, e.g. "1.0" or "0.3"`},
		(*linter).versionMalformed},
	{Rule{"protocol-version-three-part", SeverityWarning,
		"a supportedInterfaces protocolVersion has a patch part; A2A 1.0 identifies versions by Major.Minor only",
		`drop the patch part: "1.0.0" becomes "1.0"`},
		(*linter).versionThreePart},
	{Rule{"protocol-version-unsupported", SeverityWarning,
		"a protocolVersion is neither 1.0 nor 0.3; current clients select no interface for it",
		`declare "1.0" (or "0.3" for v0.3 clients)`},
		(*linter).versionUnsupported},
	{Rule{"interface-duplicate", SeverityWarning,
		"the same interface (url, binding, version) is declared twice in one list; a2a-js picks the last copy",
		"remove the repeated entry"},
		(*linter).duplicates},
}, signatureRules...)

// Lint applies every static rule to c and returns the findings, errors first, each group
// in rule order. It reads only the document; no socket is touched. A Card built by hand
// (not by Parse or Load) is checked on its Interfaces alone.
func Lint(c *Card) []Finding {
	if c == nil {
		return nil
	}
	l := newLinter(c)
	var out []Finding
	for _, r := range rules {
		for _, h := range r.check(l) {
			fix := h.fix
			if fix == "" {
				fix = r.Fix
			}
			out = append(out, Finding{Code: r.Code, Severity: r.Severity, Message: h.message, Fix: fix, Interface: h.iface})
		}
	}
	slices.SortStableFunc(out, func(a, b Finding) int { return a.Severity.rank() - b.Severity.rank() })
	return out
}

// linter holds the card and what the checks share.
type linter struct {
	c        *Card
	doc      *document // nil for hand-built cards
	declared []Interface
}

func newLinter(c *Card) *linter {
	l := &linter{c: c, doc: c.doc, declared: c.declared}
	if l.declared == nil {
		l.declared = c.Interfaces
	}
	if l.doc == nil {
		l.doc = &document{}
	}
	return l
}

// hand reports whether the card was not parsed from a document.
func (l *linter) hand() bool { return l.c.doc == nil }

// bindingDeclared reports whether the interface's binding was written in the document
// (false for a v0.3 primary whose preferredTransport defaulted to JSONRPC).
func (l *linter) bindingDeclared(i Interface) bool {
	if i.Source == SourcePrimary && !l.hand() {
		return str(l.doc.PreferredTransport) != ""
	}
	return true
}

func canonical(b a2a.TransportProtocol) a2a.TransportProtocol {
	c, _ := CanonicalBinding(b)
	return c
}

func isGRPC(b a2a.TransportProtocol) bool { return canonical(b) == a2a.TransportProtocolGRPC }

// --- card-level rules ---

func (l *linter) noInterfaces() []hit {
	if len(l.c.Interfaces) > 0 {
		return nil
	}
	msg := "the card declares no interface: no supportedInterfaces entry and no v0.3 url, so no client can reach the agent"
	if l.c.Shape == ShapeV1 {
		msg = "supportedInterfaces is empty, so no client can reach the agent (A2A 1.0 requires at least one entry)"
	}
	return []hit{{message: msg}}
}

func (l *linter) requiredFields() []hit {
	if l.hand() {
		return nil
	}
	d := l.doc
	var out []hit
	missing := func(field, what string) {
		out = append(out, hit{message: fmt.Sprintf("REQUIRED field %s is %s", field, what),
			fix: "add " + field + " with a non-empty value"})
	}
	text := func(field string, v *string) {
		switch {
		case v == nil:
			missing(field, "absent")
		case strings.TrimSpace(*v) == "":
			missing(field, "empty")
		}
	}
	list := func(field string, n int, present bool) {
		switch {
		case !present:
			missing(field, "absent")
		case n == 0:
			missing(field, "empty (REQUIRED arrays need at least one element)")
		}
	}
	text("name", d.Name)
	text("description", d.Description)
	text("version", d.Version)
	// A null list or object is reported once, by field-null, not here as well.
	null := func(field string) bool { return slices.Contains(d.NullFields, field) }
	if d.Capabilities == nil && !null("capabilities") {
		missing("capabilities", "absent")
	}
	for _, f := range []struct {
		name string
		n    int
	}{
		{"defaultInputModes", len(d.DefaultInputModes)},
		{"defaultOutputModes", len(d.DefaultOutputModes)},
		{"skills", len(d.Skills)},
	} {
		if !null(f.name) {
			list(f.name, f.n, f.n > 0 || presentList(d, f.name))
		}
	}
	if l.c.Shape == ShapeV03 {
		if d.URL == nil {
			missing("url", "absent (a v0.3 card names its primary endpoint in url)")
		}
		if d.ProtocolVersion == nil {
			missing("protocolVersion", "absent (a v0.3 card states its protocol version, e.g. \"0.3.0\")")
		}
	}
	return out
}

// presentList reports whether a REQUIRED list field of the document is present (even empty).
func presentList(d *document, field string) bool {
	switch field {
	case "defaultInputModes":
		return d.DefaultInputModes != nil
	case "defaultOutputModes":
		return d.DefaultOutputModes != nil
	default:
		return d.Skills != nil
	}
}

// nullFixes are field-null's fixes for the fields whose remedy is not "leave it out".
var nullFixes = map[string]string{
	"defaultInputModes":  `list at least one media type in defaultInputModes (REQUIRED), e.g. ["text/plain"]`,
	"defaultOutputModes": `list at least one media type in defaultOutputModes (REQUIRED), e.g. ["text/plain"]`,
	"skills":             "describe at least one skill in skills (REQUIRED)",
	"capabilities":       `write capabilities as an object (REQUIRED), e.g. {"streaming": true}`,
}

// nullFields reports each list or object field written as null.
func (l *linter) nullFields() []hit {
	var out []hit
	for _, f := range l.doc.NullFields {
		fix, ok := nullFixes[f]
		if !ok {
			fix = "write " + f + " as a list or object, or leave it out"
		}
		out = append(out, hit{fix: fix, message: f + " is null; a2abind reads it as empty, as the proto3 JSON mapping (and a2a-go) does, " +
			"but clients that validate the card against the A2A schema may reject the card"})
	}
	return out
}

func (l *linter) supportedMissing() []hit {
	if l.c.Shape != ShapeV03 {
		return nil
	}
	return []hit{{message: "the card has only the v0.3 fields (url, preferredTransport, additionalInterfaces) and no supportedInterfaces: " +
		"v1.0 clients using the a2a-go or a2a-js default resolver find no interface, and a2a-java 1.x rejects the card"}}
}

// --- v0.3 primary rules ---

func (l *linter) preferredURLMismatch() []hit {
	var out []hit
	// v1.0: the first supportedInterfaces entry is the preferred one.
	var v1 []Interface
	for _, i := range l.declared {
		if strings.HasPrefix(i.Source, "supportedInterfaces[") {
			v1 = append(v1, i)
		}
	}
	if len(v1) > 0 {
		if h, ok := mismatch(v1[0], v1[1:], "the preference"); ok {
			out = append(out, h)
		}
	}
	// v0.3: url + preferredTransport against additionalInterfaces. Only a written
	// preferredTransport is a hint; the JSONRPC default is preferred-transport-missing's concern.
	d := l.doc
	if l.hand() || d.URL == nil || str(d.PreferredTransport) == "" {
		return out
	}
	var primary Interface
	var others []Interface
	for _, i := range l.declared {
		switch {
		case i.Source == SourcePrimary:
			primary = i
		case strings.HasPrefix(i.Source, "additionalInterfaces["):
			others = append(others, i)
		}
	}
	if h, ok := mismatch(primary, others, "the hint"); ok {
		out = append(out, h)
	}
	return out
}

// mismatch reports the seed pattern: others declare the preferred interface's binding
// only at other addresses, and (for the message) another binding at its address.
func mismatch(pref Interface, others []Interface, what string) (hit, bool) {
	prefKey, ok := addressKey(pref)
	b := canonical(pref.Binding)
	if !ok || b == "" {
		return hit{}, false
	}
	var elsewhere, atURL []Interface
	for _, o := range others {
		k, ok := addressKey(o)
		if !ok {
			continue
		}
		switch {
		case canonical(o.Binding) == b && k == prefKey:
			return hit{}, false // the preferred binding is declared at that address too: consistent
		case canonical(o.Binding) == b:
			elsewhere = append(elsewhere, o)
		case k == prefKey && o.Binding != "":
			atURL = append(atURL, o)
		}
	}
	// A v1.0 card may declare one binding at several addresses; it is the seed pattern
	// only when the preferred address is also claimed for another binding.
	if len(elsewhere) == 0 || (pref.Source != SourcePrimary && len(atURL) == 0) {
		return hit{}, false
	}
	field := "preferredTransport " + strconv.Quote(string(pref.Binding))
	if pref.Source != SourcePrimary {
		field = fmt.Sprintf("%s, the preferred entry, declares %s", pref.Source, b)
	}
	var msg string
	if pref.Source == SourcePrimary {
		msg = fmt.Sprintf("%s names the binding %s declares at %s, but url is %s", field,
			elsewhere[0].Source, elsewhere[0].URL, pref.URL)
		if len(atURL) > 0 {
			msg += fmt.Sprintf(", where %s declares %s", atURL[0].Source, canonical(atURL[0].Binding))
		}
	} else {
		msg = fmt.Sprintf("%s at %s, where %s declares %s, while %s declares %s at %s", field, pref.URL,
			atURL[0].Source, canonical(atURL[0].Binding), elsewhere[0].Source, b, elsewhere[0].URL)
	}
	msg += fmt.Sprintf("; clients that honour %s dial %s at %s, the wrong socket", what, b, pref.URL)
	fix := fmt.Sprintf("declare %s at the address where it is served (%s)", b, elsewhere[0].URL)
	if len(atURL) > 0 {
		if pref.Source == SourcePrimary {
			fix = fmt.Sprintf("set preferredTransport to %q (the binding declared at url), or set url to the %s address %s",
				string(canonical(atURL[0].Binding)), b, elsewhere[0].URL)
		} else {
			fix = fmt.Sprintf("move %s first, or drop %s: %s is served at %s",
				atURL[0].Source, pref.Source, b, elsewhere[0].URL)
		}
	}
	return hit{iface: pref.Source, message: msg, fix: fix}, true
}

func (l *linter) preferredMissing() []hit {
	d := l.doc
	if l.hand() || d.URL == nil || str(d.PreferredTransport) != "" {
		return nil
	}
	what := "absent"
	if d.PreferredTransport != nil {
		what = "empty"
	}
	return []hit{{iface: SourcePrimary, message: fmt.Sprintf("preferredTransport is %s: v0.3 readers assume JSONRPC at url %s, "+
		"but A2A 0.3 §5.6.1 requires the field and a2a-go drops a primary interface whose preferredTransport is empty", what, *d.URL)}}
}

// --- address rules ---

// v03Conflicts groups the v0.3 declarations (primary and additionalInterfaces) by address.
func (l *linter) v03Conflicts() []hit {
	var v03 []Interface
	for _, i := range l.declared {
		if i.Source == SourcePrimary || strings.HasPrefix(i.Source, "additionalInterfaces[") {
			v03 = append(v03, i)
		}
	}
	return l.conflicts(v03, func(addr, list string) string {
		return fmt.Sprintf("%s is declared as %s; A2A 0.3 §5.6.4 forbids conflicting transports at one URL, "+
			"and a client picking either binding by URL may reach a socket that speaks the other", addr, list)
	})
}

// v1Shared groups the supportedInterfaces entries by address.
func (l *linter) v1Shared() []hit {
	var v1 []Interface
	for _, i := range l.declared {
		if strings.HasPrefix(i.Source, "supportedInterfaces[") {
			v1 = append(v1, i)
		}
	}
	return l.conflicts(v1, func(addr, list string) string {
		return fmt.Sprintf("%s is declared as %s; that holds only if one server there really serves every one of these bindings", addr, list)
	})
}

func (l *linter) conflicts(ifaces []Interface, msg func(addr, list string) string) []hit {
	type group struct {
		addr     string
		bindings []a2a.TransportProtocol
		where    []string
	}
	var order []string
	groups := map[string]*group{}
	for _, i := range ifaces {
		k, ok := addressKey(i)
		if !ok || i.Binding == "" {
			continue
		}
		g := groups[k]
		if g == nil {
			g = &group{addr: i.URL}
			groups[k] = g
			order = append(order, k)
		}
		b := canonical(i.Binding)
		if !slices.Contains(g.bindings, b) {
			g.bindings = append(g.bindings, b)
			g.where = append(g.where, fmt.Sprintf("%s (%s)", b, i.Source))
		}
	}
	var out []hit
	for _, k := range order {
		g := groups[k]
		if len(g.bindings) < 2 {
			continue
		}
		m := msg(g.addr, joinAnd(g.where))
		// The seed pattern: a binding claimed at the shared address is also declared
		// at an address of its own, so the claim at the shared one is likely the mistake.
		for _, i := range ifaces {
			ik, ok := addressKey(i)
			if ok && ik != k && slices.Contains(g.bindings, canonical(i.Binding)) {
				m += fmt.Sprintf("; %s is also declared at %s (%s), so its entry at %s is likely the mistake",
					canonical(i.Binding), i.URL, i.Source, g.addr)
				break
			}
		}
		out = append(out, hit{message: m})
	}
	return out
}

// unionMismatch compares the two halves of a union card: the v0.3 fields (read by v0.3
// clients) and the supportedInterfaces entries with protocolVersion 0.3 (read by v1.0 clients).
func (l *linter) unionMismatch() []hit {
	if l.c.Shape != ShapeUnion || l.hand() {
		return nil
	}
	if v := NormalizeVersion(str(l.doc.ProtocolVersion)); v != "" && v != V03 {
		return nil // the v0.3 fields claim another version; the version rules speak to that
	}
	type entry struct {
		key    string
		iface  Interface
		listed bool
	}
	index := func(keep func(Interface) bool) []*entry {
		var out []*entry
		for _, i := range l.declared {
			if !keep(i) {
				continue
			}
			k, ok := addressKey(i)
			if !ok {
				k = i.URL
			}
			out = append(out, &entry{key: k + "\x00" + string(canonical(i.Binding)), iface: i})
		}
		return out
	}
	v03 := index(func(i Interface) bool {
		return i.Source == SourcePrimary || strings.HasPrefix(i.Source, "additionalInterfaces[")
	})
	v1 := index(func(i Interface) bool {
		return strings.HasPrefix(i.Source, "supportedInterfaces[") && i.ProtocolVersion == V03
	})
	for _, a := range v03 {
		for _, b := range v1 {
			if a.key == b.key {
				a.listed, b.listed = true, true
			}
		}
	}
	var out []hit
	for _, a := range v03 {
		if !a.listed {
			out = append(out, hit{iface: a.iface.Source, message: fmt.Sprintf(
				"%s declares %s at %s for v0.3 clients, but no supportedInterfaces entry with protocolVersion 0.3 lists it: clients reading supportedInterfaces and clients reading the v0.3 fields see different agents",
				a.iface.Source, canonical(a.iface.Binding), a.iface.URL)})
		}
	}
	for _, b := range v1 {
		if !b.listed {
			out = append(out, hit{iface: b.iface.Source, message: fmt.Sprintf(
				"%s declares %s 0.3 at %s, but the v0.3 fields (url, additionalInterfaces) do not: v0.3 clients never see it",
				b.iface.Source, canonical(b.iface.Binding), b.iface.URL)})
		}
	}
	return out
}

func (l *linter) urlMissing() []hit {
	var out []hit
	for _, i := range l.declared {
		if strings.TrimSpace(i.URL) == "" {
			out = append(out, hit{iface: i.Source, message: fmt.Sprintf("%s declares %s with no url", i.Source, bindingName(i.Binding))})
		}
	}
	return out
}

func (l *linter) grpcScheme() []hit {
	var out []hit
	for _, i := range l.declared {
		if !isGRPC(i.Binding) {
			continue
		}
		a, err := ParseAddress(i.URL, i.Binding)
		if err != nil || a.Local() {
			continue
		}
		var why string
		switch a.Scheme {
		case "http", "https":
			why = "Go gRPC clients reject a target with an %s:// scheme (\"too many colons\"), while other SDKs strip it"
		case "grpc", "grpcs":
			why = "Go gRPC clients have no %s:// resolver and fail to dial it, while other SDKs strip the scheme"
		default:
			continue
		}
		out = append(out, hit{iface: i.Source,
			message: fmt.Sprintf("%s declares GRPC at %q: "+why+", so the interface works for some clients only", i.Source, i.URL, a.Scheme),
			fix:     fmt.Sprintf("write the GRPC address as %q (A2A v1.0.1: host:port)", a.HostPort())})
	}
	return out
}

func (l *linter) urlAbsolute() []hit {
	var out []hit
	for _, i := range l.declared {
		if strings.TrimSpace(i.URL) == "" {
			continue
		}
		_, err := ParseAddress(i.URL, i.Binding)
		if err == nil {
			continue
		}
		if isGRPC(i.Binding) {
			out = append(out, hit{iface: i.Source,
				message: fmt.Sprintf("%s declares GRPC at %q, which is neither host:port nor an absolute URL", i.Source, i.URL),
				fix:     `write the GRPC address as host:port, e.g. "agent.example.com:443"`})
			continue
		}
		out = append(out, hit{iface: i.Source,
			message: fmt.Sprintf("%s declares %s at %q, which is not an absolute http(s) URL; clients cannot resolve it", i.Source, bindingName(i.Binding), i.URL)})
	}
	return out
}

func (l *linter) plainHTTP() []hit {
	var out []hit
	for _, i := range l.declared {
		a, err := ParseAddress(i.URL, i.Binding)
		if err != nil || a.Scheme != "http" || isGRPC(i.Binding) {
			continue
		}
		if isLoopback(a.Host) || isWildcard(a.Host) {
			continue
		}
		out = append(out, hit{iface: i.Source,
			message: fmt.Sprintf("%s serves %s over plain http at %s: credentials and messages cross the network unencrypted",
				i.Source, bindingName(i.Binding), i.URL)})
	}
	return out
}

func (l *linter) wildcardHost() []hit {
	var out []hit
	for _, i := range l.declared {
		a, ok := lenientAddress(i)
		if !ok || !isWildcard(a.Host) {
			continue
		}
		out = append(out, hit{iface: i.Source,
			message: fmt.Sprintf("%s declares %s at %s: %q is a listen-on-everything address, not one a remote client can dial",
				i.Source, bindingName(i.Binding), i.URL, a.Host)})
	}
	return out
}

// --- binding rules ---

func (l *linter) fieldCase() []hit {
	var out []hit
	for _, m := range l.doc.MiscasedKeys {
		where := "the card"
		if m.where != "" {
			where = m.where
		}
		out = append(out, hit{iface: m.where,
			message: fmt.Sprintf("%s has the key %q where the field is %q: a2a-go (and a2abind) match field names case-insensitively and read it, "+
				"while the JavaScript and Python SDKs ignore it, so clients disagree about what the card says", where, m.key, m.field),
			fix: fmt.Sprintf("rename %q to %q", m.key, m.field)})
	}
	return out
}

func (l *linter) bindingMissing() []hit {
	var out []hit
	for _, i := range l.declared {
		if i.Binding == "" {
			field := "protocolBinding"
			if strings.HasPrefix(i.Source, "additionalInterfaces[") {
				field = "transport"
			}
			out = append(out, hit{iface: i.Source, message: fmt.Sprintf("%s at %s has no %s", i.Source, displayURL(i.URL), field)})
		}
	}
	return out
}

func (l *linter) bindingCase() []hit {
	var out []hit
	for _, i := range l.declared {
		c, ok := CanonicalBinding(i.Binding)
		if !ok || c == i.Binding || !l.bindingDeclared(i) {
			continue
		}
		out = append(out, hit{iface: i.Source,
			message: fmt.Sprintf("%s names binding %q; the canonical spelling is %q, and a2a-go compares bindings case-sensitively, so Go clients skip this interface",
				bindingField(i), string(i.Binding), string(c)),
			fix: fmt.Sprintf("write %q instead of %q", string(c), string(i.Binding))})
	}
	return out
}

// bindingAliases maps spellings seen in the wild to the core binding they mean.
var bindingAliases = map[string]a2a.TransportProtocol{
	"JSON-RPC": a2a.TransportProtocolJSONRPC, "JSON_RPC": a2a.TransportProtocolJSONRPC, "JSONRPC2": a2a.TransportProtocolJSONRPC,
	"REST": a2a.TransportProtocolHTTPJSON, "HTTP": a2a.TransportProtocolHTTPJSON, "HTTP_JSON": a2a.TransportProtocolHTTPJSON,
	"HTTPJSON": a2a.TransportProtocolHTTPJSON, "HTTP-JSON": a2a.TransportProtocolHTTPJSON, "JSON": a2a.TransportProtocolHTTPJSON,
	"GRPC-WEB": a2a.TransportProtocolGRPC, "GRPCS": a2a.TransportProtocolGRPC,
}

func (l *linter) bindingUnknown() []hit {
	var out []hit
	for _, i := range l.declared {
		if _, core := CanonicalBinding(i.Binding); core || i.Binding == "" || isCustomURI(i.Binding) {
			continue
		}
		fix := ""
		if alias, ok := bindingAliases[strings.ToUpper(strings.TrimSpace(string(i.Binding)))]; ok {
			fix = fmt.Sprintf("write %q instead of %q", string(alias), string(i.Binding))
		}
		out = append(out, hit{iface: i.Source, fix: fix,
			message: fmt.Sprintf("%s names binding %q, which is not JSONRPC, GRPC or HTTP+JSON, nor a custom binding URI; no client will select it",
				bindingField(i), string(i.Binding))})
	}
	return out
}

func (l *linter) bindingCustom() []hit {
	var out []hit
	for _, i := range l.declared {
		if _, core := CanonicalBinding(i.Binding); core || !isCustomURI(i.Binding) {
			continue
		}
		out = append(out, hit{iface: i.Source,
			message: fmt.Sprintf("%s declares the custom binding %q at %s; clients that do not implement it skip this interface",
				i.Source, string(i.Binding), displayURL(i.URL))})
	}
	return out
}

// --- protocol version rules ---

var versionPattern = regexp.MustCompile(`^[0-9]+\.[0-9]+(\.[0-9]+)?$`)

// versionFields lists every protocolVersion written in the document with where it is.
type versionField struct {
	where string // "supportedInterfaces[i]" or "the card" (the v0.3 top-level field)
	raw   *string
	v1    bool
}

func (l *linter) versionFields() []versionField {
	var out []versionField
	if l.hand() {
		for _, i := range l.declared {
			v := i.ProtocolVersion
			out = append(out, versionField{where: i.Source, raw: &v, v1: true})
		}
		return out
	}
	for i, ri := range l.doc.supported() {
		var raw *string
		if ri != nil {
			raw = ri.ProtocolVersion
		}
		out = append(out, versionField{where: fmt.Sprintf("supportedInterfaces[%d]", i), raw: raw, v1: true})
	}
	if l.doc.hasV03() && l.doc.ProtocolVersion != nil {
		out = append(out, versionField{where: "the card", raw: l.doc.ProtocolVersion})
	}
	return out
}

func (f versionField) iface() string {
	if f.v1 {
		return f.where
	}
	return ""
}

func (l *linter) versionMissing() []hit {
	var out []hit
	for _, f := range l.versionFields() {
		if f.v1 && strings.TrimSpace(str(f.raw)) == "" {
			what := "no protocolVersion"
			if f.raw != nil {
				what = "an empty protocolVersion"
			}
			out = append(out, hit{iface: f.where,
				message: fmt.Sprintf("%s has %s: a2a-go drops the interface (\"no compatible transports found\") and other clients guess", f.where, what)})
		}
	}
	return out
}

func (l *linter) versionMalformed() []hit {
	var out []hit
	for _, f := range l.versionFields() {
		raw := strings.TrimSpace(str(f.raw))
		if raw == "" || versionPattern.MatchString(raw) && raw == str(f.raw) {
			continue
		}
		out = append(out, hit{iface: f.iface(),
			message: fmt.Sprintf("%s declares protocolVersion %q, which is not a Major.Minor version; clients match versions as numbers and skip it", f.where, str(f.raw)),
			fix:     fmt.Sprintf("write %q", suggestVersion(str(f.raw)))})
	}
	return out
}

func (l *linter) versionThreePart() []hit {
	var out []hit
	for _, f := range l.versionFields() {
		raw := str(f.raw)
		if !f.v1 || !versionPattern.MatchString(raw) || strings.Count(raw, ".") != 2 {
			continue
		}
		out = append(out, hit{iface: f.where,
			message: fmt.Sprintf("%s declares protocolVersion %q; A2A 1.0 identifies versions by Major.Minor and patch numbers SHOULD NOT appear in cards", f.where, raw),
			fix:     fmt.Sprintf("write %q", NormalizeVersion(raw))})
	}
	return out
}

func (l *linter) versionUnsupported() []hit {
	var out []hit
	for _, f := range l.versionFields() {
		raw := str(f.raw)
		if !versionPattern.MatchString(raw) {
			continue
		}
		if v := NormalizeVersion(raw); v == V1 || v == V03 {
			continue
		}
		out = append(out, hit{iface: f.iface(),
			message: fmt.Sprintf("%s declares protocolVersion %q: a2abind and the current SDKs speak 1.0 and 0.3 only, so clients select no interface for it", f.where, raw)})
	}
	return out
}

// --- duplicates ---

func (l *linter) duplicates() []hit {
	var out []hit
	for _, list := range []string{"supportedInterfaces[", "additionalInterfaces["} {
		seen := map[string]string{}
		for _, i := range l.declared {
			if !strings.HasPrefix(i.Source, list) {
				continue
			}
			k, ok := addressKey(i)
			if !ok {
				k = i.URL
			}
			key := k + "\x00" + string(canonical(i.Binding)) + "\x00" + i.ProtocolVersion
			if first, dup := seen[key]; dup {
				out = append(out, hit{iface: i.Source,
					message: fmt.Sprintf("%s repeats %s (%s); clients that keep one entry per binding disagree on which copy they use",
						i.Source, first, i.String())})
				continue
			}
			seen[key] = i.Source
		}
	}
	return out
}

// --- helpers ---

// addressKey identifies the socket and path an interface URL names (Address.Key), so
// that "https://h:443/a" and "https://h/a/" compare equal and "agent:8443" (GRPC)
// matches "https://agent:8443". ok is false when the URL names no host.
func addressKey(i Interface) (string, bool) {
	a, ok := lenientAddress(i)
	if !ok {
		return "", false
	}
	return a.Key(), true
}

// lenientAddress parses an interface URL for its binding; for lint's comparisons a URL
// that is not an address of its binding (a bare host:port declared for JSON-RPC, which
// url-not-absolute reports) still names a socket, read as the GRPC forms are.
func lenientAddress(i Interface) (Address, bool) {
	a, err := ParseAddress(i.URL, i.Binding)
	if err != nil {
		a, err = ParseAddress(i.URL, a2a.TransportProtocolGRPC)
	}
	return a, err == nil && (a.Host != "" || a.Local())
}

// isCustomURI reports whether b looks like a URI (custom bindings SHOULD be URIs).
func isCustomURI(b a2a.TransportProtocol) bool {
	u, err := url.Parse(string(b))
	return err == nil && u.Scheme != "" && (u.Host != "" || u.Opaque != "")
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func isWildcard(host string) bool {
	ip := net.ParseIP(host)
	return ip != nil && ip.IsUnspecified()
}

func bindingName(b a2a.TransportProtocol) string {
	if b == "" {
		return "an interface"
	}
	return string(b)
}

func bindingField(i Interface) string {
	switch {
	case i.Source == SourcePrimary:
		return "preferredTransport"
	case strings.HasPrefix(i.Source, "additionalInterfaces["):
		return i.Source + ".transport"
	default:
		return i.Source + ".protocolBinding"
	}
}

func displayURL(u string) string {
	if u == "" {
		return "(no url)"
	}
	return u
}

func joinAnd(parts []string) string {
	if len(parts) <= 1 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// suggestVersion guesses the Major.Minor a malformed version meant ("v1.0" -> "1.0").
func suggestVersion(raw string) string {
	if v := NormalizeVersion(raw); versionPattern.MatchString(v) {
		return v
	}
	return V1
}
