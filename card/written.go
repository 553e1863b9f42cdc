package card

import (
	"encoding/json"
	"sync"
)

// Written is what a parsed card's document says as written, presence kept (a nil
// pointer or list: the member is absent), for lint's rules about the document itself.
type Written struct {
	// Name, Description and Version are the card's own members.
	Name, Description, Version *string
	// URL, PreferredTransport and ProtocolVersion are the v0.3 members.
	URL, PreferredTransport, ProtocolVersion *string
	// V03 says any v0.3 interface member is present (url, preferredTransport,
	// additionalInterfaces).
	V03 bool
	// SupportedVersions has one entry per supportedInterfaces entry: its protocolVersion
	// (nil when absent or the entry is null); nil when supportedInterfaces is absent.
	SupportedVersions []*string
	// Capabilities, DefaultInputModes, DefaultOutputModes and Skills are the members as read.
	Capabilities                          map[string]json.RawMessage
	DefaultInputModes, DefaultOutputModes []string
	Skills                                []json.RawMessage
	// NullFields lists the list and object members written as null.
	NullFields []string
}

// Written returns what the document says as written; nil for a Card built by hand.
func (c *Card) Written() *Written {
	if c == nil || c.doc == nil {
		return nil
	}
	d := c.doc
	w := &Written{Name: d.Name, Description: d.Description, Version: d.Version,
		URL: d.URL, PreferredTransport: d.PreferredTransport, ProtocolVersion: d.ProtocolVersion,
		V03: d.hasV03(), Capabilities: d.Capabilities, DefaultInputModes: d.DefaultInputModes,
		DefaultOutputModes: d.DefaultOutputModes, Skills: d.Skills, NullFields: d.NullFields}
	if d.SupportedIfaces != nil {
		w.SupportedVersions = make([]*string, 0, len(*d.SupportedIfaces))
		for _, ri := range *d.SupportedIfaces {
			var v *string
			if ri != nil {
				v = ri.ProtocolVersion
			}
			w.SupportedVersions = append(w.SupportedVersions, v)
		}
	}
	return w
}

// lintMemo is the one lint result of a parsed card, shared by its copies (see LintMemo).
type lintMemo struct {
	mu   sync.Mutex
	done bool
	key  any
	val  any
}

// LintMemo returns f's result, computed once per parsed card and key (lint keys it by
// what is known of the card's signatures, so that verification makes it run again):
// every caller gets that one value. For a Card built by hand f runs on every call.
func (c *Card) LintMemo(key any, f func() any) any {
	m := c.lintMemo
	if m == nil {
		return f()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.done || m.key != key {
		m.val, m.key, m.done = f(), key, true
	}
	return m.val
}
