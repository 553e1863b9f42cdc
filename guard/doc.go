// Package guard is the publish-time invariant for agents a2abind did not build: a
// front (a sidecar in the same pod, or a process on the same host) that sees both the
// agent's card and its sockets, and publishes the card only when they agree.
//
// A Guard fetches the upstream agent's card and probes every declared interface
// (probe.Card) at start and every interval. It serves /.well-known/agent-card.json
// itself (ETag, Last-Modified, Cache-Control; If-None-Match and If-Modified-Since give
// 304), /healthz and /readyz, and reverse-proxies every other request to the upstream
// (JSON-RPC, HTTP+JSON, server-sent event streams unbuffered).
//
//   - Strict (the default): while any declared interface, or the preferred entry, is not
//     served, the card answers 503 with Retry-After, /readyz is not ready and the log
//     names each interface and its cause. Once the card is consistent it is served
//     unchanged, byte for byte.
//   - WithNormalize: the card served is the truth (Normalize): only the served
//     interfaces, a served preferred entry; signatures dropped, with a header and a log
//     line, when anything changed. A card on which nothing is served answers 503.
//
// The card is probed where it says clients go, unless WithProbeVia maps a public
// address the guard cannot reach to a local one (probes only; the card is not
// rewritten).
//
//	g, err := guard.New("http://127.0.0.1:8080", guard.WithListenAddr(":8443"), guard.WithNormalize())
//	if err != nil { ... }
//	if err := g.Start(ctx); err != nil { ... }
//	defer g.Shutdown(context.Background())
package guard
