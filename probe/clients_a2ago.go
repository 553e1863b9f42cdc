package probe

import (
	"fmt"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/restv03"
	"github.com/a2abind/a2abind/wire"
)

// a2a-go releases whose clients differ: v2.4.0 (the module a2abind builds with) speaks
// the v0.3 HTTP+JSON routes of the v0.3 specification, {url}/v1/message:send, ...;
// v2.3.1, which agents in the field still run, speaks them at {url}/message:send, ...
// (a2a-go #370, fixed by #371). Each reaches only an agent with its own layout.
const (
	a2aGoCurrent = "v2.4.0"
	a2aGoField   = "v2.3.1"
)

// goRESTV03Routes corrects a Go profile's choice for the v0.3 HTTP+JSON routes its
// release speaks: at an HTTP+JSON 0.3 interface served with the other layout, the
// client's requests find no route (not_found; no handler runs).
func goRESTV03Routes(v *cardView, ch choice, release string) choice {
	if ch.iface == nil || ch.outcome != wire.Served || ch.iface.Binding != a2a.TransportProtocolHTTPJSON ||
		card.NormalizeVersion(ch.iface.ProtocolVersion) != card.V03 {
		return ch
	}
	r, ok := v.results[ch.iface.ID()]
	atV1 := ok && r.Way.Prefix == restv03.Prefix
	if atV1 == (release == a2aGoCurrent) {
		return ch
	}
	speaks, serves := "{url}/v1/...", "{url}/..."
	if release == a2aGoField {
		speaks, serves = serves, speaks
	}
	ch.outcome = wire.NotFound
	ch.note += fmt.Sprintf("; a2a-go %s speaks the v0.3 HTTP+JSON routes at %s, the agent serves them at %s", release, speaks, serves)
	return ch
}
