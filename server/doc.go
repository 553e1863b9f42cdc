// Package server runs one A2A agent, built from an a2a-go AgentExecutor, on several
// bindings at once, and never publishes a card it does not serve.
//
//   - The card is derived from the registered bindings (each route path is written once,
//     in routes.go, and read by both the mux and the card), so by default it cannot
//     disagree with the sockets. WithPublicURL / WithPublicGRPCAddr set what it advertises
//     behind a proxy or in a container.
//   - A hand-written card (WithCardJSON, WithAgentCard) is accepted only if every declared
//     (url, binding, version) is served by this server at that address and the preferred
//     entry is served at its primary URL: New fails otherwise with *BindingError
//     (errors.Is ErrCardMismatch), the seed incident's AgentCardBindingError done properly.
//   - Start serves the bindings, then probes every declared interface over the real
//     sockets with package probe; until each answers `served` the card endpoint answers
//     503 with Retry-After and /readyz is not ready (/healthz is liveness).
//   - Shutdown withdraws the card and readiness first, then drains and closes the bindings
//     within a bounded time: in-flight requests are answered, new HTTP ones refused with 503
//     and Connection: close, and connections still open at the deadline (idle, half-open,
//     or waiting for their HTTP/2 preface) are closed.
//   - An agent with its own servers mounts the parts instead (Mount or Handler, RegisterGRPC,
//     WithMounted) and keeps its a2a-go options (WithHandlerOptions: task store, call
//     interceptors for authentication); Start still publishes the card only after the
//     self-check reached every declared interface as mounted.
//   - The default task store is bounded (WithTaskLimits): terminal tasks are evicted by age,
//     count and bytes, running ones never; ListTasks is scoped to the authenticated user
//     when the card declares a security scheme and open when it declares none.
//
// WithTenant serves one tenant (tenant.go): every interface declares it, HTTP+JSON is
// mounted under the {url}/{tenant}/ path prefix with a2a-go's NewTenantRESTHandler, and
// a call interceptor refuses any request whose tenant (a2asrv.CallContext.Tenant, filled
// by a2a-go from the request's tenant field or the path) is not the served one with A2A
// InvalidParams naming it. A hand-written card must declare exactly that tenant.
//
// Beyond a2a-go, the HTTP listener answers a gRPC request with HTTP 415 naming where gRPC
// is served (unless WithGRPCOnHTTP serves it there), a JSON-RPC POST with a non-JSON
// content type with JSON-RPC -32005 (HTTP 200, as a2a-go and a2a-js answer every JSON-RPC
// error), and honours A2A-Version on every binding: a missing value means 0.3, and an
// interface that does not serve the requested version answers VersionNotSupported
// (JSON-RPC -32009, HTTP+JSON 400 with reason VERSION_NOT_SUPPORTED, gRPC
// FAILED_PRECONDITION with ErrorInfo). a2a-go's and a2a-js's v1.0 clients send
// A2A-Version 1.0; their v0.3 clients send 0.3 or nothing, and reach the v0.3 paths.
//
//	srv, err := server.New(executor, server.WithAgentInfo(name, description, version, skills...),
//		server.WithGRPCAddr("127.0.0.1:0"), server.WithV03())
//	if err != nil { ... }                 // *BindingError for a card that lies
//	if err := srv.Start(ctx); err != nil { ... } // *SelfCheckError if a binding does not answer
//	defer srv.Shutdown(context.Background())
//	fmt.Println(srv.CardURL())
package server
