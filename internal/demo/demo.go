// Package demo plays the seed incident and its fix on loopback, in one process: the
// seed's agent and its three clients, a2abind's probe, the delegate's fallback, the
// guarded server refusing the seed's card, and the corrected card served to the same
// three clients. Run returns a structured Report; internal/cli renders it.
package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	a2agrpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/delegate"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/server"
	"github.com/a2abind/a2abind/wire"
)

// Step names, a stable contract of `a2abind demo -o json`.
const (
	StepSeedAgent     = "seed-agent"
	StepSeedClients   = "seed-clients"
	StepProbe         = "probe"
	StepDelegate      = "delegate"
	StepGuardedRefuse = "guarded-server-refuses"
	StepCorrected     = "corrected-card"
)

// callTimeout bounds one client call; the demo's peers are on loopback.
const callTimeout = 3 * time.Second

// Report is everything the demo saw, step by step.
type Report struct {
	// OK reports that every step behaved as the seed record says.
	OK bool `json:"ok"`
	// Steps are the steps in order.
	Steps []Step `json:"steps"`

	// SeedCard is the seed agent's card; SeedResults and SeedReport are its probe.
	SeedCard    *card.Card     `json:"-"`
	SeedResults []probe.Result `json:"-"`
	SeedReport  probe.Report   `json:"-"`
}

// Step is one part of the story: what the record says should happen and what did.
type Step struct {
	// Name is a stable identifier (the Step* constants).
	Name string `json:"name"`
	// Title is a one-line heading.
	Title string `json:"title"`
	// Expected says what the seed record says happens.
	Expected string `json:"expected"`
	// OK reports whether what happened matches Expected.
	OK bool `json:"ok"`
	// Notes are the observations, one line each.
	Notes []string `json:"notes,omitempty"`
	// Calls are the client calls made in this step.
	Calls []Call `json:"calls,omitempty"`
	// Attempts are the delegate's attempts, per call, in this step (the CLI renders
	// them in the `a2abind send -o json` shape).
	Attempts [][]delegate.Attempt `json:"-"`
}

// Call is one client of the record calling one interface.
type Call struct {
	// Client names the client the way the record describes it.
	Client string `json:"client"`
	// Interface is the interface the client chose.
	Interface card.Interface `json:"interface"`
	// OK reports that the message was delivered and answered.
	OK bool `json:"ok"`
	// Error is what the client's SDK (a2a-go v2.3.1) said, when it failed.
	Error string `json:"error,omitempty"`
	// Outcome is a2abind's verdict on that interface (a probe of it), the real cause.
	Outcome wire.Outcome `json:"outcome"`
	// Detail is the probe's evidence.
	Detail string `json:"detail,omitempty"`
	// Probe is the whole probe result behind Outcome and Detail.
	Probe probe.Result `json:"-"`
}

// Run plays the demo. It returns an error only when the demo itself could not run
// (no loopback socket, say); a step that misbehaves is reported in the Report.
func Run(ctx context.Context) (*Report, error) {
	rep := &Report{}
	seed, err := lab.Start(lab.Seed()...)
	if err != nil {
		return nil, fmt.Errorf("start the seed agent: %w", err)
	}
	defer seed.Close()

	c, err := card.Fetch(ctx, seed.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("fetch the seed agent's card: %w", err)
	}
	rep.SeedCard = c
	rep.add(seedAgentStep(seed, c))
	rep.SeedResults = probe.Card(ctx, c, probe.WithTimeout(callTimeout))
	rep.add(clientsStep(ctx, StepSeedClients, "The three clients of the record call the seed agent", c, rep.SeedResults,
		"the client that honours preferredTransport at url fails (wrong binding there), the one that resolves the gRPC entry fails (A2A service not registered), the JSON-RPC client succeeds",
		[]bool{false, false, true}))

	rep.SeedReport = probe.Diagnose(c, rep.SeedResults)
	rep.add(probeStep(rep.SeedReport))
	rep.add(delegateStep(ctx, c))
	rep.add(refuseStep())

	corrected, err := correctedStep(ctx)
	if err != nil {
		return nil, err
	}
	rep.add(corrected)
	rep.OK = true
	for _, s := range rep.Steps {
		rep.OK = rep.OK && s.OK
	}
	return rep, nil
}

func (r *Report) add(s Step) { r.Steps = append(r.Steps, s) }

// Failed names the steps that did not behave as the record says.
func (r *Report) Failed() []string {
	var out []string
	for _, s := range r.Steps {
		if !s.OK {
			out = append(out, s.Name)
		}
	}
	return out
}

func seedAgentStep(seed *lab.Agent, c *card.Card) Step {
	s := Step{
		Name:     StepSeedAgent,
		Title:    "The seed agent: JSON-RPC at url, a gRPC port with no A2A service, a card preferring gRPC",
		Expected: "the card is fetched and well-formed: discovery succeeds",
		OK:       c.Shape == card.ShapeV03 && len(c.Interfaces) == 3,
	}
	s.Notes = append(s.Notes,
		fmt.Sprintf("card %s (v0.3 shape): url %s, preferredTransport GRPC", card.CardURL(seed.BaseURL), seed.BaseURL),
		fmt.Sprintf("the HTTP port %s serves JSON-RPC 0.3 only; the gRPC port %s accepts connections with no A2A service", seed.HTTPAddr, seed.GRPCAddr))
	for _, i := range c.Interfaces {
		s.Notes = append(s.Notes, "declares "+i.String()+" ("+i.Source.String()+")")
	}
	return s
}

// recordClients picks the interface each client of the record uses from the v0.3 part
// of a card: one dials url with preferredTransport, one resolves the other GRPC entry
// (additionalInterfaces; in a union card it may be de-duplicated onto its
// supportedInterfaces twin), one uses JSON-RPC.
func recordClients(c *card.Card) []struct {
	name  string
	iface card.Interface
	found bool
} {
	out := []struct {
		name  string
		iface card.Interface
		found bool
	}{
		{name: "honours preferredTransport at url"},
		{name: "resolves the GRPC entry of additionalInterfaces"},
		{name: "ignores the hint and uses JSON-RPC"},
	}
	out[0].iface, out[0].found = c.Primary()
	for _, i := range c.Interfaces {
		if i.Source != card.SourcePrimary && i.Binding == a2a.TransportProtocolGRPC && i.ProtocolVersion == card.V03 && !out[1].found {
			out[1].iface, out[1].found = i, true
		}
		if i.Binding == a2a.TransportProtocolJSONRPC && i.ProtocolVersion == card.V03 && !out[2].found {
			out[2].iface, out[2].found = i, true
		}
	}
	return out
}

// clientsStep has the record's three clients call the card's agent with a real a2a-go
// client each, and names each call's real cause from results, the card's probe.
func clientsStep(ctx context.Context, name, title string, c *card.Card, results []probe.Result, expected string, want []bool) Step {
	s := Step{Name: name, Title: title, Expected: expected, OK: true}
	for n, rc := range recordClients(c) {
		call := Call{Client: rc.name, Interface: rc.iface}
		if !rc.found {
			call.Error = "the card declares no such interface"
			call.Outcome = wire.NoInterface
		} else {
			call.OK, call.Error = sendWithSDK(ctx, rc.iface)
			r := resultFor(ctx, results, rc.iface)
			call.Outcome, call.Detail, call.Probe = r.Outcome, r.Detail, r
		}
		s.OK = s.OK && call.OK == want[n]
		s.Calls = append(s.Calls, call)
	}
	return s
}

// resultFor returns the probe result of iface from results, probing it only when the
// card's de-duplicated list does not hold it.
func resultFor(ctx context.Context, results []probe.Result, iface card.Interface) probe.Result {
	for _, r := range results {
		if r.Interface.Key() == iface.Key() {
			return r
		}
	}
	return probe.Interface(ctx, iface, probe.WithTimeout(callTimeout))
}

// sdkOptions give an a2a-go client every transport it has, both protocol versions,
// with plaintext gRPC: each record client is then limited only by the interface it chose.
var sdkOptions = []a2aclient.FactoryOption{
	a2agrpc.WithGRPCTransport(grpc.WithTransportCredentials(insecure.NewCredentials())),
	a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{}),
	a2av0.WithRESTTransport(a2av0.RESTTransportConfig{}),
	a2agrpcv0.WithGRPCTransport(grpc.WithTransportCredentials(insecure.NewCredentials())),
}

// sendWithSDK sends one message on one interface with a real a2a-go v2.3.1 client. A
// gRPC URL written with an http(s):// scheme is dialled at its host:port, as the Python
// SDK and the TCK do (Go's grpc.NewClient would reject it before sending a byte), so
// the record's first client reaches the socket the card names.
func sendWithSDK(ctx context.Context, i card.Interface) (bool, string) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	binding, _ := addr.CanonicalBinding(i.Binding)
	url := i.URL
	if binding == a2a.TransportProtocolGRPC {
		url = strings.TrimPrefix(strings.TrimPrefix(url, "http://"), "https://")
	}
	client, err := a2aclient.NewFromEndpoints(ctx, []*a2a.AgentInterface{{
		URL: url, ProtocolBinding: binding, ProtocolVersion: a2a.ProtocolVersion(i.ProtocolVersion), Tenant: i.Tenant,
	}}, sdkOptions...)
	if err != nil {
		return false, err.Error()
	}
	defer client.Destroy()
	res, err := client.SendMessage(ctx, &a2a.SendMessageRequest{
		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hello from the demo")),
	})
	if err != nil {
		return false, err.Error()
	}
	if t, ok := res.(*a2a.Task); ok && t.Status.State != a2a.TaskStateCompleted {
		return false, "task ended " + string(t.Status.State)
	}
	return true, ""
}

func probeStep(rep probe.Report) Step {
	s := Step{
		Name:     StepProbe,
		Title:    "a2abind probe opens every declared interface and names the real causes",
		Expected: "preferred-not-served and interface-not-served, and the clients that honour the hint are predicted to fail",
	}
	codes := map[string]bool{}
	for _, f := range rep.Findings {
		if f.Severity == card.SeverityError {
			codes[f.Code] = true
			s.Notes = append(s.Notes, f.Code+": "+f.Message)
		}
	}
	failing := 0
	for _, ci := range rep.Clients {
		if !ci.OK {
			failing++
		}
	}
	s.Notes = append(s.Notes, fmt.Sprintf("%d of %d client profiles fail on this card", failing, len(rep.Clients)))
	s.OK = codes[card.CodePreferredNotServed] && codes[card.CodeInterfaceNotServed] && failing > 0 && !rep.OK()
	return s
}

func delegateStep(ctx context.Context, c *card.Card) Step {
	s := Step{
		Name:     StepDelegate,
		Title:    "a2abind's delegate falls back safely and remembers what works",
		Expected: "the first call succeeds after exactly one failed attempt, the second with none",
	}
	cli, err := delegate.NewFromCard(c, delegate.WithCache(delegate.NewCache()), delegate.WithPlaintextGRPC(),
		delegate.WithAttemptTimeout(callTimeout))
	if err != nil {
		s.Notes = append(s.Notes, "delegate: "+err.Error())
		return s
	}
	defer cli.Close()
	failedBefore := []int{}
	for n := 1; n <= 2; n++ {
		var tr delegate.Trace
		cctx, cancel := context.WithTimeout(delegate.WithTrace(ctx, &tr), 2*callTimeout)
		_, err := cli.SendMessage(cctx, &a2a.SendMessageRequest{
			Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(fmt.Sprintf("delegated call %d", n))),
		})
		cancel()
		attempts := tr.Attempts()
		var de *delegate.Error
		if errors.As(err, &de) {
			attempts = de.Attempts
		}
		s.Attempts = append(s.Attempts, attempts)
		if err != nil {
			s.Notes = append(s.Notes, fmt.Sprintf("call %d failed: %v", n, err))
			return s
		}
		failedBefore = append(failedBefore, len(attempts)-1)
	}
	s.Notes = append(s.Notes, fmt.Sprintf("failed attempts before delivery: %d on the first call, %d on the second (the interface that worked is remembered)",
		failedBefore[0], failedBefore[1]))
	s.OK = len(failedBefore) == 2 && failedBefore[0] == 1 && failedBefore[1] == 0
	return s
}

// refuseStep hands the guarded server the seed's card, pointed at the guarded server's
// own sockets: GRPC preferred at the JSON-RPC url, JSON-RPC there, GRPC on its gRPC port.
func refuseStep() Step {
	s := Step{
		Name:     StepGuardedRefuse,
		Title:    "The guarded server refuses to publish the seed's card",
		Expected: "startup fails with a BindingError naming GRPC declared at the JSON-RPC url",
	}
	httpLis, err1 := net.Listen("tcp", "127.0.0.1:0")
	grpcLis, err2 := net.Listen("tcp", "127.0.0.1:0")
	if err := errors.Join(err1, err2); err != nil {
		s.Notes = append(s.Notes, "listen: "+err.Error())
		closeAll(httpLis, grpcLis)
		return s
	}
	url := "http://" + httpLis.Addr().String() + server.PathJSONRPCV03
	seedCard := lab.V03Card("seed-agent", url, lab.GRPC,
		lab.Decl{URL: url, Binding: lab.JSONRPC},
		lab.Decl{URL: grpcLis.Addr().String(), Binding: lab.GRPC})
	raw, err := json.Marshal(seedCard)
	if err != nil {
		closeAll(httpLis, grpcLis)
		s.Notes = append(s.Notes, err.Error())
		return s
	}
	srv, err := server.New(lab.Echo{}, server.WithListeners(httpLis, grpcLis), server.WithV03(), server.WithCardJSON(raw))
	if err == nil {
		s.Notes = append(s.Notes, "the guarded server accepted the seed's card")
		_ = srv.Shutdown(context.Background())
		return s
	}
	closeAll(httpLis, grpcLis) // New releases them on failure; closing twice is harmless
	var be *server.BindingError
	s.OK = errors.Is(err, server.ErrCardMismatch) && errors.As(err, &be) &&
		be.Interface.Binding == a2a.TransportProtocolGRPC && be.Interface.URL == url
	s.Notes = append(s.Notes, strings.Split(err.Error(), "\n")...)
	return s
}

func closeAll(ls ...net.Listener) {
	for _, l := range ls {
		if l != nil {
			_ = l.Close()
		}
	}
}

// correctedStep serves the card the guarded server derives from its own bindings and
// replays the record's three clients and a probe against it.
func correctedStep(ctx context.Context) (Step, error) {
	srv, err := server.New(lab.Echo{}, server.WithGRPCAddr("127.0.0.1:0"), server.WithV03(),
		server.WithAgentInfo("seed-agent", "The seed agent, served by a2abind's guarded server", "1.0.1", lab.EchoSkill))
	if err != nil {
		return Step{}, fmt.Errorf("start the guarded server: %w", err)
	}
	defer func() { _ = srv.Shutdown(context.Background()) }()
	if err := srv.Start(ctx); err != nil {
		return Step{}, fmt.Errorf("start the guarded server: %w", err)
	}
	c, err := card.Fetch(ctx, srv.CardURL())
	if err != nil {
		return Step{}, fmt.Errorf("fetch the corrected card: %w", err)
	}
	results := probe.Card(ctx, c, probe.WithTimeout(callTimeout))
	s := clientsStep(ctx, StepCorrected, "The guarded server publishes a card derived from what it serves; the same three clients call it", c, results,
		"all three clients succeed and probe finds every interface served", []bool{true, true, true})
	rep := probe.Diagnose(c, results)
	s.Notes = append(s.Notes, fmt.Sprintf("card %s declares %d interfaces; probe: %s", srv.CardURL(), len(c.Interfaces), verdict(rep)))
	s.OK = s.OK && rep.OK()
	return s, nil
}

func verdict(rep probe.Report) string {
	if rep.OK() {
		return "no error finding"
	}
	var codes []string
	for _, f := range rep.Findings {
		if f.Severity == card.SeverityError {
			codes = append(codes, f.Code)
		}
	}
	return "errors: " + strings.Join(codes, ", ")
}
