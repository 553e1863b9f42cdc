package guard_test

import (
	"errors"
	"testing"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/guard"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

// FuzzNormalize: for any card document, any choice of served interfaces and any
// capability verdicts (the mask's top six bits, two per capability: unknown, served,
// not_served), Normalize never panics, and a card it returns declares only served
// interfaces (as package card reads it), claims each capability with a definite verdict
// as served, and keeps its name; when it changes nothing it returns the document as is.
func FuzzNormalize(f *testing.F) {
	for _, seed := range []string{
		`{"name":"seed","protocolVersion":"0.3.0","url":"http://h:1","preferredTransport":"GRPC","additionalInterfaces":[{"url":"http://h:1","transport":"JSONRPC"},{"url":"h:2","transport":"GRPC"}]}`,
		`{"name":"v1","supportedInterfaces":[{"url":"http://h:1","protocolBinding":"GRPC","protocolVersion":"1.0"},{"url":"http://h:1","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"signatures":[{"protected":"a","signature":"b"}]}`,
		`{"name":"u","url":"http://h:1/v03","supportedInterfaces":[{"url":"http://h:1/v1","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"additionalInterfaces":[null,{"url":"h:2"}]}`,
		`{"name":"dup","url":"a","url":"b","supportedInterfaces":[],"supportedInterfaces":[{"url":"c","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`,
		`{"name":"x","supportedInterfaces":null,"additionalInterfaces":{}}`,
		`{"name":"c","capabilities":{"streaming":true,"pushNotifications":"yes","Streaming":false},"supportedInterfaces":[{"url":"http://h:1","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`,
		`{"name":"c3","protocolVersion":"0.3.0","url":"http://h:1","capabilities":null,"supportsAuthenticatedExtendedCard":true}`,
		`{"name":"cu","url":"http://h:1","capabilities":[],"supportsAuthenticatedExtendedCard":false,"supportedInterfaces":[{"url":"http://h:1","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`,
	} {
		f.Add([]byte(seed), uint64(0b10))
		f.Add([]byte(seed), uint64(0xffff))
		f.Add([]byte(seed), uint64(0b011001<<58|0xffff))
		f.Add([]byte(seed), uint64(0b100110<<58|0xffff))
	}
	f.Fuzz(func(t *testing.T, doc []byte, mask uint64) {
		c, err := card.Parse(doc)
		if err != nil {
			return
		}
		outcome := func(i card.Interface) wire.Outcome {
			for n, iface := range c.Interfaces {
				if iface.Key() == i.Key() && mask&(1<<(n%64)) != 0 {
					return wire.Served
				}
			}
			return wire.Refused
		}
		verdicts := []probe.Served{probe.CapabilityUnknown, probe.CapabilityServed, probe.CapabilityNotServed, probe.CapabilityUnknown}
		var caps []probe.CapabilityResult
		for n, k := range probe.AllCapabilities() {
			caps = append(caps, probe.CapabilityResult{Name: k, Claim: k.Claim(c), Verdict: verdicts[mask>>(58+2*n)&3]})
		}
		nz, err := guard.Normalize(c, results(c, outcome), caps...)
		if err != nil {
			if errors.Is(err, guard.ErrNothingServed) && nz.Document != nil && len(nz.Removed) == 0 && len(c.Interfaces) > 0 {
				t.Fatalf("nothing served, yet nothing removed: %v", err)
			}
			return
		}
		if !nz.Changed {
			if string(nz.Document) != string(c.Document()) {
				t.Fatal("unchanged, yet the document differs")
			}
			return
		}
		out, err := card.Parse(nz.Document)
		if err != nil {
			t.Fatalf("normalized card does not parse: %v\n%s", err, nz.Document)
		}
		if out.Name != c.Name {
			t.Fatalf("name %q became %q", c.Name, out.Name)
		}
		for _, i := range out.Declared() {
			if outcome(i) != wire.Served {
				t.Fatalf("normalized card declares %s (%s), which is not served\n%s", i, i.Source, nz.Document)
			}
		}
		for _, cr := range caps {
			if cr.Verdict != probe.CapabilityUnknown && cr.Name.Claim(out).Declared != (cr.Verdict == probe.CapabilityServed) {
				t.Fatalf("normalized card claims %s = %v, but it is %s\n%s", cr.Name, cr.Name.Claim(out).Declared, cr.Verdict, nz.Document)
			}
		}
	})
}

// FuzzParseMapping: any flag value is parsed or refused with ErrMapping, never a panic,
// and a parsed mapping reads back to itself.
func FuzzParseMapping(f *testing.F) {
	for _, s := range []string{"https://agent.example.com=http://127.0.0.1:8080", "agent.example.com:443=127.0.0.1:9090",
		"[::1]:1=[::1]:2", "http://x=https://y:1", "=", "a=b=c", "unix:///x=http://h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := guard.ParseMapping(s)
		if err != nil {
			if !errors.Is(err, guard.ErrMapping) {
				t.Fatalf("error %v does not wrap ErrMapping", err)
			}
			return
		}
		again, err := guard.ParseMapping(m.String())
		if err != nil || again.String() != m.String() {
			t.Fatalf("%q parsed to %s, which reads back as %s, %v", s, m, again, err)
		}
	})
}
