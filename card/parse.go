package card

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// DefaultMaxBytes bounds the size of a card document read from any source.
const DefaultMaxBytes = 1 << 20

// ErrMalformed is wrapped by every error about a document that is not a readable card.
var ErrMalformed = errors.New("malformed agent card")

// document is the raw JSON of a card, with presence kept for lint. Only the fields
// a2abind reads are typed; everything else is ignored, as the spec asks. Pointers and
// raw messages keep "absent" apart from "empty".
type document struct {
	Name               *string                    `json:"name"`
	Description        *string                    `json:"description"`
	Version            *string                    `json:"version"`
	SupportedIfaces    *[]*rawV1Interface         `json:"supportedInterfaces"`
	URL                *string                    `json:"url"`
	PreferredTransport *string                    `json:"preferredTransport"`
	ProtocolVersion    *string                    `json:"protocolVersion"`
	AdditionalIfaces   []*rawV03Interface         `json:"additionalInterfaces"`
	SecuritySchemes    map[string]json.RawMessage `json:"securitySchemes"`
	Capabilities       map[string]json.RawMessage `json:"capabilities"`
	DefaultInputModes  []string                   `json:"defaultInputModes"`
	DefaultOutputModes []string                   `json:"defaultOutputModes"`
	Skills             []json.RawMessage          `json:"skills"`
	// SupportsExtendedCard is v0.3's supportsAuthenticatedExtendedCard.
	SupportsExtendedCard json.RawMessage `json:"supportsAuthenticatedExtendedCard"`

	// strays are the members named like a known field but not exactly (exact.go).
	strays []*ReadError
	// tree is the document as read, the parts the card schema describes.
	tree *jsonNode
	// signatures is the raw value of the exact "signatures" member, nil when absent.
	signatures json.RawMessage
	// sigOnce parses signatures once (cardSignatures).
	sigOnce sync.Once
	sigList []SignatureEntry
	sigOK   bool
	// NullFields lists the top-level list and object fields written as null, in
	// nullableFields order. They are read as empty, as the proto3 JSON mapping says.
	NullFields []string `json:"-"`

	// raw is the document as read (a leading BOM dropped), for Card.Document.
	raw []byte
	// bom: the document started with a UTF-8 BOM, which a2a-go refuses (Card.Refused).
	bom bool
}

// nullableFields are the card's list and object fields: the proto3 JSON mapping reads
// null there as the empty value, and so does a2abind (a2a-go v2.3.1's CLI publishes
// "skills": null).
var nullableFields = []string{"supportedInterfaces", "additionalInterfaces", "capabilities",
	"securitySchemes", "defaultInputModes", "defaultOutputModes", "skills"}

// interfaceFields are the keys that make a document a card even without a name: the
// v1.0 and the v0.3 ways of declaring interfaces.
var interfaceFields = []string{"supportedInterfaces", "url", "preferredTransport", "additionalInterfaces"}

// ErrNotACard is wrapped (with ErrMalformed) by the error for a JSON object that is no
// AgentCard at all: it has no name and no interface field of either card shape.
var ErrNotACard = errors.New("not an AgentCard")

type rawV1Interface struct {
	URL             *string `json:"url"`
	ProtocolBinding *string `json:"protocolBinding"`
	ProtocolVersion *string `json:"protocolVersion"`
	Tenant          string  `json:"tenant"`
}

type rawV03Interface struct {
	URL       *string `json:"url"`
	Transport *string `json:"transport"`
}

// Parse reads a card document. It accepts v1.0, v0.3 and union cards, ignores unknown
// fields, and reports malformed input with the line and column where it went wrong.
// Errors wrap ErrMalformed.
func Parse(data []byte) (*Card, error) {
	return parse(data, DefaultMaxBytes)
}

// utf8BOM is read at the start of a document (some editors and servers add it), and
// reported: a2a-go refuses it (Card.Refused).
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

func parse(data []byte, maxBytes int64) (*Card, error) {
	if int64(len(data)) > maxBytes {
		return nil, fmt.Errorf("%w: document is %d bytes, over the %d-byte limit", ErrMalformed, len(data), maxBytes)
	}
	bom := bytes.HasPrefix(data, utf8BOM)
	data = bytes.TrimPrefix(data, utf8BOM)
	if bom && bytes.HasPrefix(data, utf8BOM) && !bytes.HasPrefix(data[3:], utf8BOM) { // refused.go
		return nil, fmt.Errorf("%w: %w", ErrMalformed, &ReadError{Code: CodeDocumentRefused, form: formBOMs})
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("%w: document is empty", ErrMalformed)
	}
	if trimmed[0] != '{' {
		return nil, fmt.Errorf("%w: expected a JSON object, document starts with %q", ErrMalformed, preview(trimmed))
	}
	doc, err := readDocument(data)
	if err != nil {
		return nil, err
	}
	tree := doc.tree
	if doc.Name == nil && !slices.ContainsFunc(interfaceFields, func(f string) bool { _, ok := tree.member(f); return ok }) {
		return nil, fmt.Errorf("%w: %w: %s", ErrMalformed, ErrNotACard, lookedLike(data, tree))
	}
	for _, f := range nullableFields {
		if v, ok := tree.member(f); ok && v.kind == 'n' {
			doc.NullFields = append(doc.NullFields, f)
		}
	}
	if v, ok := tree.member("signatures"); ok {
		doc.signatures = json.RawMessage(data[v.start:v.end])
	}
	doc.raw, doc.bom = data, bom
	return fromDocument(doc), nil
}

// lookedLike describes a JSON object that is not a card: its keys, and a guess at what
// it is when the keys give it away.
func lookedLike(data []byte, top *jsonNode) string {
	obj := map[string]json.RawMessage{}
	for _, m := range top.members {
		obj[m.name] = json.RawMessage(data[m.value.start:m.value.end])
	}
	if len(obj) == 0 {
		return "an empty JSON object {} (no name, no supportedInterfaces, no url)"
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	guess := ""
	switch {
	case obj["jsonrpc"] != nil:
		guess = " (a JSON-RPC message: is this an interface URL rather than the card URL?)"
	case obj["error"] != nil || obj["code"] != nil && obj["message"] != nil:
		guess = " (an error answer)"
	case obj["status"] != nil || obj["health"] != nil:
		guess = " (a health or status answer)"
	}
	const shown = 8
	more := ""
	if len(keys) > shown {
		more = fmt.Sprintf(" and %d more", len(keys)-shown)
		keys = keys[:shown]
	}
	quoted := make([]string, len(keys))
	for i, k := range keys {
		quoted[i] = strconv.Quote(preview([]byte(k)))
	}
	return fmt.Sprintf("a JSON object with keys %s%s, but no name, no supportedInterfaces and no url%s",
		strings.Join(quoted, ", "), more, guess)
}

func fromDocument(doc *document) *Card {
	c := &Card{doc: doc, Name: str(doc.Name), Version: str(doc.Version), Capabilities: doc.capabilities(), lintMemo: &lintMemo{}}
	c.declared = make([]Interface, 0, len(doc.supported())+1+len(doc.AdditionalIfaces))
	hasV03 := doc.hasV03()
	switch {
	case doc.hasV1() && hasV03:
		c.Shape = ShapeUnion
	case doc.hasV1():
		c.Shape = ShapeV1
	case hasV03:
		c.Shape = ShapeV03
	default:
		c.Shape = ShapeNone
	}

	for i, ri := range doc.supported() {
		if ri == nil {
			ri = &rawV1Interface{}
		}
		c.declared = append(c.declared, Interface{
			URL:             str(ri.URL),
			Binding:         a2a.TransportProtocol(str(ri.ProtocolBinding)),
			ProtocolVersion: NormalizeVersion(str(ri.ProtocolVersion)),
			Tenant:          ri.Tenant,
			Source:          Supported(i),
			Preferred:       i == 0,
		})
	}
	if hasV03 {
		version := NormalizeVersion(str(doc.ProtocolVersion))
		if version == "" {
			version = V03
		}
		if doc.URL != nil {
			binding := str(doc.PreferredTransport)
			if binding == "" {
				binding = string(a2a.TransportProtocolJSONRPC) // the v0.3 default
			}
			c.declared = append(c.declared, Interface{
				URL: *doc.URL, Binding: a2a.TransportProtocol(binding), ProtocolVersion: version,
				Source: SourcePrimary, Preferred: true,
			})
		}
		for i, ri := range doc.AdditionalIfaces {
			if ri == nil {
				ri = &rawV03Interface{}
			}
			c.declared = append(c.declared, Interface{
				URL: str(ri.URL), Binding: a2a.TransportProtocol(str(ri.Transport)), ProtocolVersion: version,
				Source: Additional(i),
			})
		}
	}

	seen := make(map[InterfaceID]int, len(c.declared))
	if len(c.declared) == 0 {
		c.declared = nil // none declared: as a hand-built card with no interfaces
	} else {
		c.Interfaces = make([]Interface, 0, len(c.declared))
	}
	for _, iface := range c.declared {
		if at, dup := seen[iface.ID()]; dup {
			c.Interfaces[at].Preferred = c.Interfaces[at].Preferred || iface.Preferred
			continue
		}
		seen[iface.ID()] = len(c.Interfaces)
		c.Interfaces = append(c.Interfaces, iface)
	}

	for name := range doc.SecuritySchemes {
		c.SecuritySchemes = append(c.SecuritySchemes, name)
	}
	sort.Strings(c.SecuritySchemes)
	return c
}

// hasV1 reports whether the document carries supportedInterfaces (even an empty list).
func (d *document) hasV1() bool { return d.SupportedIfaces != nil }

// supported returns the supportedInterfaces entries, nil when absent.
func (d *document) supported() []*rawV1Interface {
	if d.SupportedIfaces == nil {
		return nil
	}
	return *d.SupportedIfaces
}

// hasV03 reports whether the document carries any of the v0.3 interface fields.
func (d *document) hasV03() bool {
	return d.URL != nil || d.PreferredTransport != nil || len(d.AdditionalIfaces) > 0
}

func str(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// position turns a byte offset into a 1-based line and column (columns count bytes).
func position(data []byte, offset int64) (line, col int) {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	if offset < 0 {
		offset = 0
	}
	line, col = 1, 1
	for _, b := range data[:offset] {
		if b == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

func preview(b []byte) string {
	const n = 40
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}
