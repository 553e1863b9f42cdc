package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/restv03"
	"github.com/a2abind/a2abind/wire"
)

// probeHTTPJSON GETs a random task id from the interface's tasks route. A served
// interface answers 404 with a google.rpc.Status body carrying ErrorInfo
// TASK_NOT_FOUND.
//
// 1.0: GET {url}[/{tenant}]/tasks/{id} with A2A-Version: 1.0 (a tenant of several
// segments, "locations/eu/projects/p", is sent as that many path segments, as a2a-go's
// client sends it).
// 0.3: GET {url}/tasks/{id} without A2A-Version (the routes a2a-go's v0.3 handler
// serves) and, when that is not a v0.3 answer, GET {url}/v1/tasks/{id} (the v0.3
// specification's routes, where a2a-js with legacyCompat serves v0.3 while answering
// {url}/tasks/{id} in 1.0 shape).
//
// The version of the answer is read from its shape: a2a-go's v0.3 handler answers
// application/problem+json, a v1.0 handler a google.rpc.Status in application/json or
// application/a2a+json.
//
// A capability's operation GETs its route the same way (httpRoutes): SubscribeToTask
// {url}/tasks/{id}:subscribe (the verb of the proto and of every SDK seen; of the stream
// only the first event is read), ListTaskPushNotificationConfigs
// {url}/tasks/{id}/pushNotificationConfigs, GetExtendedAgentCard {url}/extendedAgentCard
// (0.3: {url}/v1/card).
func probeHTTPJSON(ctx context.Context, req request) attempt {
	base := strings.TrimSuffix(req.ep.httpURL(req.mode), "/")
	if req.ep.query != "" {
		base = strings.TrimSuffix(strings.SplitN(base, "?", 2)[0], "/")
	}
	id := url.PathEscape(req.taskID)
	route := httpRoutes[req.op][req.version]
	route = strings.ReplaceAll(route, "{id}", id)
	h := httpjsonHeaders[headerKey{req.op == opSubscribe, req.version == card.V1}]
	if req.version == card.V1 {
		prefix := base
		if req.tenant != "" {
			prefix += "/" + tenantPath(req.tenant)
		}
		a := getTask(ctx, req, prefix+route, h)
		if req.tenant != "" && a.ev.HTTPStatus == http.StatusNotFound && a.ev.Reason == "" {
			a.extra = append(a.extra, fmt.Sprintf("the declared tenant %q was sent as the path prefix: nothing there may also mean the agent serves another tenant", req.tenant))
		}
		if req.op == opGetTask && req.tenant == "" && a.ev.HTTPStatus == http.StatusNotFound && a.ev.Framing == wire.Unrecognised {
			a.extra = append(a.extra, tenantPrefixNote(ctx, req, base, id)...)
		}
		return a
	}
	a := getTask(ctx, req, base+route, h)
	if o, _ := wire.Classify(a.ev); !a.answered || o == wire.Served || o == wire.AgentError || o == wire.AuthRequired {
		return a
	}
	// {url}/tasks/{id} is not v0.3's answer: nothing there, or another shape (a2a-js
	// with legacyCompat answers there in 1.0 shape and serves v0.3 under /v1). The v0.3
	// specification's routes are {url}/v1/...: they decide when they answer as 0.3, or
	// when the first route had nothing recognisable.
	b := getTask(ctx, req, base+restv03.Prefix+route, h)
	b.prefix = restv03.Prefix
	ob, _ := wire.Classify(b.ev)
	nothingFirst := a.ev.Framing == wire.Unrecognised && (a.ev.HTTPStatus == http.StatusNotFound || a.ev.HTTPStatus == http.StatusMethodNotAllowed)
	if b.answered && (ob.Reached() || nothingFirst) {
		b.firstTried = a.sent + " -> " + a.seen
		return b
	}
	return a
}

// httpjsonHeaders are the headers of the HTTP+JSON requests, built once and only read
// (doHTTP copies them into each request): a stream's Accept, 1.0's Accept and
// A2A-Version.
var httpjsonHeaders = map[headerKey]http.Header{
	{stream: false, v1: false}: {"Accept": {"application/json"}},
	{stream: true, v1: false}:  {"Accept": {"text/event-stream"}},
	{stream: false, v1: true}:  {"Accept": {"application/a2a+json, application/json"}, a2a.SvcParamVersion: {card.V1}},
	{stream: true, v1: true}:   {"Accept": {"text/event-stream"}, a2a.SvcParamVersion: {card.V1}},
}

// httpRoutes are each operation's route under the interface URL, per version ({id}:
// the random task id). A v0.3 route is tried at the URL and under /v1.
var httpRoutes = map[operation]map[string]string{
	opGetTask:         {card.V1: "/tasks/{id}", card.V03: "/tasks/{id}"},
	opSubscribe:       {card.V1: "/tasks/{id}:subscribe", card.V03: "/tasks/{id}:subscribe"},
	opListPushConfigs: {card.V1: "/tasks/{id}/pushNotificationConfigs", card.V03: "/tasks/{id}/pushNotificationConfigs"},
	opExtendedCard:    {card.V1: "/extendedAgentCard", card.V03: "/card"},
}

// getTask GETs one route of the request's operation and reads the answer.
func getTask(ctx context.Context, req request, target string, h http.Header) attempt {
	ans := doHTTP(ctx, req, http.MethodGet, target, nil, h)
	a := attempt{sent: "HTTP+JSON GET " + target, tls: ans.tls, answered: ans.status != 0,
		certExpiry: ans.certExpiry}
	a.ev = wire.Evidence{Binding: a2a.TransportProtocolHTTPJSON, Version: req.version}
	ans.evidence(&a.ev)
	a.seen = ans.seen()
	if ans.status == 0 {
		return a
	}
	switch r := wire.ReadAnswer(ans.contentType, ans.body); {
	case r.Framing == a2a.TransportProtocolHTTPJSON:
		// A google.rpc.Status, or the v0.3 REST error shape of a2a-js (the A2A error
		// code, no envelope).
		r.Fill(&a.ev)
		a.seen += ", " + r.String()
		if a.ev.AnswerVersion != "" {
			a.seen += " (a " + a.ev.AnswerVersion + "-shaped answer)"
		}
		return a
	case r.Framing == a2a.TransportProtocolJSONRPC:
		a.ev.Framing = a2a.TransportProtocolJSONRPC
		a.seen += ", " + r.String() + " (a JSON-RPC endpoint)"
		return a
	}
	if ans.status >= 200 && ans.status < 300 && looksLikeTask(ans.body, req.taskID) {
		a.ev.Framing = a2a.TransportProtocolHTTPJSON
		a.seen += ", a task object"
		return a
	}
	if req.op != opGetTask && ans.status >= 200 && ans.status < 300 && jsonObject(ans.contentType, ans.body) {
		// A push-config list, the extended card, a stream's first event: an answer of
		// the operation's handler.
		a.ev.Framing = a2a.TransportProtocolHTTPJSON
		a.seen += ", a JSON object"
		return a
	}
	a.ev.Framing = wire.Unrecognised
	a.seen += ", " + quote(ans.body)
	return a
}

// looksLikeTask reports whether a 2xx body is a task object for id (a server that
// invents tasks for unknown ids still proves the route is served).
func looksLikeTask(b []byte, id string) bool {
	s := string(b)
	return strings.HasPrefix(strings.TrimSpace(s), "{") && strings.Contains(s, id)
}

// jsonObject reports whether a body (of a stream, its first event's data) is a JSON
// object.
func jsonObject(contentType string, b []byte) bool {
	if contentType == "text/event-stream" {
		for line := range bytes.Lines(b) {
			if d, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("data:")); ok {
				b = d
				break
			}
		}
	}
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '{' && json.Valid(b)
}
