package guard

import (
	"encoding/json"
	"fmt"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/probe"
)

// Card members that state a capability.
const (
	fieldCapabilities = "capabilities"
	fieldV03Extended  = "supportsAuthenticatedExtendedCard" // v0.3's extended-card flag, top level
)

// CapabilityChange is one capability flag the normalizer set to what is served.
type CapabilityChange struct {
	// Capability is the capability.
	Capability probe.Capability
	// Member is the JSON path written ("capabilities.streaming",
	// "supportsAuthenticatedExtendedCard").
	Member string
	// Declared is the value written: false for a claim that is not served, true for a
	// capability served but not declared.
	Declared bool
}

// capabilityMembers are the members that state capability k in a card of shape s: the
// v1.0 and v0.3 capabilities object for streaming and push notifications; for the
// extended card capabilities.extendedAgentCard (v1.0) and supportsAuthenticatedExtendedCard
// (v0.3), both in a union card. Each is (object, member): object "" is the top level.
func capabilityMembers(k probe.Capability, s card.Shape) [][2]string {
	if k != probe.ExtendedAgentCard {
		return [][2]string{{fieldCapabilities, string(k)}}
	}
	var out [][2]string
	if s != card.ShapeV03 {
		out = append(out, [2]string{fieldCapabilities, string(k)})
	}
	if s == card.ShapeV03 || s == card.ShapeUnion {
		out = append(out, [2]string{"", fieldV03Extended})
	}
	return out
}

// capabilities sets each capability flag whose check is definite (served or not_served)
// and disagrees with the card to what is served: a claim that is not served becomes false
// wherever it is stated true, and a capability served but not declared becomes true in
// every member its shape reads. A check that could not tell (unknown) changes nothing.
func (n *normalizer) capabilities(c *card.Card, caps []probe.CapabilityResult) error {
	for _, cr := range caps {
		var want bool
		switch cr.Verdict {
		case probe.CapabilityServed:
			want = true
		case probe.CapabilityNotServed:
		default:
			continue
		}
		if cr.Declared() == want {
			continue
		}
		for _, m := range capabilityMembers(cr.Name, c.Shape) {
			changed, err := n.setFlag(m[0], m[1], want)
			if err != nil {
				return err
			}
			if changed {
				path := m[1]
				if m[0] != "" {
					path = m[0] + "." + path
				}
				n.capChanges = append(n.capChanges, CapabilityChange{Capability: cr.Name, Member: path, Declared: want})
			}
		}
	}
	return nil
}

// setFlag writes a boolean member (in the top-level object named parent, or at the top
// level when parent is ""). Writing false touches only a member stated true (absent is
// false already); writing true creates the member, and the object, when absent. It
// reports whether the document changed.
func (n *normalizer) setFlag(parent, member string, v bool) (bool, error) {
	value := json.RawMessage("false")
	if v {
		value = json.RawMessage("true")
	}
	if parent == "" {
		if !v && !isTrue(n.obj.Get(member)) {
			return false, nil
		}
		n.obj = n.obj.Set(member, value)
		return true, nil
	}
	obj := card.Object{}
	if raw, ok := n.obj.Get(parent); ok && string(raw) != "null" {
		var err error
		if obj, err = card.DecodeObject(raw); err != nil {
			return false, fmt.Errorf("normalize: %s: %w", parent, err)
		}
	}
	if !v && !isTrue(obj.Get(member)) {
		return false, nil
	}
	obj = obj.Set(member, value)
	enc, err := obj.Encode()
	if err != nil {
		return false, fmt.Errorf("normalize: %s: %w", parent, err)
	}
	n.obj = n.obj.Set(parent, enc)
	return true, nil
}

// isTrue reports a member that is the JSON literal true.
func isTrue(raw json.RawMessage, ok bool) bool {
	var b bool
	return ok && json.Unmarshal(raw, &b) == nil && b
}

// verifyCapabilities checks that the rewritten card claims what the normalizer wrote, as
// package card reads it.
func verifyCapabilities(c *card.Card, changes []CapabilityChange) error {
	for _, ch := range changes {
		if got := ch.Capability.Claim(c).Declared; got != ch.Declared {
			return fmt.Errorf("normalize: the rewritten card reads %s as %v after %s was set to %v", ch.Capability, got, ch.Member, ch.Declared)
		}
	}
	return nil
}
