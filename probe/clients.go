package probe

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"golang.org/x/mod/semver"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/restv03"
	"github.com/a2abind/a2abind/lint"
	"github.com/a2abind/a2abind/wire"
)

// ClientImpact predicts what one known client implementation does with a probed card:
// the interface it selects and the outcome it gets there. The JSON field names are a
// stable contract.
type ClientImpact struct {
	// Profile names the client and its configuration, e.g. "a2a-go-grpc".
	Profile string `json:"profile"`
	// Interface is the interface the client selects; nil when it selects none.
	Interface *card.Interface `json:"interface,omitempty"`
	// Outcome is what the client gets there (wire.NoInterface when it selects none).
	Outcome wire.Outcome `json:"outcome"`
	// OK reports whether the client's calls would reach an A2A handler.
	OK bool `json:"ok"`
	// Note explains the selection and the failure.
	Note string `json:"note"`
	// CapabilitiesFailing are the capabilities the card declares, so the client uses
	// them, that are not served on the binding it selects (set by Diagnose from Check's
	// capability results).
	CapabilitiesFailing []Capability `json:"capabilitiesFailing,omitempty"`
}

// Profile is a known client implementation and configuration whose interface selection
// a2abind models from the SDK's code (see docs and the reference notes).
type Profile struct {
	// Name is the stable profile name used in ClientImpact.Profile.
	Name string
	// Description says which SDK, version and configuration the profile is.
	Description string
	// HonoursHint reports whether the client follows the card's preference (v0.3
	// preferredTransport at url, v1.0 first entry) when it supports that binding.
	HonoursHint bool

	pick func(v *cardView) choice
}

// Profiles returns the modelled client profiles, in report order.
func Profiles() []Profile { return slices.Clone(profiles) }

var profiles = []Profile{
	{Name: "a2a-go-default", HonoursHint: true,
		Description: "a2a-go v2.4.0 (and v2.3.1) a2aclient.NewFromCard, DefaultResolver, default transports (JSON-RPC and HTTP+JSON 1.x)",
		pick:        func(v *cardView) choice { return pickGo(v, v.v1, goV1, false) }},
	{Name: "a2a-go-grpc", HonoursHint: true,
		Description: "a2a-go v2.4.0 (and v2.3.1) with a2agrpc.WithGRPCTransport (insecure credentials) added to the defaults",
		pick:        func(v *cardView) choice { return pickGo(v, v.v1, goV1GRPC, false) }},
	{Name: "a2a-go-v03-compat", HonoursHint: true,
		Description: "a2a-go v2.4.0 reading cards with a2av0.NewAgentCardParser, every 1.0 and 0.3 transport registered (gRPC insecure); v0.3 HTTP+JSON at {url}/v1",
		pick: func(v *cardView) choice {
			return v03RESTRoutes(v, pickGo(v, v.goCompat(), goAll, true), a2aGoCurrent, true)
		}},
	{Name: "a2a-go-v2.3.1-v03-compat", HonoursHint: true,
		Description: "a2a-go v2.3.1, as agents in the field run it: a2a-go-v03-compat with v0.3 HTTP+JSON at {url} (no /v1)",
		pick: func(v *cardView) choice {
			return v03RESTRoutes(v, pickGo(v, v.goCompat(), goAll, true), a2aGoField, false)
		}},
	{Name: "a2a-js-default", HonoursHint: true,
		Description: "@a2a-js/sdk 1.3.0 ClientFactory, default resolver and transports (JSON-RPC, HTTP+JSON), speaking 1.0",
		pick:        func(v *cardView) choice { return pickJS(v, false) }},
	{Name: "a2a-js-grpc", HonoursHint: true,
		Description: "@a2a-js/sdk 1.3.0 with GrpcTransportFactory added",
		pick:        func(v *cardView) choice { return pickJS(v, true) }},
	{Name: "a2a-js-03-default", HonoursHint: true,
		Description: "@a2a-js/sdk 0.3.14 ClientFactory, default transports (JSON-RPC, HTTP+JSON), speaking 0.3: additionalInterfaces override url per binding",
		pick:        func(v *cardView) choice { return pickJS03(v, false) }},
	{Name: "a2a-js-03-grpc", HonoursHint: true,
		Description: "@a2a-js/sdk 0.3.14 with GrpcTransportFactory (insecure credentials) added",
		pick:        func(v *cardView) choice { return pickJS03(v, true) }},
	{Name: "a2a-python-default", HonoursHint: false,
		Description: "a2a-python 1.1 ClientFactory, default ClientConfig (JSON-RPC only, server order, reads v0.3 cards)",
		pick:        pickPython},
	{Name: "a2a-java-default", HonoursHint: false,
		Description: "a2a-java 1.2.0.Final ClientBuilder with no withTransport (JSON-RPC), server order, speaking 1.0",
		pick:        pickJava},
	{Name: "v03-preferred-transport", HonoursHint: true,
		Description: "a v0.3 client that honours preferredTransport at url as A2A 0.3 §5.6.3 says (a2a-java compat 0.3, the v0.3 TCK), every binding",
		pick:        pickV03Preferred},
	{Name: "a2abind-delegate", HonoursHint: true,
		Description: "a2abind's own delegate (card.CallOrder under wire.Policy): card order, preference first, falls back when a failure proves no handler was reached",
		pick:        pickDelegate},
}

// cardView is a card as the client models read it.
type cardView struct {
	c        *card.Card
	v1       []card.Interface // supportedInterfaces, in order
	primary  *card.Interface  // v0.3 url + preferredTransport
	noPref   bool             // the v0.3 preferredTransport is absent or empty
	extra    []card.Interface // v0.3 additionalInterfaces
	lint     []card.Finding   // the card's lint findings (lint.Lint), read once per diagnosis
	all      []Result
	results  map[card.InterfaceID]*Result   // into all
	byTarget map[card.InterfaceID][]*Result // target(): url + canonical binding -> results; built by sameTarget
}

func newCardView(c *card.Card, results []Result) *cardView {
	v := &cardView{c: c, all: results, results: make(map[card.InterfaceID]*Result, len(results))}
	for i := range results {
		v.results[results[i].Interface.ID()] = &results[i]
	}
	for _, i := range c.Declared() { // as the SDKs read the lists: repeats and case variants kept
		switch {
		case i.Source.List == card.ListSupported:
			v.v1 = append(v.v1, i)
		case i.Source == card.SourcePrimary:
			p := i
			v.primary = &p
		default:
			v.extra = append(v.extra, i)
		}
	}
	v.lint = lint.Lint(c)
	v.noPref = slices.ContainsFunc(v.lint, func(f card.Finding) bool { return f.Code == card.CodePreferredTransportMissing })
	return v
}

// sameTarget is the results at i's target(), whatever their version.
func (v *cardView) sameTarget(i card.Interface) []*Result {
	if v.byTarget == nil {
		v.byTarget = make(map[card.InterfaceID][]*Result, len(v.all))
		for j := range v.all {
			t := target(v.all[j].Interface)
			v.byTarget[t] = append(v.byTarget[t], &v.all[j])
		}
	}
	return v.byTarget[target(i)]
}

// target is an interface's address and binding whatever its version: its ID without
// the version, the URL without a trailing slash.
func target(i card.Interface) card.InterfaceID {
	id := i.ID()
	return card.InterfaceID{URL: strings.TrimSuffix(id.URL, "/"), Binding: id.Binding}
}

// v03Only reports whether the card has no supportedInterfaces (a v0.3 card).
func (v *cardView) v03Only() bool { return len(v.v1) == 0 }

// v03List is the v0.3 interface list most SDKs derive: the primary, then additionalInterfaces.
func (v *cardView) v03List() []card.Interface {
	var out []card.Interface
	if v.primary != nil {
		out = append(out, *v.primary)
	}
	return append(out, v.extra...)
}

// goCompat is the list a2av0.NewAgentCardParser builds: supportedInterfaces when present;
// otherwise url+preferredTransport (dropped when preferredTransport is empty), then the
// additionalInterfaces whose URL is not url.
func (v *cardView) goCompat() []card.Interface {
	if len(v.v1) > 0 {
		return v.v1
	}
	var out []card.Interface
	if v.primary != nil && !v.noPref {
		out = append(out, *v.primary)
	}
	for _, i := range v.extra {
		if v.primary != nil && i.URL == v.primary.URL {
			continue
		}
		out = append(out, i)
	}
	return out
}

// outcomeFor is what a client speaking version gets at an interface.
func (v *cardView) outcomeFor(i card.Interface, version string) (wire.Outcome, string) {
	r, ok := v.results[i.ID()]
	if !ok {
		return wire.NoInterface, "not probed"
	}
	if version == "" || card.NormalizeVersion(i.ProtocolVersion) == version {
		return r.Outcome, r.Detail
	}
	// The client speaks another version than the entry declares.
	for _, other := range v.sameTarget(i) {
		if other.Interface.ProtocolVersion == version {
			return other.Outcome, other.Detail
		}
	}
	b, _ := addr.CanonicalBinding(i.Binding)
	if r.ActualVersion == version && r.ActualBinding == b {
		return wire.Served, fmt.Sprintf("%s %s is served there", b, version)
	}
	if r.Outcome == wire.Served {
		return wire.VersionMismatch, fmt.Sprintf("it speaks %s to an interface declared and served as %s", version, i.ProtocolVersion)
	}
	return r.Outcome, r.Detail
}

// choice is a profile's selection.
type choice struct {
	iface   *card.Interface
	version string // version the client speaks there; "" = the declared one
	outcome wire.Outcome
	note    string
}

func none(note string) choice { return choice{outcome: wire.NoInterface, note: note} }

// Go transport sets: binding -> semver majors registered.
var (
	goV1     = map[a2a.TransportProtocol][]string{a2a.TransportProtocolJSONRPC: {"v1"}, a2a.TransportProtocolHTTPJSON: {"v1"}}
	goV1GRPC = map[a2a.TransportProtocol][]string{a2a.TransportProtocolJSONRPC: {"v1"}, a2a.TransportProtocolHTTPJSON: {"v1"}, a2a.TransportProtocolGRPC: {"v1"}}
	goAll    = map[a2a.TransportProtocol][]string{a2a.TransportProtocolJSONRPC: {"v1", "v0"}, a2a.TransportProtocolHTTPJSON: {"v1", "v0"}, a2a.TransportProtocolGRPC: {"v1", "v0"}}
)

// pickGo models a2aclient.Factory.selectTransport + createTransport (v2.3.1), after
// the card is read by encoding/json (card.Card.Refused: the bytes it refuses): keep an
// interface when a factory is registered for its exact binding (case-sensitive) and
// the semver major of "v"+protocolVersion; stable-sort newest version first (card order
// otherwise); take the first whose factory's Create succeeds (it does no I/O).
func pickGo(v *cardView, list []card.Interface, factories map[a2a.TransportProtocol][]string, compat bool) choice {
	if e := v.c.Refused(); e != nil {
		return none("its card resolver cannot read the card: " + e.Error())
	}
	if len(list) == 0 {
		if compat {
			return none("the card declares no interface a2av0's parser keeps")
		}
		return none("agent card has no supported interfaces: the default resolver reads only supportedInterfaces, and this is a v0.3 card")
	}
	type cand struct {
		at     int // in list
		semver string
	}
	cands := make([]cand, 0, len(list))
	for at, i := range list {
		if sv := "v" + i.ProtocolVersion; semver.IsValid(sv) && slices.Contains(factories[i.Binding], semver.Major(sv)) {
			cands = append(cands, cand{at, sv})
		}
	}
	if len(cands) == 0 {
		dropped := make([]string, len(list))
		for at, i := range list {
			dropped[at] = string(i.Binding) + "_" + i.ProtocolVersion
		}
		return none("no compatible transports found: available transports - [" + strings.Join(dropped, ",") + "]")
	}
	slices.SortStableFunc(cands, func(a, b cand) int { return semver.Compare(b.semver, a.semver) })
	chosen := list[cands[0].at]
	o, detail := v.outcomeFor(chosen, "")
	note := "selects " + chosen.String() + " (first of " + strconv.Itoa(len(cands)) + " compatible, newest version first, then card order)"
	if chosen.Binding == a2a.TransportProtocolGRPC {
		if addr.GoGRPCTarget(chosen.URL) != nil {
			return choice{iface: &chosen, outcome: wire.Unreachable,
				note: note + "; grpc.NewClient cannot dial a URL with a scheme (\"too many colons\")"}
		}
		if o == wire.Served && strings.Contains(detail, grpcTLSOnly) {
			return choice{iface: &chosen, outcome: wire.TLSMismatch,
				note: note + "; the gRPC address is served over TLS only and this profile dials plaintext"}
		}
	}
	return choice{iface: &chosen, outcome: o, note: note}
}

// pickPython models a2a-python 1.1 ClientFactory.create with the default ClientConfig:
// JSON-RPC only; v0.3 cards are converted (url + preferredTransport or JSONRPC, then
// additionalInterfaces); within the binding, the first "1.0" entry wins, else the
// highest version >= 0.3, else an unversioned one; the compat transport speaks 0.3.
func pickPython(v *cardView) choice {
	list := v.v1
	if len(list) == 0 {
		list = v.v03List()
	}
	var same []card.Interface
	for _, i := range list {
		if i.Binding == a2a.TransportProtocolJSONRPC {
			same = append(same, i)
		}
	}
	if len(same) == 0 {
		return none("no compatible transports found: the default client speaks only JSONRPC")
	}
	best := same[0]
	rank := func(i card.Interface) int {
		switch {
		case i.ProtocolVersion == card.V1:
			return 0
		case semver.Compare("v"+i.ProtocolVersion, "v1.0") > 0:
			return 1
		case semver.Compare("v"+i.ProtocolVersion, "v0.3") >= 0:
			return 2
		}
		return 3
	}
	for _, i := range same[1:] {
		if rank(i) < rank(best) || (rank(i) == rank(best) && rank(i) == 2 && semver.Compare("v"+i.ProtocolVersion, "v"+best.ProtocolVersion) > 0) {
			best = i
		}
	}
	o, _ := v.outcomeFor(best, "")
	return choice{iface: &best, outcome: o,
		note: "selects " + best.String() + ": JSON-RPC only, the card's hint does not matter to it"}
}

// pickJava models a2a-java 1.2.0.Final ClientBuilder: v0.3 cards throw (#1121); the first
// interface per binding, in server order, whose binding the client has (JSON-RPC); it
// speaks 1.0.
func pickJava(v *cardView) choice {
	if v.v03Only() {
		return none("a v0.3 card: the 1.x ClientBuilder throws on it (a2a-java #1121)")
	}
	for _, i := range v.v1 {
		if i.Binding == a2a.TransportProtocolJSONRPC {
			chosen := i
			o, _ := v.outcomeFor(chosen, card.V1)
			return choice{iface: &chosen, version: card.V1, outcome: o,
				note: "selects " + chosen.String() + ": first JSONRPC entry (its only transport by default)"}
		}
	}
	return none("No compatible transport found: the card declares no JSONRPC interface")
}

// pickV03Preferred models a v0.3 client that honours the hint: preferredTransport
// (default JSONRPC) at url, speaking 0.3.
func pickV03Preferred(v *cardView) choice {
	if v.primary == nil {
		return none("a v1.0-only card has no url/preferredTransport for a v0.3 client")
	}
	chosen := *v.primary
	o, _ := v.outcomeFor(chosen, card.V03)
	return choice{iface: &chosen, version: card.V03, outcome: o,
		note: "dials preferredTransport " + string(chosen.Binding) + " at url " + chosen.URL + ", as A2A 0.3 §5.6.3 says"}
}

// pickDelegate is a2abind's delegate, computed by the delegate's own rules rather than
// modelled: it walks card.CallOrder under wire.Policy (a SendMessage: not idempotent, no
// resend), with each attempt's outcome taken from the probe of that interface.
func pickDelegate(v *cardView) choice {
	cands, skipped := card.CallOrder(v.c, nil)
	if len(cands) == 0 {
		return none("no interface with a core binding and version 1.0 or 0.3")
	}
	var notes, tried []string
	for _, s := range skipped {
		notes = append(notes, fmt.Sprintf("skips %s (%s)", s.Interface, s.Reason))
	}
	var outcomes []wire.Outcome
	// The call is predicted to get what the probe's lookup got there, so the probe's
	// lookup is also the walk's confirming lookup (wire.Walker.Lookup): an answer that
	// needs confirmation is confirmed exactly when the lookup saw it too.
	w := wire.Policy{}.Walk(cands, wire.Walker{
		Try:    func(i card.Interface) wire.Tried { return wire.Tried{Outcome: v.callOutcome(i)} },
		Lookup: v.callOutcome,
		Decided: func(i card.Interface, t wire.Tried, _ wire.Step) {
			o := v.callOutcome(i)
			outcomes = append(outcomes, o)
			if t.Unsent {
				tried = append(tried, i.String()+" ("+string(o)+", not sent)")
			} else {
				tried = append(tried, i.String()+" ("+string(o)+")")
			}
		},
	})
	chosen := cands[w.Last]
	note := "uses " + chosen.String()
	if w.Last > 0 {
		note += " after falling back from " + strings.Join(tried[:w.Last], ", ")
	}
	if w.Exhausted && w.Last > 0 {
		note = fmt.Sprintf("tries every interface (%s), none answers", strings.Join(tried, ", "))
	} else if !w.Step.Next && w.Step.Why != "" && outcomes[w.Last] != wire.Served {
		note += "; " + w.Step.Why
	}
	if len(notes) > 0 {
		note = strings.Join(notes, "; ") + "; " + note
	}
	return choice{iface: &chosen, outcome: outcomes[w.Last], note: note}
}

// callOutcome is the outcome a call (SendMessage) gets at an interface, as the probe saw
// it: the probe's outcome, except that a lookup that may have reached a handler without
// proving the binding (Ambiguous: a 5xx, an answer cut or garbled after the request
// was written) is what the call gets too. The delegate names a failure that proves no
// handler was reached with the probe's name for the interface, as here.
func (v *cardView) callOutcome(i card.Interface) wire.Outcome {
	r, ok := v.results[i.ID()]
	switch {
	case !ok:
		return wire.NoInterface
	case r.Lookup == wire.Ambiguous && r.Outcome != wire.Served && r.Outcome != wire.AuthRequired:
		return wire.Ambiguous
	case r.Outcome == wire.Served && !delegateSpeaks(*r):
		// v0.3 HTTP+JSON routes served in a dialect the delegate does not speak: its
		// request finds no route.
		return wire.NotFound
	case r.Outcome == wire.Served && !v.delegateMay(*r):
		// Served the other way round from what the delegate may use (plaintext gRPC at a
		// bare host:port that is not loopback, without --grpc-plaintext): its TLS call fails.
		return wire.TLSMismatch
	}
	return r.Outcome
}

// delegateSpeaks reports whether the delegate speaks the v0.3 HTTP+JSON dialect of the
// routes probe found served (restv03.DialectAt, which the delegate's transport reads).
func delegateSpeaks(r Result) bool {
	if r.Interface.Binding != a2a.TransportProtocolHTTPJSON || card.NormalizeVersion(r.Interface.ProtocolVersion) != card.V03 {
		return true
	}
	_, ok := restv03.DialectAt(r.Way.Prefix)
	return ok
}

// delegateMay reports whether the delegate, with its default options, may call a served
// interface the way it answered (addr.DialModes: TLS or plaintext).
func (v *cardView) delegateMay(r Result) bool {
	a, err := addr.ParseAddress(r.Interface.URL, r.Interface.Binding)
	if err != nil {
		return true
	}
	useTLS, plain := addr.DialModes(a, card.NamedOrigin(v.c), false)
	return r.Way.TLS && useTLS || !r.Way.TLS && plain
}

// Predict is the client-impact table of the card as written, with no I/O: every declared
// interface is taken as served as declared (v0.3 HTTP+JSON at the specification's
// {url}/v1 routes, over TLS at an https:// URL). A client that fails here fails because
// of the card itself, whatever the agent serves; lint names such clients.
func Predict(c *card.Card) []ClientImpact {
	if c == nil {
		return nil
	}
	results := make([]Result, len(c.Interfaces))
	for n, i := range c.Interfaces {
		b, _ := addr.CanonicalBinding(i.Binding)
		r := Result{Interface: i, Outcome: wire.Served, Lookup: wire.Served, ActualBinding: b,
			ActualVersion: card.NormalizeVersion(i.ProtocolVersion), Way: Way{TLS: strings.HasPrefix(i.URL, "https://")}}
		if b == a2a.TransportProtocolHTTPJSON && r.ActualVersion == card.V03 {
			r.Way.Prefix = restv03.Spec.Prefix
		}
		results[n] = r
	}
	return clientImpact(newCardView(c, results))
}

// clientImpact runs every profile over the card and its results.
func clientImpact(v *cardView) []ClientImpact {
	out := make([]ClientImpact, 0, len(profiles))
	for _, p := range profiles {
		ch := p.pick(v)
		ci := ClientImpact{Profile: p.Name, Interface: ch.iface, Outcome: ch.outcome, OK: ch.outcome == wire.Served, Note: ch.note}
		if !ci.OK && ch.outcome != wire.NoInterface {
			ci.Note += "; gets " + string(ch.outcome)
		}
		out = append(out, ci)
	}
	return out
}
