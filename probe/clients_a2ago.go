package probe

import (
	"fmt"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/restv03"
	"github.com/a2abind/a2abind/wire"
)

// Clients that differ on the v0.3 HTTP+JSON routes: a2a-go v2.4.0 (the module a2abind
// builds with) and @a2a-js/sdk 0.3.14 speak those of the v0.3 specification,
// {url}/v1/message:send, ...; a2a-go v2.3.1, which agents in the field still run, speaks
// them at {url}/message:send, ... (a2a-go #370, fixed by #371). Each reaches only an
// agent with its own layout.
const (
	a2aGoCurrent = "a2a-go v2.4.0"
	a2aGoField   = "a2a-go v2.3.1"
	a2aJS03      = "@a2a-js/sdk 0.3.14"
)

// v03RESTRoutes corrects a profile's choice for the v0.3 HTTP+JSON routes its client
// speaks (atV1: under {url}/v1, else at {url}): at an HTTP+JSON interface spoken as 0.3
// and served with the other layout, the client's requests find no route (not_found; no
// handler runs).
func v03RESTRoutes(v *cardView, ch choice, client string, atV1 bool) choice {
	if ch.iface == nil || ch.outcome != wire.Served || ch.iface.Binding != a2a.TransportProtocolHTTPJSON ||
		(ch.version != card.V03 && card.NormalizeVersion(ch.iface.ProtocolVersion) != card.V03) {
		return ch
	}
	r, ok := v.results[ch.iface.ID()]
	if servedAtV1 := ok && r.Way.Prefix == restv03.Prefix; servedAtV1 == atV1 {
		return ch
	}
	speaks, serves := "{url}/v1/...", "{url}/..."
	if !atV1 {
		speaks, serves = serves, speaks
	}
	ch.outcome = wire.NotFound
	ch.note += fmt.Sprintf("; %s speaks the v0.3 HTTP+JSON routes at %s, the agent serves them at %s", client, speaks, serves)
	return ch
}
