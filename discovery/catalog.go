package discovery

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"strings"

	"github.com/a2abind/a2abind/card"
)

// Media types of catalog entries and documents.
const (
	// TypeAgentCard is an entry that is an A2A agent (its card at url, or inline in data).
	TypeAgentCard = "application/a2a-agent-card+json"
	// TypeAICatalog is an entry (or a document) that is an AI Catalog.
	TypeAICatalog = "application/ai-catalog+json"
	// TypeLinkset is an RFC 9727 API catalog (an RFC 9264 linkset).
	TypeLinkset = "application/linkset+json"
)

// DefaultMaxEntries bounds the entries (AI Catalog entries, linkset links) one
// document may hold, and the agents one discovery gives, nested catalogs included.
const DefaultMaxEntries = 10_000

// ErrCatalog is wrapped by the error of a document that is no catalog a2abind reads.
var ErrCatalog = errors.New("not a readable catalog")

// Entry is one entry of a catalog document: an AI Catalog entry, or one link of an
// RFC 9727 linkset.
type Entry struct {
	// Identifier names the entry (an AI Catalog's identifier; a linkset context's
	// anchor, else the link's href).
	Identifier string
	// DisplayName is an AI Catalog entry's displayName, or a link's title.
	DisplayName string
	// Type is the entry's media type, lower case, without parameters ("" if none).
	Type string
	// URL is where the entry is (as written: not resolved, not checked).
	URL string
	// Data is an AI Catalog entry's inline document (an agent card), or nil.
	Data json.RawMessage
	// Relation is a linkset link's relation type ("item", "service-desc", ...).
	Relation string
}

// Document is a parsed catalog.
type Document struct {
	// Type is TypeAICatalog or TypeLinkset.
	Type    string
	Entries []Entry
}

// Parse reads a catalog document: an AI Catalog ({"specVersion", "entries"}) or an
// RFC 9727 linkset ({"linkset"}), told apart by the member the document has (by
// contentType only when it has both). More than maxEntries entries
// (DefaultMaxEntries when 0 or less) is an error, as are repeated or case-variant
// member names.
func Parse(data []byte, contentType string, maxEntries int) (Document, error) {
	if maxEntries <= 0 {
		maxEntries = DefaultMaxEntries
	}
	obj, err := decode(data, "catalog") // once: the readers below pick from it
	if err != nil {
		return Document{}, fmt.Errorf("%w: %w", ErrCatalog, err)
	}
	top, err := pick(obj, "catalog", "entries", "linkset")
	if err != nil {
		return Document{}, fmt.Errorf("%w: %w", ErrCatalog, err)
	}
	_, entries := top["entries"]
	_, links := top["linkset"]
	kind := mediaType(contentType)
	switch {
	case entries && !links:
		kind = TypeAICatalog
	case links && !entries:
		kind = TypeLinkset
	case !entries && !links || kind != TypeAICatalog && kind != TypeLinkset:
		return Document{}, fmt.Errorf("%w: want an AI Catalog (\"entries\") or an RFC 9727 linkset (\"linkset\")", ErrCatalog)
	}
	var list []Entry
	if kind == TypeAICatalog {
		list, err = parseAICatalog(obj, maxEntries)
	} else {
		list, err = parseLinkset(obj, maxEntries)
	}
	if err != nil {
		return Document{}, fmt.Errorf("%w: %w", ErrCatalog, err)
	}
	return Document{Type: kind, Entries: list}, nil
}

// parseAICatalog reads {"specVersion": "1.0", "entries": [{"identifier",
// "displayName", "type", "url" | "data"}]}. specVersion may be absent; a major
// version other than 1 is an error.
func parseAICatalog(doc card.Object, maxEntries int) ([]Entry, error) {
	top, err := pick(doc, "AI Catalog", "specVersion", "entries")
	if err != nil {
		return nil, err
	}
	v, err := str(top, "specVersion", "AI Catalog")
	if err != nil {
		return nil, err
	}
	if v != "" && v != "1" && !strings.HasPrefix(v, "1.") {
		return nil, fmt.Errorf("AI Catalog specVersion %q: a2abind reads version 1", v)
	}
	raws, err := array(top, "entries", "AI Catalog", maxEntries)
	if err != nil {
		return nil, err
	}
	entries := make([]Entry, 0, len(raws))
	for n, raw := range raws {
		what := fmt.Sprintf("AI Catalog entry %d", n)
		m, err := members(raw, what, "identifier", "displayName", "type", "url", "data")
		if err != nil {
			return nil, err
		}
		var e Entry
		if err := strs(m, what, "identifier", &e.Identifier, "displayName", &e.DisplayName, "type", &e.Type, "url", &e.URL); err != nil {
			return nil, err
		}
		e.Type = mediaType(e.Type)
		if d, ok := m["data"]; ok && string(d) != "null" {
			e.Data = bytes.Clone(d)
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// parseLinkset reads an RFC 9264 linkset in JSON: {"linkset": [{"anchor": URL,
// RELATION: [{"href", "type", "title"}, ...], ...}]}. Every link is an entry.
func parseLinkset(doc card.Object, maxEntries int) ([]Entry, error) {
	top, err := pick(doc, "linkset document", "linkset")
	if err != nil {
		return nil, err
	}
	contexts, err := array(top, "linkset", "linkset document", maxEntries)
	if err != nil {
		return nil, err
	}
	var entries []Entry
	for n, raw := range contexts {
		what := fmt.Sprintf("linkset context %d", n)
		ctxObj, err := decode(raw, what)
		if err != nil {
			return nil, err
		}
		m, err := pick(ctxObj, what, "anchor")
		if err != nil {
			return nil, err
		}
		anchor, err := str(m, "anchor", what)
		if err != nil {
			return nil, err
		}
		rels, err := relations(ctxObj, what)
		if err != nil {
			return nil, err
		}
		for _, rel := range rels {
			targets, err := arrayValue(rel.value, rel.name, what, maxEntries)
			if err != nil {
				return nil, err
			}
			for k, t := range targets {
				lwhat := fmt.Sprintf("%s %q link %d", what, rel.name, k)
				m, err := members(t, lwhat, "href", "type", "title")
				if err != nil {
					return nil, err
				}
				e := Entry{Relation: rel.name, Identifier: anchor}
				if err := strs(m, lwhat, "href", &e.URL, "type", &e.Type, "title", &e.DisplayName); err != nil {
					return nil, err
				}
				e.Type = mediaType(e.Type)
				if e.Identifier == "" {
					e.Identifier = e.URL
				}
				if len(entries) == maxEntries {
					return nil, fmt.Errorf("the linkset has more than %d links", maxEntries)
				}
				entries = append(entries, e)
			}
		}
	}
	return entries, nil
}

type relation struct {
	name  string
	value json.RawMessage
}

// relations are a linkset context's members other than anchor, in document order; a
// relation repeated (in any case: relation types compare case-insensitively) is an
// error.
func relations(obj card.Object, what string) ([]relation, error) {
	seen := map[string]bool{}
	var out []relation
	for _, mb := range obj {
		name := strings.ToLower(mb.Key)
		if name == "anchor" {
			continue
		}
		if seen[name] {
			return nil, fmt.Errorf("%s: relation %q appears twice", what, mb.Key)
		}
		seen[name] = true
		out = append(out, relation{name: name, value: mb.Value})
	}
	return out, nil
}

// mediaType is the media type of a Content-Type or an entry's type, lower case,
// without parameters; "" when it does not parse.
func mediaType(s string) string {
	if s == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(s)
	if err != nil {
		return ""
	}
	return mt
}
