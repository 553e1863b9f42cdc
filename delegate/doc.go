// Package delegate is a2abind's resilient A2A client: it delegates calls to an agent
// across the interfaces its card declares, falling back only when a failure proves
// that the request never reached an A2A handler, and remembering what works.
//
// A Client is built from a target (an agent base URL, a card URL or a card file) or
// from a loaded *card.Card. Its candidates follow the card: v1.0 supportedInterfaces
// in order, filtered to the bindings and versions a2a-go v2.3.1 speaks (JSON-RPC,
// gRPC, HTTP+JSON; 1.0 and 0.3); for a v0.3 card, preferredTransport selects among the
// declared interfaces, then the rest follow in card order. WithBindings restricts or
// reorders them.
//
// Each call walks the candidates with one a2a-go transport per interface. The wire
// evidence of a failed attempt (HTTP status, content type, whether the request was
// fully written, the gRPC status before a2a-go maps it, the JSON-RPC error code) is
// recorded under the transport, read by wire.ReadAnswer and judged by wire.Judge, the
// same table the probe uses; once a request was fully written, only an answer proving
// that it reached no handler keeps a "never reached" outcome, anything else is
// ambiguous. The walk is wire.Policy.Walk over card.CallOrder, the same code probe's
// a2abind-delegate prediction runs. For a message, an answer a handler could also have
// given after running it (an A2A error such as VersionNotSupported or MethodNotFound,
// a 404, 405, 415, 501 or 3xx) is confirmed first with a GetTask of a random task id
// on the same interface and version: only the same "not here" answer moves the
// message on; otherwise the attempt is ambiguous (wire.Rules, docs/taxonomy.md). After a failure that proves no handler was reached (handler missing, not
// found, malformed), the interface is probed with side-effect-free lookups to name what
// is there, so that send and probe name it alike (docs/taxonomy.md). The policy:
//
//   - refused, unreachable, TLS mismatch, wrong binding, route not found, handler
//     missing, version mismatch: the next interface is tried (a message: with proof,
//     or once the lookup confirms it);
//   - authentication or authorisation failure: stop (the error names the card's
//     security schemes), unless the credentials were withheld from that interface;
//   - an A2A error from the agent: stop;
//   - ambiguous (timeout or reset after the request was sent, 5xx, UNAVAILABLE
//     mid-call): the idempotent calls (GetTask, ListTasks, CancelTask,
//     SubscribeToTask) try the next interface; SendMessage and SendStreamingMessage
//     stop unless WithResendSameMessageID allows resending the same messageId;
//   - a stream falls back only before its first event.
//
// The interface that answered is remembered per agent in a Cache (bounded, with a
// TTL, invalidated when the card's version or ETag changes; failed interfaces cool
// down), so a misdeclared card costs one failed attempt, not one per call. With
// WithCacheDir (DefaultCacheDir for the user cache directory) the Cache also keeps each
// agent in a file, so the next process starts from what this one learnt.
//
// Over HTTP+JSON the client accepts application/a2a+json answers (A2A 1.0.1) and sends
// application/json, or application/a2a+json to an origin that answered 415 to it.
//
// Every request carries the tenant the chosen interface declares (A2A §8.3.2 rule 4),
// which overrides a tenant set in the request; where none is declared the request's
// own tenant goes as given.
//
// Credentials (WithConn's headers) go only to interfaces on the card's own origin,
// the scheme, host and port the caller named before any redirect (addr.CredentialPolicy
// decides), unless the connection's CredentialHosts allow more: a card cannot redirect a token.
// Calls never follow an HTTP redirect: a 3xx is the attempt's outcome (not_found, the
// detail names the Location) and nothing is sent to the Location.
//
// Addresses: interface URLs are read by addr.ParseAddress; addr.DialPolicy (WithConn)
// refuses unix:, file:, userinfo, link-local, unspecified and cloud-metadata addresses
// (by name, after resolution and at connect time: outcome wire.Blocked); at most
// addr.DefaultMaxInterfaces interfaces of a card are attempted (addr.Conn.MaxInterfaces), and a
// transport is built on an interface's first attempt.
//
// Every failure is a *Error carrying the attempt trace; WithTrace exposes the trace of
// successful calls too.
//
// Bounds: a unary answer (or an error answer) over MaxAnswerBytes stops the call as an
// answer the client cannot read (ErrAgent); an answer cut by a deadline or a reset is
// ambiguous; a stream's events are bounded one by one (10 MiB, by a2a-go) and the
// stream in time by the call's context; WithAttemptTimeout bounds the wait for a unary
// answer or a stream's first event. A peer that trickles its answer is cut by those
// deadlines, never waited for.
//
//	conn := addr.Conn{Header: http.Header{"Authorization": {"Bearer " + token}}}
//	c, err := delegate.New(ctx, "http://127.0.0.1:8443", delegate.WithConn(conn))
//	if err != nil { ... }
//	defer c.Close()
//	var tr delegate.Trace
//	res, err := c.SendMessage(delegate.WithTrace(ctx, &tr), &a2a.SendMessageRequest{
//		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hi")),
//	})
//	for _, at := range tr.Attempts() { fmt.Println(at) }
package delegate
