package cli

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lint"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/signature"
	"github.com/a2abind/a2abind/wire"
)

// probeOutput is the `probe -o json` document; its field names are a stable contract.
type probeOutput struct {
	Target     string               `json:"target"`
	OK         bool                 `json:"ok"`
	Interfaces []probeInterface     `json:"interfaces"`
	Findings   []probeFinding       `json:"findings"`
	Clients    []probe.ClientImpact `json:"clients"`
	// Capabilities are the card's capability claims as the wire shows them.
	Capabilities []probeCapability `json:"capabilities"`
	Error        string            `json:"error,omitempty"`
}

// probeCapability is one capability in `probe -o json`: the claim, the verdict and,
// per interface asked (one per declared binding), the outcome and evidence.
type probeCapability struct {
	Name       probe.Capability   `json:"name"`
	Declared   bool               `json:"declared"`
	Verdict    probe.Served       `json:"verdict"`
	Interfaces []capabilityOnWire `json:"interfaces"`
}

type capabilityOnWire struct {
	interfaceJSON
	Outcome   probe.Served `json:"outcome"`
	Detail    string       `json:"detail"`
	LatencyMs float64      `json:"latencyMs"`
}

type probeInterface struct {
	interfaceJSON
	Outcome       wire.Outcome          `json:"outcome"`
	ActualBinding a2a.TransportProtocol `json:"actualBinding,omitempty"`
	Detail        string                `json:"detail"`
	LatencyMs     float64               `json:"latencyMs"`
}

// interfaceJSON names an interface in `probe -o json`, the same way in "interfaces" and
// in "capabilities" (embedded first, so its members lead each object).
type interfaceJSON struct {
	URL             string                `json:"url"`
	Binding         a2a.TransportProtocol `json:"binding"`
	ProtocolVersion string                `json:"protocolVersion"`
	Source          string                `json:"source"`
}

func newInterfaceJSON(i card.Interface) interfaceJSON {
	return interfaceJSON{URL: i.URL, Binding: i.Binding, ProtocolVersion: i.ProtocolVersion, Source: i.Source.String()}
}

// probeFinding is a finding in `probe -o json`: what the text report prints, the fix
// and the interface concerned included.
type probeFinding struct {
	Code      string        `json:"code"`
	Severity  card.Severity `json:"severity"`
	Message   string        `json:"message"`
	Fix       string        `json:"fix,omitempty"`
	Interface string        `json:"interface,omitempty"`
}

// probeRun probes one target (or, with --targets or --catalog, every target of a file or
// a catalog) and prints the report.
func probeRun(parent context.Context, opts *probeOptions) error {
	g := opts.g
	cardOpts, probeOpts, err := opts.connection()
	if err != nil {
		return err
	}
	if opts.Targets != "" || opts.Catalog != "" {
		return runTargets(parent, opts, cardOpts, probeOpts)
	}
	if g.timeout > 0 {
		probeOpts = append(probeOpts, probe.WithTimeout(g.timeout))
	}
	e := probe.NewEngine()
	defer e.Close()
	cardOpts = append(cardOpts, card.WithHTTPClient(e.HTTPClient(probeOpts...)))

	ctx, cancel := g.context(parent)
	defer cancel()
	ctx, span := probe.StartTarget(ctx, opts.Target)
	var chk probe.CardCheck
	hc := hintContext{command: "probe", target: opts.Target, headers: len(opts.Conn.Headers) > 0, tlsFlags: true}
	c, err := loadCard(ctx, g, cardLoad{hint: hc, timeoutSet: opts.TimeoutSet, opts: cardOpts, failed: func(err error) any {
		return probeOutput{Target: opts.Target, Interfaces: []probeInterface{}, Findings: []probeFinding{},
			Clients: []probe.ClientImpact{}, Capabilities: []probeCapability{}, Error: err.Error()}
	}})
	defer func() { span.End(c, chk.Results, err) }()
	if err != nil {
		return err
	}
	if err := opts.Sig.check(ctx, c); err != nil {
		return fail(ExitUsage, err)
	}
	dial := c
	if opts.Sig.require {
		dial, _ = signature.Of(c).Dialable(c) // nil when no signature covers an interface
	}
	if dial == nil {
		fmt.Fprintln(g.stderr, "note: no interface probed: no card signature verifies and covers the interfaces (--require-signature)")
	} else {
		if n := len(c.Interfaces) - len(dial.Interfaces); n > 0 {
			fmt.Fprintf(g.stderr, "note: probed only the %d interfaces the card's signatures cover; %d not covered, not probed (--require-signature)\n", len(dial.Interfaces), n)
		}
		chk = e.Check(ctx, dial, probeOpts...)
		if n := probe.Skipped(dial, probeOpts...); n > 0 {
			fmt.Fprintf(g.stderr, "note: probed the first %d of %d interfaces; %d not probed (raise --max-interfaces)\n", len(chk.Results), len(dial.Interfaces), n)
		}
	}
	rep := chk.Report(c)
	if opts.Sig.require {
		rep.Findings = lint.RequireSignature(c, rep.Findings)
	}
	switch {
	case g.json():
		if err := g.writeJSON(probeJSON(opts.Target, chk, rep)); err != nil {
			return fail(ExitUsage, err)
		}
	case opts.Summary:
		writeProbeSummary(g, opts.Target, c, chk, rep)
	default:
		writeProbe(g, opts.Target, c, chk, rep)
	}
	if !rep.OK() {
		return fail(ExitFailed, nil)
	}
	return nil
}

// connection turns the connection flags into card and probe options (one addr.Conn).
func (opts *probeOptions) connection() ([]card.Option, []probe.Option, error) {
	conn, err := opts.Conn.conn(opts.g, opts.Target, opts.Catalog)
	if err != nil {
		return nil, nil, fail(ExitUsage, err)
	}
	return []card.Option{card.WithConn(conn)}, []probe.Option{probe.WithConn(conn), probe.WithCapabilities(!opts.NoCapabilities)}, nil
}

func probeJSON(target string, chk probe.CardCheck, rep probe.Report) probeOutput {
	out := probeOutput{Target: target, OK: rep.OK(), Interfaces: make([]probeInterface, 0, len(chk.Results)),
		Findings: make([]probeFinding, 0, len(rep.Findings)), Clients: rep.Clients,
		Capabilities: make([]probeCapability, 0, len(chk.Capabilities))}
	for _, cr := range chk.Capabilities {
		pc := probeCapability{Name: cr.Name, Declared: cr.Declared(), Verdict: cr.Verdict, Interfaces: make([]capabilityOnWire, 0, len(cr.Calls))}
		for _, call := range cr.Calls {
			pc.Interfaces = append(pc.Interfaces, capabilityOnWire{interfaceJSON: newInterfaceJSON(call.Interface),
				Outcome: call.Outcome, Detail: call.Detail, LatencyMs: millis(call.Latency)})
		}
		out.Capabilities = append(out.Capabilities, pc)
	}
	for _, r := range chk.Results {
		out.Interfaces = append(out.Interfaces, probeInterface{interfaceJSON: newInterfaceJSON(r.Interface),
			Outcome: r.Outcome, ActualBinding: r.ActualBinding, Detail: r.Detail, LatencyMs: millis(r.Latency)})
	}
	for _, f := range rep.Findings {
		out.Findings = append(out.Findings, probeFinding{Code: f.Code, Severity: f.Severity, Message: f.Message,
			Fix: f.Fix, Interface: f.Interface})
	}
	if out.Clients == nil {
		out.Clients = []probe.ClientImpact{}
	}
	return out
}

func millis(d time.Duration) float64 {
	return math.Round(float64(d)/float64(time.Millisecond)*100) / 100
}
