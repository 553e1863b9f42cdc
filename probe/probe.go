// Package probe opens every interface an AgentCard declares and says, on the wire,
// what is really there: the declared binding and version, another binding or
// version, a server with no A2A handler, nothing at all. Each probe is a lookup of a
// random task id (never a message), so probing is side-effect-free.
//
// There is one file per binding (jsonrpc.go, grpc.go, httpjson.go), each speaking
// A2A 1.0 and 0.3 behind one signature; wire.Classify is the one table that
// turns what a request saw into a wire.Outcome; Diagnose turns a card's results into
// findings and a client-impact table. An Engine (engine*.go) carries the requests:
// keep-alive connections and gRPC channels reused from probe to probe, and caps on the
// requests in flight. Card uses a fresh one per call; a fleet loop or the exporter
// keeps one and calls Engine.Card or Engine.Targets.
//
//	c, _ := card.Load(ctx, "https://agent.example.com")
//	results := probe.Card(ctx, c, probe.WithTimeout(5*time.Second))
//	report := probe.Diagnose(c, results)
package probe

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/wire"
)

// DefaultTimeout is the per-interface budget when WithTimeout is not given.
const DefaultTimeout = 10 * time.Second

// maxBody bounds every answer a probe reads: HTTP bodies (the rest of a longer body is
// not read; the detail says so), gRPC messages and gRPC response headers.
const maxBody = 64 << 10

// maxParallel bounds how many interfaces Card probes at once.
const maxParallel = 8

// Result is what one declared interface really serves.
type Result struct {
	// Interface is the declared interface, as the card says it.
	Interface card.Interface
	// Outcome classifies what the probe found.
	Outcome wire.Outcome
	// ActualBinding is the binding that really answers at the interface's address, when
	// the probe could tell (for a served interface it is the declared binding).
	ActualBinding a2a.TransportProtocol
	// ActualVersion is the protocol version that really answers, when the probe could tell.
	ActualVersion string
	// Detail is the evidence: the requests sent and what came back (HTTP status, content
	// type, JSON-RPC code, gRPC code and message, ErrorInfo reason, TLS mode).
	Detail string
	// Latency is how long the request to the declared binding and version took.
	Latency time.Duration
	// Lookup is what Classify made of the lookup with the declared binding and version,
	// before the probe's own reading of it: what a call there would be judged by. It is
	// Ambiguous where the lookup may have reached a handler without proving the binding
	// (a 5xx, an answer cut or garbled after the request was written), which Outcome
	// reads as malformed or timeout.
	Lookup wire.Outcome
	// CertExpiry is the earliest NotAfter among the TLS certificates the server presented
	// to the request of the declared binding; zero when it did not answer over TLS.
	CertExpiry time.Time
	// Way is how the declared binding and version answered, when Outcome is Served: a
	// client calling the interface that way reaches what the probe reached.
	Way Way
	// Credentials reports that the caller's headers (WithConn) went with the lookup of
	// the declared binding and version; false when none were given or they were withheld.
	Credentials bool
	// Mapping says how the lookup's A2A error answer differs from the specification's
	// error table for its binding (wire.MappingProblem), when Outcome is Served or
	// AuthRequired; "" when it agrees.
	Mapping string
}

// Skipped is how many of c's interfaces Card leaves unprobed under the bound.
func Skipped(c *card.Card, opts ...Option) int {
	if c == nil {
		return 0
	}
	return max(0, len(c.Interfaces)-newOptions(opts).conn.Interfaces())
}

// Card probes the interfaces of c in parallel, as Engine.Card does, on a fresh Engine
// closed before it returns, so no connection outlives the call; Engine.Card probes on
// a long-lived Engine's warm connections.
func Card(ctx context.Context, c *card.Card, opts ...Option) []Result {
	e := NewEngine()
	defer e.Close()
	return e.Card(ctx, c, opts...)
}

// Interface probes one declared interface: it looks up a random task id with the
// declared binding and version and classifies the answer. When the interface is not
// served it probes the same address with the other version and the other bindings, to
// report what is really there (ActualBinding, ActualVersion) and to tell a missing
// handler from a version mismatch. Like Card, it runs on a fresh Engine.
func Interface(ctx context.Context, iface card.Interface, opts ...Option) Result {
	e := NewEngine()
	defer e.Close()
	return e.Interface(ctx, iface, opts...)
}

// run is one interface's probe.
type run struct {
	iface   card.Interface
	binding a2a.TransportProtocol // canonical spelling of the declared binding
	custom  bool                  // the declared binding is not a core binding
	o       *options
	taskID  string
	parsed  *parsedEndpoint // the interface URL read once per card, nil to read it in run
}

func newRun(iface card.Interface, o *options) *run {
	b, ok := addr.CanonicalBinding(iface.Binding)
	return &run{iface: iface, binding: b, custom: !ok, o: o, taskID: randomTaskID()}
}

func (r *run) result(o wire.Outcome, detail string, lat time.Duration) Result {
	return Result{Interface: r.iface, Outcome: o, Detail: detail, Latency: lat}
}

func (r *run) run(ctx context.Context) Result {
	if r.parsed == nil {
		p := readEndpoint(r.iface.URL, r.binding)
		r.parsed = &p
	}
	ep, err := r.parsed.ep, r.parsed.err
	if err != nil {
		return r.result(wire.Unreachable, err.Error(), 0)
	}
	if err := r.admit(ctx, ep); err != nil {
		return r.result(wire.Blocked, "not probed: "+err.Error(), 0)
	}
	if r.custom {
		return r.runCustom(ctx, ep)
	}
	declared, other, known := versions(r.iface.ProtocolVersion)
	first := r.attempt(ctx, ep, r.binding, declared, tlsAuto)
	res := r.result(first.outcome, first.describe(), first.latency)
	res.Lookup = first.classified
	res.ActualBinding = first.answeredBinding()
	res.CertExpiry = first.certExpiry
	res.Credentials = len(r.o.conn.Header) > 0 && r.o.credentialsFor(ep, first.tls)
	if first.outcome.Reached() {
		res.Mapping = wire.MappingProblem(first.ev)
	}
	notes := slices.Clip(r.parsed.notes) // shared with the Engine's other probes: appended to, copied

	switch first.outcome {
	case wire.Served:
		res.ActualBinding, res.ActualVersion = r.binding, declared
		res.Way = first.way()
		if !known {
			notes = append(notes, fmt.Sprintf("no usable protocolVersion declared (%q); %s answers", r.iface.ProtocolVersion, declared))
		}
		if note := mediaTypeNote(r.binding, first.ev); note != "" {
			notes = append(notes, note)
		}
	case wire.AuthRequired:
		notes = append(notes, "credentials are needed to confirm the binding (pass them with --header)")
	case wire.HandlerMissing, wire.VersionMismatch:
		second := r.attempt(ctx, ep, r.binding, other, first.tlsMode())
		switch {
		case second.outcome.Reached():
			if known {
				res.Outcome = wire.VersionMismatch
			} else {
				res.Outcome = second.outcome
			}
			res.ActualBinding, res.ActualVersion = r.binding, other
			res.Detail = joinEvidence(res.Detail, second.describe())
			notes = append(notes, fmt.Sprintf("%s %s is served there, %s %s is not", r.binding, other, r.binding, declared))
		case first.outcome == wire.HandlerMissing && second.outcome == wire.HandlerMissing:
			res.Detail = joinEvidence(res.Detail, second.describe())
			notes = append(notes, fmt.Sprintf("%s answers, but no A2A handler for either protocol version", r.binding))
		default:
			res.Detail = joinEvidence(res.Detail, second.describe())
		}
	case wire.WrongBinding, wire.NotFound, wire.Malformed, wire.TLSMismatch:
		res = r.discover(ctx, ep, first, res)
	}
	if len(notes) > 0 {
		res.Detail += " (" + strings.Join(notes, "; ") + ")"
	}
	return res
}

// admit applies the dial policy to ep, by name and then as resolved, and defaults the
// credentials to those meant for ep's address. An error means nothing may be sent there
// (Blocked).
func (r *run) admit(ctx context.Context, ep endpoint) error {
	if err := r.o.conn.Dial.CheckDial(ctx, ep.addr); err != nil {
		return err
	}
	r.o.addressCredentials(ep.addr)
	return nil
}

// runCustom handles a binding a2abind cannot speak: it reports what the address serves.
func (r *run) runCustom(ctx context.Context, ep endpoint) Result {
	found, ok := r.search(ctx, []endpoint{ep}, tlsAuto, "", "")
	note := fmt.Sprintf("binding %q is not one a2abind can check (JSONRPC, GRPC, HTTP+JSON)", r.iface.Binding)
	if ok {
		res := r.result(wire.WrongBinding, note+"; the address serves "+found.label()+": "+found.describe(), found.latency)
		res.ActualBinding, res.ActualVersion = found.binding, found.version
		return res
	}
	return r.result(wire.Malformed, note+"; no core binding answers there", 0)
}

// discover looks for what the address really serves after the declared binding failed.
func (r *run) discover(ctx context.Context, ep endpoint, first attempt, res Result) Result {
	declared := first.version
	if first.outcome == wire.TLSMismatch {
		// TLS is wrong one way or the other: look with the other mode (or with
		// verification off, for an untrusted certificate) and say what answers.
		if first.certificate() && !r.o.conn.Insecure {
			o := *r.o
			o.conn.Insecure = true
			again := (&run{iface: r.iface, binding: r.binding, o: &o, taskID: r.taskID}).attempt(ctx, ep, r.binding, declared, first.tlsMode())
			if again.outcome == wire.Served {
				res.ActualBinding, res.ActualVersion = r.binding, declared
				res.Detail += fmt.Sprintf("; with certificate verification off %s is served (trust the CA or pass --insecure)", again.label())
			}
			return res
		}
		found, ok := r.search(ctx, []endpoint{ep}, first.tlsMode().flip(), "", "")
		if ok {
			res.ActualBinding, res.ActualVersion = found.binding, found.version
			res.Detail += fmt.Sprintf("; over %s the address serves %s: %s", found.tlsMode().String(), found.label(), found.describe())
		}
		return res
	}
	if first.outcome == wire.Malformed && ep.explicitTLS() {
		// An answer that fits nothing may be TLS spoken to plaintext or the reverse.
		flipped := r.attempt(ctx, ep, r.binding, declared, first.tlsMode().flip())
		if flipped.outcome.Reached() {
			res.Outcome = wire.TLSMismatch
			res.ActualBinding, res.ActualVersion = r.binding, declared
			res.Detail += fmt.Sprintf("; over %s %s answers: %s", flipped.tlsMode(), flipped.label(), flipped.describe())
			return res
		}
	}
	found, ok := r.search(ctx, []endpoint{ep}, first.tlsMode(), r.binding, declared)
	if !ok {
		// Nothing else answers at the declared URL itself. A binding served at another
		// URL the card declares on the same host and port is worth a note (a swapped or
		// mistyped path), never evidence of what is at this one.
		if sib := ep.siblings(r.o.siblings); len(sib) > 0 && first.outcome != wire.TLSMismatch {
			if at, found := r.search(ctx, sib, first.tlsMode(), "", ""); found {
				res.Detail += fmt.Sprintf("; nothing else answers at this URL, but %s is served at %s on the same host and port", at.label(), at.url)
			}
		}
		return res
	}
	// The declared binding served for another version is version_mismatch (a v0.3
	// HTTP+JSON agent serves its routes under {url}/v1, so nothing answers where 1.0 was
	// asked); anything else is another binding.
	if found.firstTried == first.sent+" -> "+first.seen {
		found.firstTried = "" // the declared lookup, already in the detail
	}
	res.Outcome = wire.WrongBinding
	if found.binding == r.binding {
		res.Outcome = wire.VersionMismatch
	}
	res.ActualBinding, res.ActualVersion = found.binding, found.version
	res.Detail += fmt.Sprintf("; the address serves %s: %s", found.label(), found.describe())
	return res
}

// search probes every (binding, version) except (skipBinding, skipVersion) at eps, in
// parallel, and returns the first served one in a fixed order (JSON-RPC, gRPC,
// HTTP+JSON; 1.0 before 0.3; eps in order). gRPC has no path, so it is tried at the
// first endpoint only.
func (r *run) search(ctx context.Context, eps []endpoint, mode tlsMode, skipBinding a2a.TransportProtocol, skipVersion string) (attempt, bool) {
	type job struct {
		ep      endpoint
		binding a2a.TransportProtocol
		version string
	}
	var jobs []job
	for _, b := range addr.CoreBindings {
		for _, v := range []string{card.V1, card.V03} {
			for i, e := range eps {
				if b == skipBinding && v == skipVersion && i == 0 {
					continue
				}
				if b == a2a.TransportProtocolGRPC && i > 0 {
					continue
				}
				jobs = append(jobs, job{e, b, v})
			}
		}
	}
	got := make([]attempt, len(jobs))
	var wg sync.WaitGroup
	for n, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[n] = r.attempt(ctx, j.ep, j.binding, j.version, mode)
			got[n].url = j.ep.raw
		}()
	}
	wg.Wait()
	for _, a := range got {
		if a.outcome == wire.Served {
			return a, true
		}
	}
	for _, a := range got {
		if a.outcome == wire.AuthRequired {
			return a, true
		}
	}
	return attempt{}, false
}

// attempt runs the prober of one binding.
func (r *run) attempt(ctx context.Context, ep endpoint, b a2a.TransportProtocol, version string, mode tlsMode) attempt {
	req := request{ep: ep, version: version, tenant: r.iface.Tenant, taskID: r.taskID, o: r.o, mode: mode}
	var a attempt
	ctx, span := startCall(ctx, req) // trace.go
	defer func() { endLookup(span, req, a) }()
	start := time.Now()
	if p, ok := probers[b]; ok { // bindings.go
		a = p(ctx, req)
	}
	a.binding, a.version, a.latency = b, version, time.Since(start)
	a.outcome, a.why = wire.Classify(a.ev)
	a.classified = a.outcome
	switch a.outcome {
	case wire.AgentError:
		// An A2A handler answered with an A2A error: it is there, unless it refused the
		// lookup's tenant (then no client following the card gets an answer either).
		if note, refused := tenantRefused(a, req.tenant); refused {
			a.extra = append(a.extra, note)
		} else {
			a.outcome = wire.Served
		}
	case wire.Ambiguous:
		// A lookup has no side effect to fear: the probe reads the evidence as if the
		// request had not been written (a deadline is a timeout, an h2c SETTINGS frame
		// another binding); what stays ambiguous (a 5xx, an answer cut short) is an
		// answer that fits no binding.
		unsent := a.ev
		unsent.Sent = false
		if o, why := wire.Classify(unsent); o == wire.Ambiguous || o.ReachedHandler() {
			a.outcome = wire.Malformed
		} else {
			a.outcome, a.why = o, why
		}
	}
	if ctx.Err() != nil && a.outcome == wire.Malformed && (!a.answered || a.ev.Err != nil) {
		// Nothing answered, or the answer was cut, before the budget ran out.
		a.outcome = wire.Timeout
	}
	return a
}

// request is what a binding prober needs to send its lookup.
type request struct {
	ep      endpoint
	version string
	tenant  string
	taskID  string
	o       *options
	mode    tlsMode
	op      operation // what to send: the task lookup, or a capability's call
}

// operation is what a prober sends. Every one is side-effect-free: it names a random
// task id, or asks for the extended card.
type operation uint8

const (
	opGetTask         operation = iota // GetTask of a random id: the interface lookup
	opSubscribe                        // SubscribeToTask of a random id: streaming
	opListPushConfigs                  // ListTaskPushNotificationConfigs of a random id: push notifications
	opExtendedCard                     // GetExtendedAgentCard: the extended card
)

// attempt is what one binding's probe saw at one address.
type attempt struct {
	binding a2a.TransportProtocol
	version string
	ev      wire.Evidence
	outcome wire.Outcome
	// classified is Classify's outcome, before the probe's reading of it.
	classified wire.Outcome
	why        string
	sent       string // the request, e.g. "POST http://h/a JSON-RPC GetTask"
	seen       string // the answer, e.g. "HTTP 200 application/json, error -32001"
	tls        bool   // the answer came over TLS
	answered   bool   // something answered at the protocol level (status line, gRPC status)
	latency    time.Duration
	extra      []string  // notes from the prober (TLS attempts of a bare host:port, ...)
	prefix     string    // the path under the declared URL the routes answered at ("" or "/v1")
	url        string    // the URL search probed, as declared
	certExpiry time.Time // earliest NotAfter of the certificates of a TLS answer
	// firstTried is the request and answer of a route tried before this one for the same
	// lookup (v0.3 HTTP+JSON: {url}/tasks before {url}/v1/tasks), "" for none.
	firstTried string
}

func (a attempt) describe() string {
	s := a.sent + " -> " + a.seen
	extra := a.extra
	if a.firstTried != "" {
		extra = append(slices.Clip(extra), "first tried "+a.firstTried)
	}
	if len(extra) > 0 {
		s += " [" + strings.Join(extra, "; ") + "]"
	}
	return s
}

func (a attempt) label() string { return string(a.binding) + " " + a.version }

func (a attempt) tlsMode() tlsMode {
	if a.tls {
		return tlsOn
	}
	return tlsOff
}

// certificate reports whether a TLS failure is about the certificate, not the mode.
func (a attempt) certificate() bool { return a.ev.CertificateFailure() }

// answeredBinding is the binding the answer's framing showed, if any.
func (a attempt) answeredBinding() a2a.TransportProtocol {
	switch {
	case a.ev.Framing != "" && a.ev.Framing != wire.Unrecognised:
		return a.ev.Framing
	case a.ev.GRPC && a.answered:
		return a2a.TransportProtocolGRPC
	}
	return ""
}

// versions returns the version to probe first, the other one, and whether the declared
// version is one a2abind speaks.
func versions(declared string) (first, other string, known bool) {
	switch card.NormalizeVersion(declared) {
	case card.V1:
		return card.V1, card.V03, true
	case card.V03:
		return card.V03, card.V1, true
	}
	return card.V1, card.V03, false
}

// taskIDBits is crypto/rand output read ahead for task ids, a system call per 100 ids
// instead of one per lookup.
var taskIDBits struct {
	sync.Mutex
	buf [100 * 12]byte
	n   int // unused bytes at the start of buf
}

// randomTaskID is a task id no agent holds: 96 bits from crypto/rand.
func randomTaskID() string {
	const prefix = "a2abind-probe-"
	var b [12]byte
	taskIDBits.Lock()
	if taskIDBits.n < len(b) {
		_, _ = rand.Read(taskIDBits.buf[:]) // crypto/rand.Read never fails (Go 1.24+)
		taskIDBits.n = len(taskIDBits.buf)
	}
	taskIDBits.n -= len(b)
	copy(b[:], taskIDBits.buf[taskIDBits.n:])
	taskIDBits.Unlock()
	var id [len(prefix) + 2*len(b)]byte
	hex.Encode(id[copy(id[:], prefix):], b[:])
	return string(id[:])
}

// joinEvidence appends a second request's evidence to detail, unless it is word for word
// the evidence already there (two versions' requests can be the same request: HTTP+JSON
// GET /tasks/{id} is one path for 1.0 and 0.3).
func joinEvidence(detail, more string) string {
	if more == "" || detail == more || strings.HasSuffix(detail, "; "+more) {
		return detail
	}
	return detail + "; " + more
}
