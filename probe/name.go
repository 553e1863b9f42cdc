package probe

import (
	"context"
	"fmt"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/wire"
)

// Name says what an interface serves after a call there failed with outcome o, an
// outcome that proves no handler was reached, with the lookups Interface would make
// after a first answer like that one. For handler_missing only the other protocol
// version is looked up (the call's own answer stands for the declared one): the result
// is version_mismatch when it answers there, else handler_missing. Any other outcome
// gets Interface's full probe. The delegate names its failed attempts with it, so that
// send and probe give an interface the same outcome name. Like Interface, it runs on a
// fresh Engine closed before it returns.
func Name(ctx context.Context, iface card.Interface, o wire.Outcome, opts ...Option) Result {
	e := NewEngine()
	defer e.Close()
	if o != wire.HandlerMissing {
		return e.Interface(ctx, iface, opts...)
	}
	op := newOptions(opts)
	op.engine = e
	ctx, cancel := context.WithTimeout(ctx, op.timeout)
	defer cancel()
	r := newRun(iface, op)
	ep, err := parseEndpoint(iface.URL, r.binding)
	if err != nil || r.custom {
		return r.result(o, "not looked up further", 0)
	}
	if err := op.conn.Dial.Check(ep.addr); err != nil {
		return r.result(o, "not looked up further: "+err.Error(), 0)
	}
	op.addressCredentials(ep.addr)
	declared, other, known := versions(iface.ProtocolVersion)
	second := r.attempt(ctx, ep, r.binding, other, tlsAuto)
	res := r.result(wire.HandlerMissing, second.describe(), second.latency)
	if known && second.outcome.Reached() {
		res.Outcome = wire.VersionMismatch
		res.ActualBinding, res.ActualVersion = r.binding, other
		res.Detail += fmt.Sprintf(" (%s %s is served there, %s %s is not)", r.binding, other, r.binding, declared)
	}
	return res
}
