package lab

import (
	"context"
	"encoding/json"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/a2abind/a2abind/card"
)

// Decl is one interface a lab card declares.
type Decl struct {
	URL     string
	Binding a2a.TransportProtocol
	Version string // card.V1 or card.V03; empty omits protocolVersion
}

// Binding shorthands for Decl literals.
const (
	JSONRPC  = a2a.TransportProtocolJSONRPC
	GRPC     = a2a.TransportProtocolGRPC
	HTTPJSON = a2a.TransportProtocolHTTPJSON
)

// common are the REQUIRED card fields that are not about interfaces.
func common(name string) map[string]any {
	return map[string]any{
		"name":               name,
		"description":        "a2abind lab agent: " + name,
		"version":            "1.0.0",
		"capabilities":       map[string]any{"streaming": true},
		"defaultInputModes":  []string{"text/plain"},
		"defaultOutputModes": []string{"text/plain"},
		"skills": []map[string]any{{
			"id": "echo", "name": "Echo", "description": "Echoes the message text", "tags": []string{"echo"},
		}},
	}
}

// V1Card builds a v1.0 card declaring ifaces in order as supportedInterfaces.
func V1Card(name string, ifaces ...Decl) map[string]any {
	c := common(name)
	list := make([]map[string]any, 0, len(ifaces))
	for _, d := range ifaces {
		e := map[string]any{"url": d.URL, "protocolBinding": string(d.Binding)}
		if d.Version != "" {
			e["protocolVersion"] = d.Version
		}
		list = append(list, e)
	}
	c["supportedInterfaces"] = list
	return c
}

// V03Card builds a v0.3 card: url with preferredTransport (omitted when empty), then
// additionalInterfaces, with protocolVersion "0.3.0".
func V03Card(name, url string, preferred a2a.TransportProtocol, additional ...Decl) map[string]any {
	c := common(name)
	c["protocolVersion"] = "0.3.0"
	c["url"] = url
	if preferred != "" {
		c["preferredTransport"] = string(preferred)
	}
	if len(additional) > 0 {
		list := make([]map[string]any, 0, len(additional))
		for _, d := range additional {
			list = append(list, map[string]any{"url": d.URL, "transport": string(d.Binding)})
		}
		c["additionalInterfaces"] = list
	}
	return c
}

// UnionCard builds the union card a2a-go's compat producer (a2av0.NewStaticAgentCardProducer)
// serves for ifaces: v1.0 supportedInterfaces plus the v0.3 url/preferredTransport/
// additionalInterfaces derived from the 0.3 entries. At least one entry must be 0.3.
func UnionCard(name string, ifaces ...Decl) ([]byte, error) {
	ac := &a2a.AgentCard{
		Name: name, Description: "a2abind lab agent: " + name, Version: "1.0.0",
		Capabilities:       a2a.AgentCapabilities{Streaming: true},
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain"},
		Skills:             []a2a.AgentSkill{{ID: "echo", Name: "Echo", Description: "Echoes the message text", Tags: []string{"echo"}}},
	}
	for _, d := range ifaces {
		ac.SupportedInterfaces = append(ac.SupportedInterfaces, &a2a.AgentInterface{
			URL: d.URL, ProtocolBinding: d.Binding, ProtocolVersion: a2a.ProtocolVersion(d.Version),
		})
	}
	p := a2av0.NewStaticAgentCardProducer(ac)
	jp, ok := p.(a2asrv.AgentCardJSONProducer)
	if !ok {
		return json.Marshal(ac)
	}
	return jp.CardJSON(context.Background())
}

// Healthy is a v1.0 agent serving JSON-RPC, gRPC and HTTP+JSON, each declared where it
// is served, JSON-RPC first.
func Healthy() []Option { return healthy("healthy", nil) }

// healthy is Healthy's bindings with a card named name; edit, when not nil, changes that
// card before it is published (capabilities.go's agents).
func healthy(name string, edit func(c map[string]any)) []Option {
	return []Option{
		WithJSONRPC(card.V1, PathJSONRPC),
		WithREST(card.V1, PathREST),
		WithGRPC(GRPCV1),
		WithCard(func(a *Agent) any {
			c := V1Card(name,
				Decl{a.URL(PathJSONRPC), JSONRPC, card.V1},
				Decl{a.GRPCAddr, GRPC, card.V1},
				Decl{a.URL(PathREST), HTTPJSON, card.V1})
			if edit != nil {
				edit(c)
			}
			return c
		}),
	}
}

// HealthyV03 is a v0.3-only agent: JSON-RPC at url (preferred), gRPC and HTTP+JSON
// declared in additionalInterfaces.
func HealthyV03() []Option {
	return []Option{
		WithJSONRPC(card.V03, PathJSONRPCV03),
		WithREST(card.V03, PathRESTV03),
		WithGRPC(GRPCV03),
		WithCard(func(a *Agent) any {
			return V03Card("healthy-v03", a.URL(PathJSONRPCV03), JSONRPC,
				Decl{URL: a.URL(PathJSONRPCV03), Binding: JSONRPC},
				Decl{URL: a.GRPCAddr, Binding: GRPC},
				Decl{URL: a.URL(PathRESTV03), Binding: HTTPJSON})
		}),
	}
}

// Union serves every binding in both protocol versions (gRPC v1.0 and v0.3 share one
// server) and publishes a2a-go's union card for them.
func Union() []Option {
	return []Option{
		WithJSONRPC(card.V1, PathJSONRPC),
		WithREST(card.V1, PathREST),
		WithJSONRPC(card.V03, PathJSONRPCV03),
		WithREST(card.V03, PathRESTV03),
		WithGRPC(GRPCBoth),
		WithCard(func(a *Agent) any {
			b, err := UnionCard("union",
				Decl{a.URL(PathJSONRPC), JSONRPC, card.V1},
				Decl{a.GRPCAddr, GRPC, card.V1},
				Decl{a.URL(PathREST), HTTPJSON, card.V1},
				Decl{a.URL(PathJSONRPCV03), JSONRPC, card.V03},
				Decl{a.GRPCAddr, GRPC, card.V03},
				Decl{a.URL(PathRESTV03), HTTPJSON, card.V03})
			if err != nil {
				return map[string]any{"error": err.Error()}
			}
			return b
		}),
	}
}

// Seed is the agent of the seed incident, v0.3 card shape, on loopback. Its card is the
// record's: url is the HTTP port (which serves only JSON-RPC, at its root),
// preferredTransport is GRPC, and additionalInterfaces declare JSONRPC at url and GRPC
// at a second port whose listener accepts connections with no A2A service registered.
// (The record spells the hint "grpc"; the lab uses the canonical "GRPC" so that the
// defect shown is the incident's, not a spelling one. testdata keeps the verbatim card.)
func Seed() []Option {
	return []Option{
		WithJSONRPC(card.V03, "/"),
		WithGRPC(GRPCNoService),
		WithCard(func(a *Agent) any {
			return V03Card("seed-agent", a.BaseURL, GRPC,
				Decl{URL: a.BaseURL, Binding: JSONRPC},
				Decl{URL: a.GRPCAddr, Binding: GRPC})
		}),
	}
}

// SeedV1 is the seed incident in the v1.0 card shape: supportedInterfaces lists GRPC at
// the HTTP port first (the preferred entry), then JSONRPC there, then GRPC at the port
// with no A2A service; the HTTP port serves v1.0 JSON-RPC at its root.
func SeedV1() []Option {
	return []Option{
		WithJSONRPC(card.V1, "/"),
		WithGRPC(GRPCNoService),
		WithCard(func(a *Agent) any {
			return V1Card("seed-agent-v1",
				Decl{a.BaseURL, GRPC, card.V1},
				Decl{a.BaseURL, JSONRPC, card.V1},
				Decl{a.GRPCAddr, GRPC, card.V1})
		}),
	}
}
