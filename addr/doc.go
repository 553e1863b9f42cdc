// Package addr is a2abind's one address model and the policies that decide where it
// connects: what an interface URL means for its binding (ParseAddress, Address,
// Origin), which bindings are core (CanonicalBinding), what Go's gRPC client accepts as
// a target (GoGRPCTarget), which addresses are dialled (DialPolicy) and in which TLS
// modes (DialModes), where the user's credentials may go (CredentialPolicy), and the
// connection settings every client takes (Conn). It sits below every other package of
// the module: card, probe, delegate, server, guard and the exporter call it and none of
// them models an address of its own.
package addr
