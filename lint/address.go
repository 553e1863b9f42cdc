package lint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/wording"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// --- address rules ---

// v03Conflicts groups the v0.3 declarations (primary and additionalInterfaces) by address.
func (l *linter) v03Conflicts() []hit {
	var v03 []card.Interface
	for _, i := range l.declared {
		if i.Source == card.SourcePrimary || i.Source.List == card.ListAdditional {
			v03 = append(v03, i)
		}
	}
	return l.conflicts(v03, func(addr, list string) string {
		return fmt.Sprintf("%s is declared as %s; A2A 0.3 §5.6.4 forbids conflicting transports at one URL, "+
			"but clients select an interface by binding, so none fails on this alone: one fails only if the URL does not serve the binding it picks (a2abind probe checks)", addr, list)
	})
}

// v1Shared groups the supportedInterfaces entries by address.
func (l *linter) v1Shared() []hit {
	var v1 []card.Interface
	for _, i := range l.declared {
		if i.Source.List == card.ListSupported {
			v1 = append(v1, i)
		}
	}
	return l.conflicts(v1, func(addr, list string) string {
		return fmt.Sprintf("%s is declared as %s; that holds only if one server there really serves every one of these bindings", addr, list)
	})
}

func (l *linter) conflicts(ifaces []card.Interface, msg func(addr, list string) string) []hit {
	type group struct {
		addr     string
		bindings []a2a.TransportProtocol
		sources  []card.Source // where each binding is first declared
	}
	var order []string
	groups := map[string]*group{}
	for _, i := range ifaces {
		k, ok := l.addressKey(i)
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
			g.sources = append(g.sources, i.Source)
		}
	}
	var out []hit
	for _, k := range order {
		g := groups[k]
		if len(g.bindings) < 2 {
			continue
		}
		where := make([]string, len(g.bindings)) // written only for a conflict
		for n, b := range g.bindings {
			where[n] = fmt.Sprintf("%s (%s)", b, g.sources[n])
		}
		m := msg(g.addr, wording.JoinAnd(where))
		// The seed pattern: a binding claimed at the shared address is also declared
		// at an address of its own, so the claim at the shared one is likely the mistake.
		for _, i := range ifaces {
			ik, ok := l.addressKey(i)
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
	if l.c.Shape != card.ShapeUnion || l.hand {
		return nil
	}
	if v := card.NormalizeVersion(val(l.doc.ProtocolVersion)); v != "" && v != card.V03 {
		return nil // the v0.3 fields claim another version; the version rules speak to that
	}
	type entry struct {
		key    string
		iface  card.Interface
		listed bool
	}
	index := func(keep func(card.Interface) bool) []*entry {
		var out []*entry
		for _, i := range l.declared {
			if !keep(i) {
				continue
			}
			k, ok := l.addressKey(i)
			if !ok {
				k = i.URL
			}
			out = append(out, &entry{key: k + "\x00" + string(canonical(i.Binding)), iface: i})
		}
		return out
	}
	v03 := index(func(i card.Interface) bool {
		return i.Source == card.SourcePrimary || i.Source.List == card.ListAdditional
	})
	v1 := index(func(i card.Interface) bool {
		return i.Source.List == card.ListSupported && i.ProtocolVersion == card.V03
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
			out = append(out, hit{iface: a.iface.Source.String(), message: fmt.Sprintf(
				"%s declares %s at %s for v0.3 clients, but no supportedInterfaces entry with protocolVersion 0.3 lists it: clients reading supportedInterfaces and clients reading the v0.3 fields see different agents",
				a.iface.Source, canonical(a.iface.Binding), a.iface.URL)})
		}
	}
	for _, b := range v1 {
		if !b.listed {
			out = append(out, hit{iface: b.iface.Source.String(), message: fmt.Sprintf(
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
			out = append(out, hit{iface: i.Source.String(), message: fmt.Sprintf("%s declares %s with no url", i.Source, bindingName(i.Binding))})
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
		a, err := l.parseAddress(i.URL, i.Binding)
		if err != nil || a.Local() || addr.GoGRPCTarget(strings.TrimSpace(i.URL)) == nil { // the scheme is this rule's concern
			continue
		}
		why := "Go gRPC clients have no %s:// resolver and fail to dial it, while other SDKs strip the scheme"
		if a.Scheme == "http" || a.Scheme == "https" {
			why = "Go gRPC clients reject a target with an %s:// scheme (\"too many colons\"), while other SDKs strip it"
		}
		fix := fmt.Sprintf("write the GRPC address as %q (A2A v1.0.1: host:port)", a.HostPort())
		if o, oa, ok := l.grpcElsewhere(i); ok {
			fix = fmt.Sprintf("another binding is declared at this URL and GRPC also at %s (%s): write this entry as %q (A2A v1.0.1: host:port)", o.URL, o.Source, oa.HostPort())
		}
		out = append(out, hit{iface: i.Source.String(),
			message: fmt.Sprintf("%s declares GRPC at %q: "+why+", so the interface works for some clients only", i.Source, i.URL, a.Scheme),
			fix:     fix})
	}
	return out
}

// grpcElsewhere is, for a GRPC entry whose URL another binding also declares, another
// GRPC entry at a URL of its own and its address: where gRPC really is, most likely.
func (l *linter) grpcElsewhere(i card.Interface) (card.Interface, addr.Address, bool) {
	if !slices.ContainsFunc(l.declared, func(o card.Interface) bool { return !isGRPC(o.Binding) && o.URL == i.URL }) {
		return card.Interface{}, addr.Address{}, false
	}
	for _, o := range l.declared {
		if a, err := l.parseAddress(o.URL, o.Binding); err == nil && isGRPC(o.Binding) && o.URL != i.URL {
			return o, a, true
		}
	}
	return card.Interface{}, addr.Address{}, false
}

func (l *linter) urlAbsolute() []hit {
	var out []hit
	for _, i := range l.declared {
		if strings.TrimSpace(i.URL) == "" {
			continue
		}
		_, err := l.parseAddress(i.URL, i.Binding)
		if err == nil {
			continue
		}
		if isGRPC(i.Binding) {
			out = append(out, hit{iface: i.Source.String(),
				message: fmt.Sprintf("%s declares GRPC at %q, which is neither host:port nor an absolute URL", i.Source, i.URL),
				fix:     `write the GRPC address as host:port, e.g. "agent.example.com:443"`})
			continue
		}
		out = append(out, hit{iface: i.Source.String(),
			message: fmt.Sprintf("%s declares %s at %q, which is not an absolute http(s) URL; clients cannot resolve it", i.Source, bindingName(i.Binding), i.URL)})
	}
	return out
}

func (l *linter) plainHTTP() []hit {
	var out []hit
	for _, i := range l.declared {
		a, err := l.parseAddress(i.URL, i.Binding)
		if err != nil || a.Scheme != "http" || isGRPC(i.Binding) {
			continue
		}
		if a.Loopback() || a.Wildcard() {
			continue
		}
		out = append(out, hit{iface: i.Source.String(),
			message: fmt.Sprintf("%s serves %s over plain http at %s: credentials and messages cross the network unencrypted",
				i.Source, bindingName(i.Binding), i.URL)})
	}
	return out
}

func (l *linter) wildcardHost() []hit {
	var out []hit
	for _, i := range l.declared {
		a, _ := l.parseDeclared(i.URL, i.Binding) // a bare host:port declared for JSON-RPC too
		if !a.Wildcard() {
			continue
		}
		out = append(out, hit{iface: i.Source.String(),
			message: fmt.Sprintf("%s declares %s at %s: %q is a listen-on-everything address, not one a remote client can dial",
				i.Source, bindingName(i.Binding), i.URL, a.Host)})
	}
	return out
}
