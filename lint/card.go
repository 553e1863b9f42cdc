package lint

import (
	"fmt"
	"github.com/a2abind/a2abind/card"
	"slices"
	"strconv"
	"strings"
)

// --- card-level rules ---

func (l *linter) noInterfaces() []hit {
	if len(l.c.Interfaces) > 0 {
		return nil
	}
	msg := "the card declares no interface: no supportedInterfaces entry and no v0.3 url, so no client can reach the agent"
	if l.c.Shape == card.ShapeV1 {
		msg = "supportedInterfaces is empty, so no client can reach the agent (A2A 1.0 requires at least one entry)"
	}
	return []hit{{message: msg}}
}

func (l *linter) requiredFields() []hit {
	if l.hand {
		return nil
	}
	d := l.doc
	var out []hit
	missing := func(field, what string) {
		out = append(out, hit{message: fmt.Sprintf("REQUIRED field %s is %s; %s", field, what, l.missingImpact(field, what)),
			fix: "add " + field + " with a non-empty value"})
	}
	text := func(field string, v *string) {
		switch {
		case v == nil:
			missing(field, "absent")
		case strings.TrimSpace(*v) == "":
			missing(field, "empty")
		}
	}
	list := func(field string, n int, present bool) {
		switch {
		case !present:
			missing(field, "absent")
		case n == 0:
			missing(field, "empty (REQUIRED arrays need at least one element)")
		}
	}
	text("name", d.Name)
	text("description", d.Description)
	text("version", d.Version)
	// A null list or object is reported once, by field-null, not here as well.
	null := func(field string) bool { return slices.Contains(d.NullFields, field) }
	if d.Capabilities == nil && !null("capabilities") {
		missing("capabilities", "absent")
	}
	for _, f := range []struct {
		name string
		n    int
	}{
		{"defaultInputModes", len(d.DefaultInputModes)},
		{"defaultOutputModes", len(d.DefaultOutputModes)},
		{"skills", len(d.Skills)},
	} {
		if !null(f.name) {
			list(f.name, f.n, f.n > 0 || presentList(d, f.name))
		}
	}
	if l.c.Shape == card.ShapeV03 {
		if d.URL == nil {
			missing("url", "absent (a v0.3 card names its primary endpoint in url)")
		}
		if d.ProtocolVersion == nil {
			missing("protocolVersion", "absent (a v0.3 card states its protocol version, e.g. \"0.3.0\")")
		}
	}
	return out
}

// missingImpact says which clients a missing REQUIRED field leaves unaffected and which
// fail, from the SDKs' card readers: a2a-go v2.3.1 and v2.4.0 decode the card without
// checking it, a2a-js 1.3.0 (protobuf fromJSON) and 0.3.14 read absent lists as empty;
// only a2a-js 1.3.0's legacyCompat reader of v0.3 cards (requireArray, requireObject)
// refuses an absent or null capabilities or list, and a v0.3 client that dials url has
// no address without it.
func (l *linter) missingImpact(field, what string) string {
	const unaffected = "a2a-go (v2.3.1, v2.4.0) and a2a-js (0.3.14, 1.3.0) clients use the agent without it"
	switch {
	case l.c.Shape == card.ShapeV03 && field == "url":
		return "v0.3 clients that dial url (the v03-preferred-transport profile) find no address, " +
			"while a2a-go's v0.3 reader uses additionalInterfaces"
	case l.c.Shape == card.ShapeV03 && what == "absent" && (field == "capabilities" || field == "defaultInputModes" || field == "defaultOutputModes" || field == "skills"):
		return unaffected + ", but a2a-js 1.3.0 with legacyCompat refuses the v0.3 card (\"agentCard." + field + " is required\")"
	}
	return unaffected + " (a spec-only deviation)"
}

// presentList reports whether a REQUIRED list field of the document is present (even empty).
func presentList(d *card.Written, field string) bool {
	switch field {
	case "defaultInputModes":
		return d.DefaultInputModes != nil
	case "defaultOutputModes":
		return d.DefaultOutputModes != nil
	default:
		return d.Skills != nil
	}
}

// nullFixes are field-null's fixes for the fields whose remedy is not "leave it out".
var nullFixes = map[string]string{
	"defaultInputModes":  `list at least one media type in defaultInputModes (REQUIRED), e.g. ["text/plain"]`,
	"defaultOutputModes": `list at least one media type in defaultOutputModes (REQUIRED), e.g. ["text/plain"]`,
	"skills":             "describe at least one skill in skills (REQUIRED)",
	"capabilities":       `write capabilities as an object (REQUIRED), e.g. {"streaming": true}`,
}

// nullFields reports each list or object field written as null.
func (l *linter) nullFields() []hit {
	var out []hit
	for _, f := range l.doc.NullFields {
		fix, ok := nullFixes[f]
		if !ok {
			fix = "write " + f + " as a list or object, or leave it out"
		}
		out = append(out, hit{fix: fix, message: f + " is null; a2abind reads it as empty, as the proto3 JSON mapping does, " +
			"and so do a2a-go (v2.3.1, v2.4.0) and a2a-js 1.3.0's default clients, which use the agent; " +
			"readers that validate the card against the A2A schema (a2a-js 1.3.0 with legacyCompat, for a v0.3 card) may reject it"})
	}
	return out
}

func (l *linter) supportedMissing() []hit {
	if l.c.Shape != card.ShapeV03 {
		return nil
	}
	return []hit{{message: "the card has only the v0.3 fields (url, preferredTransport, additionalInterfaces) and no supportedInterfaces: " +
		"v1.0 clients using the a2a-go or a2a-js default resolver find no interface, and a2a-java 1.x rejects the card; " +
		"v0.3 clients (a2a-js 0.3.14, a2a-go's a2av0 reader, a2a-python) are unaffected"}}
}

// --- v0.3 primary rules ---

func (l *linter) preferredURLMismatch() []hit {
	var out []hit
	// v1.0: the first supportedInterfaces entry is the preferred one.
	var v1 []card.Interface
	for _, i := range l.declared {
		if i.Source.List == card.ListSupported {
			v1 = append(v1, i)
		}
	}
	if len(v1) > 0 {
		if h, ok := l.mismatch(v1[0], v1[1:], "the preference"); ok {
			out = append(out, h)
		}
	}
	// v0.3: url + preferredTransport against additionalInterfaces. Only a written
	// preferredTransport is a hint; the JSONRPC default is preferred-transport-missing's concern.
	d := l.doc
	if l.hand || d.URL == nil || val(d.PreferredTransport) == "" {
		return out
	}
	var primary card.Interface
	var others []card.Interface
	for _, i := range l.declared {
		switch {
		case i.Source == card.SourcePrimary:
			primary = i
		case i.Source.List == card.ListAdditional:
			others = append(others, i)
		}
	}
	if h, ok := l.mismatch(primary, others, "the hint"); ok {
		out = append(out, h)
	}
	return out
}

// mismatch reports the seed pattern: others declare the preferred interface's binding
// only at other addresses, and (for the message) another binding at its address.
func (l *linter) mismatch(pref card.Interface, others []card.Interface, what string) (hit, bool) {
	prefKey, ok := l.addressKey(pref)
	b := canonical(pref.Binding)
	if !ok || b == "" {
		return hit{}, false
	}
	var elsewhere, atURL []card.Interface
	for _, o := range others {
		k, ok := l.addressKey(o)
		if !ok {
			continue
		}
		switch {
		case canonical(o.Binding) == b && k == prefKey:
			return hit{}, false // the preferred binding is declared at that address too: consistent
		case canonical(o.Binding) == b:
			elsewhere = append(elsewhere, o)
		case k == prefKey && o.Binding != "":
			atURL = append(atURL, o)
		}
	}
	// A v1.0 card may declare one binding at several addresses; it is the seed pattern
	// only when the preferred address is also claimed for another binding.
	if len(elsewhere) == 0 || (pref.Source != card.SourcePrimary && len(atURL) == 0) {
		return hit{}, false
	}
	field := "preferredTransport " + strconv.Quote(string(pref.Binding))
	if pref.Source != card.SourcePrimary {
		field = fmt.Sprintf("%s, the preferred entry, declares %s", pref.Source, b)
	}
	var msg string
	if pref.Source == card.SourcePrimary {
		msg = fmt.Sprintf("%s names the binding %s declares at %s, but url is %s", field,
			elsewhere[0].Source, elsewhere[0].URL, pref.URL)
		if len(atURL) > 0 {
			msg += fmt.Sprintf(", where %s declares %s", atURL[0].Source, canonical(atURL[0].Binding))
		}
	} else {
		msg = fmt.Sprintf("%s at %s, where %s declares %s, while %s declares %s at %s", field, pref.URL,
			atURL[0].Source, canonical(atURL[0].Binding), elsewhere[0].Source, b, elsewhere[0].URL)
	}
	msg += fmt.Sprintf("; clients that honour %s dial %s at %s, the wrong socket", what, b, pref.URL)
	fix := fmt.Sprintf("declare %s at the address where it is served (%s)", b, elsewhere[0].URL)
	if len(atURL) > 0 {
		if pref.Source == card.SourcePrimary {
			fix = fmt.Sprintf("set preferredTransport to %q (the binding declared at url), or set url to the %s address %s",
				string(canonical(atURL[0].Binding)), b, elsewhere[0].URL)
		} else {
			fix = fmt.Sprintf("move %s first, or drop %s: %s is served at %s",
				atURL[0].Source, pref.Source, b, elsewhere[0].URL)
		}
	}
	return hit{iface: pref.Source.String(), message: msg, fix: fix}, true
}

func (l *linter) preferredMissing() []hit {
	d := l.doc
	if l.hand || d.URL == nil || val(d.PreferredTransport) != "" {
		return nil
	}
	what := "absent"
	if d.PreferredTransport != nil {
		what = "empty"
	}
	return []hit{{iface: card.SourcePrimary.String(), message: fmt.Sprintf("preferredTransport is %s: v0.3 readers assume JSONRPC at url %s, "+
		"but A2A 0.3 §5.6.1 requires the field and a2a-go drops a primary interface whose preferredTransport is empty", what, *d.URL)}}
}

// documentRefused reports the card's Refused error.
func (l *linter) documentRefused() []hit {
	if e := l.c.Refused(); e != nil {
		return []hit{{message: e.Error(), fix: e.Finding().Fix}}
	}
	return nil
}
