package guard

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/probe"
)

// Card document fields the normalizer rewrites.
const (
	fieldSupported  = "supportedInterfaces"
	fieldURL        = "url"
	fieldPreferred  = "preferredTransport"
	fieldAdditional = "additionalInterfaces"
	fieldSignatures = "signatures"
)

// ErrNothingServed is wrapped by Normalize's error when no declared interface is served:
// there is no truthful card to publish.
var ErrNothingServed = errors.New("no declared interface is served")

// ambiguous returns the findings for c's stray members (named like a field but not
// exactly): clients read such a card differently, so strict mode withholds it and
// --normalize publishes it without them.
func ambiguous(c *card.Card) []card.Finding {
	var out []card.Finding
	for _, e := range c.ReadIssues() {
		out = append(out, e.Finding())
	}
	return out
}

// errInconsistent marks a normalized document that still names an interface that is not
// served (a card the normalizer cannot read the way package card does).
var errInconsistent = errors.New("the normalized card still declares an interface that is not served")

// Normalized is what Normalize did to a card.
type Normalized struct {
	// Document is the card to publish: the upstream document itself when nothing had to
	// change, else the rewritten one.
	Document []byte
	// Changed reports whether Document differs from the upstream document.
	Changed bool
	// Removed are the declared entries left out because they are not served, in
	// document order.
	Removed []card.Interface
	// Preferred is the new preferred entry when the upstream one was not served.
	Preferred *card.Interface
	// StrayMembers are the JSON paths of the members removed because they are named
	// like a card field but not exactly (card.Card.ReadIssues).
	StrayMembers []string
	// Capabilities are the capability flags set to what is served, in
	// probe.AllCapabilities order.
	Capabilities []CapabilityChange
	// SignaturesDropped counts the signatures removed: a rewritten card no longer
	// matches them, and a signed card is never altered silently.
	SignaturesDropped int
}

// Normalize rewrites c's document so that it declares only what results (probe.Card of
// c) found served, with a served preferred entry:
//   - v1.0: supportedInterfaces keeps its served entries, in order; the first one left
//     is the preferred entry;
//   - v0.3: url + preferredTransport stay when served, else they become the first served
//     additionalInterfaces entry at the same url, else the first served one;
//     additionalInterfaces keeps its served entries;
//   - a union card is both; a part with nothing served is removed.
//
// An interface counts as served exactly when probe.Diagnose raises no
// interface-not-served finding for it (served, or auth_required). With capability
// results (probe.Check), each capability flag whose check is definite is set to what is
// served (see CapabilityChange). Every other field survives untouched; signatures are
// dropped when anything changed. When nothing has to change the upstream document is
// returned as it is. The result is parsed again and checked before it is returned. The
// error wraps ErrNothingServed when nothing is served.
func Normalize(c *card.Card, results []probe.Result, caps ...probe.CapabilityResult) (Normalized, error) {
	return normalize(c, results, caps, probe.Diagnose(c, results, caps...).Findings)
}

// normalize is Normalize with the card's findings already computed (probe.Diagnose of c,
// results and caps), so that a round diagnoses a card once.
func normalize(c *card.Card, results []probe.Result, caps []probe.CapabilityResult, findings []card.Finding) (Normalized, error) {
	doc := c.Document()
	if doc == nil {
		return Normalized{}, errors.New("normalize: the card has no JSON document (not read by card.Parse or card.Load)")
	}
	var stray []string
	if len(c.ReadIssues()) > 0 {
		var err error
		if doc, stray, err = card.WithoutStrayMembers(doc); err != nil {
			return Normalized{}, fmt.Errorf("normalize: %w", err)
		}
	}
	obj, err := card.DecodeObject(doc)
	if err != nil {
		return Normalized{}, fmt.Errorf("normalize: %w", err)
	}
	n := normalizer{obj: obj, served: servedKeys(findings, results), declared: map[string]card.Interface{}}
	for _, i := range c.Declared() {
		n.declared[i.Source.String()] = i
	}
	v1Left, err := n.v1()
	if err != nil {
		return Normalized{}, err
	}
	v03Left, err := n.v03(c)
	if err != nil {
		return Normalized{}, err
	}
	if err := n.capabilities(c, caps); err != nil { // capability.go
		return Normalized{}, err
	}
	out := Normalized{Document: c.Document(), Removed: n.removed, Preferred: n.preferred, StrayMembers: stray, Capabilities: n.capChanges}
	if !v1Left && !v03Left {
		return out, fmt.Errorf("%w: %s", ErrNothingServed, listInterfaces(n.removed))
	}
	if len(n.removed) == 0 && len(stray) == 0 && len(n.capChanges) == 0 {
		return out, nil
	}
	out.SignaturesDropped = n.dropSignatures()
	if out.Document, err = n.obj.Encode(); err != nil {
		return Normalized{}, fmt.Errorf("normalize: %w", err)
	}
	out.Changed = true
	if err := verify(out.Document, n.served, n.capChanges); err != nil {
		return Normalized{}, err
	}
	return out, nil
}

type normalizer struct {
	obj        card.Object
	served     map[string]bool           // Interface.Key() of the served interfaces
	declared   map[string]card.Interface // by Source
	removed    []card.Interface
	preferred  *card.Interface
	capChanges []CapabilityChange
}

// servedKeys are the keys of the results probe.Diagnose's findings do not call "not
// served".
func servedKeys(findings []card.Finding, results []probe.Result) map[string]bool {
	failed := map[string]bool{}
	for _, f := range findings {
		if f.Code == card.CodeInterfaceNotServed {
			failed[f.Interface] = true
		}
	}
	out := map[string]bool{}
	for _, r := range results {
		if !failed[r.Interface.Source.String()] {
			out[r.Interface.Key()] = true
		}
	}
	return out
}

func (n *normalizer) isServed(i card.Interface) bool { return n.served[i.Key()] }

// entries reads a list field as raw entries; absent or null is (nil, false).
func (n *normalizer) entries(field string) ([]json.RawMessage, bool, error) {
	raw, ok := n.obj.Get(field)
	if !ok {
		return nil, false, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, false, fmt.Errorf("normalize: %s: %w", field, err)
	}
	return list, true, nil
}

// keep filters the entries of a list field to the served ones; it returns them and
// whether the field is present.
func (n *normalizer) keep(field string) ([]json.RawMessage, []card.Interface, bool, error) {
	list, present, err := n.entries(field)
	if err != nil || !present {
		return nil, nil, present, err
	}
	var kept []json.RawMessage
	var ifaces []card.Interface
	for i, e := range list {
		iface, ok := n.declared[field+"["+strconv.Itoa(i)+"]"]
		if ok && n.isServed(iface) {
			kept = append(kept, e)
			ifaces = append(ifaces, iface)
			continue
		}
		n.removed = append(n.removed, iface)
	}
	return kept, ifaces, true, nil
}

// v1 filters supportedInterfaces; it reports whether any served entry is left.
func (n *normalizer) v1() (bool, error) {
	kept, ifaces, present, err := n.keep(fieldSupported)
	if err != nil || !present {
		return false, err
	}
	if len(ifaces) > 0 && ifaces[0].Source != card.Supported(0) {
		p := ifaces[0]
		n.preferred = &p
	}
	if len(kept) == 0 {
		n.obj = n.obj.Without(fieldSupported, false)
		return false, nil
	}
	n.obj = n.obj.Set(fieldSupported, marshalList(kept))
	return true, nil
}

// v03 fixes url + preferredTransport and filters additionalInterfaces; it reports
// whether a served primary is left.
func (n *normalizer) v03(c *card.Card) (bool, error) {
	primary, hasPrimary := c.Primary()
	kept, ifaces, present, err := n.keep(fieldAdditional)
	if err != nil {
		return false, err
	}
	if !hasPrimary {
		if present {
			n.obj = n.obj.Set(fieldAdditional, marshalList(kept))
		}
		return len(kept) > 0, nil
	}
	newPrimary, found := primary, n.isServed(primary)
	if !found {
		n.removed = append(n.removed, primary)
		for _, pick := range []func(card.Interface) bool{
			func(i card.Interface) bool { return i.URL == primary.URL },
			func(card.Interface) bool { return true },
		} {
			for _, i := range ifaces {
				if !found && pick(i) {
					newPrimary, found = i, true
				}
			}
		}
	}
	if !found {
		// Nothing of the v0.3 part is served: remove it (v1.0 clients read supportedInterfaces).
		for _, f := range []string{fieldURL, fieldPreferred, fieldAdditional} {
			n.obj = n.obj.Without(f, false)
		}
		return false, nil
	}
	if newPrimary.Key() != primary.Key() {
		p := newPrimary
		p.Source, p.Preferred = card.SourcePrimary, true
		n.preferred = &p
		n.obj = n.obj.Set(fieldURL, card.JSONString(newPrimary.URL))
		n.obj = n.obj.Set(fieldPreferred, card.JSONString(string(newPrimary.Binding)))
	}
	if present { // a new primary comes from this list, so the list still names it
		n.obj = n.obj.Set(fieldAdditional, marshalList(kept))
	}
	return true, nil
}

// dropSignatures removes the signatures (every case spelling: encoding/json, and so
// a2a-go's verifier, reads "Signatures" too) and returns how many there were.
func (n *normalizer) dropSignatures() int {
	count := 0
	for _, m := range n.obj {
		if strings.EqualFold(m.Key, fieldSignatures) {
			var list []json.RawMessage
			if json.Unmarshal(m.Value, &list) == nil {
				count += len(list)
			} else if string(m.Value) != "null" {
				count++
			}
		}
	}
	n.obj = n.obj.Without(fieldSignatures, true)
	return count
}

func marshalList(list []json.RawMessage) json.RawMessage {
	if list == nil {
		list = []json.RawMessage{}
	}
	b, _ := json.Marshal(list) // raw messages from a valid document always marshal
	return b
}

// verify parses the normalized document the way clients of package card do and checks
// that every interface and preferred entry it declares is served, and that it claims
// the capabilities as changed.
func verify(doc []byte, served map[string]bool, caps []CapabilityChange) error {
	c, err := card.Parse(doc)
	if err != nil {
		return fmt.Errorf("normalize: the rewritten card does not parse: %w", err)
	}
	for _, i := range c.Declared() {
		if !served[i.Key()] {
			return fmt.Errorf("%w: %s (%s)", errInconsistent, i, i.Source)
		}
	}
	return verifyCapabilities(c, caps)
}

func listInterfaces(is []card.Interface) string {
	parts := make([]string, 0, len(is))
	for _, i := range is {
		parts = append(parts, i.String()+" ("+i.Source.String()+")")
	}
	if len(parts) == 0 {
		return "the card declares no interface"
	}
	return "not served: " + strings.Join(parts, ", ")
}
