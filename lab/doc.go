// Package lab starts A2A agents on loopback, healthy or deliberately faulty, so that
// tests, benchmarks and `a2abind demo` share one source of misbehaving peers.
//
// An Agent is assembled from parts with options: which bindings the HTTP listener
// mounts (JSON-RPC and HTTP+JSON, v1.0 or v0.3, at which path), what the gRPC listener
// registers (nothing, the v1.0 service, the v0.3 service, or both), whether credentials
// are required, whether TLS is used, and which card is published. The card is computed
// from the real listening addresses, so a test says "GRPC declared at the HTTP port" in
// code rather than with hard-coded ports.
//
//	a, err := lab.Start(lab.Seed()...)          // the seed incident's agent
//	defer a.Close()
//	c, err := card.Fetch(ctx, a.BaseURL)
//
// Raw faults that are not agents at all come from ClosedAddr and Listen: a closed port,
// a listener that accepts and never answers, one that answers garbage, one that hangs up.
// Faults after a request reached the handler (faults.go) prove that nothing is delivered
// twice: DropAfterHandling, RawAfterHandling (a garbled answer after the handler ran)
// and DropAfterFirstEvent (HTTP middleware for WithHTTPMiddleware), CutGRPCAfterHandling (a proxy cutting gRPC after the handler ran),
// and Counter (an executor counting executions and message ids).
//
// Hostile peers (hostile.go, StartHostile) answer every request in a way a client must
// survive with bounded time and memory: an endless body, headers or a body trickled a
// byte at a time, an SSE stream that never sends an event or never ends, a first event
// that never ends, and a gRPC server that never answers.
//
// Everything listens on 127.0.0.1 only and stops on Close.
package lab
