package probe

import (
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/card"
)

// pickJS models @a2a-js/sdk 1.3.0 ClientFactory.createFromNormalizedAgentCard: v0.3 cards
// are unreadable without legacyCompat; per binding the first entry wins unless a later
// one has protocolVersion "1.0" (so the LAST 1.0 entry wins, a2a-js #734); bindings are
// tried in card order; the client speaks 1.0.
func pickJS(v *cardView, grpc bool) choice {
	if v.v03Only() {
		return none("a v0.3 card: without legacyCompat the resolver finds no supportedInterfaces (\"No compatible transport found\")")
	}
	supported := map[a2a.TransportProtocol]bool{a2a.TransportProtocolJSONRPC: true, a2a.TransportProtocolHTTPJSON: true, a2a.TransportProtocolGRPC: grpc}
	best := map[a2a.TransportProtocol]card.Interface{}
	var order []a2a.TransportProtocol
	for _, i := range v.v1 {
		if _, seen := best[i.Binding]; !seen {
			best[i.Binding] = i
			order = append(order, i.Binding)
		} else if i.ProtocolVersion == card.V1 {
			best[i.Binding] = i
		}
	}
	for _, b := range order {
		if !supported[b] {
			continue
		}
		chosen := best[b]
		o, _ := v.outcomeFor(chosen, card.V1)
		note := "selects " + chosen.String() + ": first binding of the card it has a transport for, last 1.0 entry of that binding (a2a-js #734)"
		return choice{iface: &chosen, version: card.V1, outcome: o, note: note}
	}
	return none("No compatible transport found: the card declares none of its transports")
}

// pickJS03 models @a2a-js/sdk 0.3.14 ClientFactory.createFromAgentCard (its
// supportedInterfaces, if any, are not read): a case-insensitive map from binding to URL
// holds preferredTransport (JSONRPC when absent or null, as written otherwise) -> url,
// then each additionalInterfaces entry, later entries overriding; the bindings are tried
// in the order preferredTransport, then additionalInterfaces, and the first with both a
// factory and a non-empty URL wins. The client speaks 0.3; its HTTP+JSON routes are the
// specification's, under {url}/v1.
func pickJS03(v *cardView, grpc bool) choice {
	pref, set := v.c.PreferredTransport()
	if !set {
		pref = string(a2a.TransportProtocolJSONRPC)
	}
	// last is the entry the map keeps per binding (the primary has no URL when url is absent).
	order := []string{strings.ToUpper(pref)}
	last := map[string]card.Interface{order[0]: {}}
	if v.primary != nil {
		last[order[0]] = *v.primary
	}
	for _, i := range v.extra {
		key := strings.ToUpper(string(i.Binding))
		last[key] = i
		order = append(order, key)
	}
	factories := map[string]bool{"JSONRPC": true, "HTTP+JSON": true, "GRPC": grpc}
	for _, key := range order {
		chosen := last[key]
		if !factories[key] || chosen.URL == "" {
			continue
		}
		o, _ := v.outcomeFor(chosen, card.V03)
		ch := choice{iface: &chosen, version: card.V03, outcome: o,
			note: "selects " + chosen.String() + ": first of preferredTransport then additionalInterfaces it has a transport for, at the binding's last URL (additionalInterfaces override url)"}
		return v03RESTRoutes(v, ch, a2aJS03, true)
	}
	return none("No compatible transport found: no binding of url+preferredTransport or additionalInterfaces it has a transport for, with a URL")
}
