package lint

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// --- binding rules ---

func (l *linter) fieldCase() []hit {
	var out []hit
	for _, e := range l.c.ReadIssues() {
		f := e.Finding()
		iface := ""
		if end := strings.IndexByte(e.Path, ']'); end > 0 && strings.HasSuffix(e.Path[:strings.IndexByte(e.Path, '[')], "Interfaces") {
			iface = e.Path[:end+1]
		}
		out = append(out, hit{iface: iface, message: f.Message, fix: f.Fix})
	}
	return out
}

func (l *linter) bindingMissing() []hit {
	var out []hit
	for _, i := range l.declared {
		if i.Binding == "" {
			field := "protocolBinding"
			if i.Source.List == card.ListAdditional {
				field = "transport"
			}
			out = append(out, hit{iface: i.Source.String(), message: fmt.Sprintf("%s at %s has no %s", i.Source, displayURL(i.URL), field)})
		}
	}
	return out
}

func (l *linter) bindingCase() []hit {
	var out []hit
	for _, i := range l.declared {
		c, ok := addr.CanonicalBinding(i.Binding)
		if !ok || c == i.Binding || !l.bindingDeclared(i) {
			continue
		}
		out = append(out, hit{iface: i.Source.String(),
			message: fmt.Sprintf("%s names binding %q; the canonical spelling is %q, and a2a-go compares bindings case-sensitively, so Go clients skip this interface",
				bindingField(i), string(i.Binding), string(c)),
			fix: fmt.Sprintf("write %q instead of %q", string(c), string(i.Binding))})
	}
	return out
}

// bindingAliases maps spellings seen in the wild to the core binding they mean.
var bindingAliases = map[string]a2a.TransportProtocol{
	"JSON-RPC": a2a.TransportProtocolJSONRPC, "JSON_RPC": a2a.TransportProtocolJSONRPC, "JSONRPC2": a2a.TransportProtocolJSONRPC,
	"REST": a2a.TransportProtocolHTTPJSON, "HTTP": a2a.TransportProtocolHTTPJSON, "HTTP_JSON": a2a.TransportProtocolHTTPJSON,
	"HTTPJSON": a2a.TransportProtocolHTTPJSON, "HTTP-JSON": a2a.TransportProtocolHTTPJSON, "JSON": a2a.TransportProtocolHTTPJSON,
	"GRPC-WEB": a2a.TransportProtocolGRPC, "GRPCS": a2a.TransportProtocolGRPC,
}

func (l *linter) bindingUnknown() []hit {
	var out []hit
	for _, i := range l.declared {
		if _, core := addr.CanonicalBinding(i.Binding); core || i.Binding == "" || isCustomURI(i.Binding) {
			continue
		}
		fix := ""
		if alias, ok := bindingAliases[strings.ToUpper(strings.TrimSpace(string(i.Binding)))]; ok {
			fix = fmt.Sprintf("write %q instead of %q", string(alias), string(i.Binding))
		}
		out = append(out, hit{iface: i.Source.String(), fix: fix,
			message: fmt.Sprintf("%s names binding %q, which is not JSONRPC, GRPC or HTTP+JSON, nor a custom binding URI; no client will select it",
				bindingField(i), string(i.Binding))})
	}
	return out
}

func (l *linter) bindingCustom() []hit {
	var out []hit
	for _, i := range l.declared {
		if _, core := addr.CanonicalBinding(i.Binding); core || !isCustomURI(i.Binding) {
			continue
		}
		out = append(out, hit{iface: i.Source.String(),
			message: fmt.Sprintf("%s declares the custom binding %q at %s; clients that do not implement it skip this interface",
				i.Source, string(i.Binding), displayURL(i.URL))})
	}
	return out
}

// --- protocol version rules ---

var versionPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9]+\.[0-9]+(\.[0-9]+)?$`) })

// versionFields lists every protocolVersion written in the document with where it is.
type versionField struct {
	where string // "supportedInterfaces[i]" or "the card" (the v0.3 top-level field)
	raw   *string
	v1    bool
}

func (l *linter) versionFields() []versionField {
	var out []versionField
	if l.hand {
		for _, i := range l.declared {
			v := i.ProtocolVersion
			out = append(out, versionField{where: i.Source.String(), raw: &v, v1: true})
		}
		return out
	}
	for i, raw := range l.doc.SupportedVersions {
		out = append(out, versionField{where: card.Supported(i).String(), raw: raw, v1: true})
	}
	if l.doc.V03 && l.doc.ProtocolVersion != nil {
		out = append(out, versionField{where: "the card", raw: l.doc.ProtocolVersion})
	}
	return out
}

func (f versionField) iface() string {
	if f.v1 {
		return f.where
	}
	return ""
}

func (l *linter) versionMissing() []hit {
	var out []hit
	for _, f := range l.versions {
		if f.v1 && strings.TrimSpace(val(f.raw)) == "" {
			what := "no protocolVersion"
			if f.raw != nil {
				what = "an empty protocolVersion"
			}
			out = append(out, hit{iface: f.where,
				message: fmt.Sprintf("%s has %s: a2a-go drops the interface (\"no compatible transports found\") and other clients guess", f.where, what)})
		}
	}
	return out
}

func (l *linter) versionMalformed() []hit {
	var out []hit
	for _, f := range l.versions {
		raw := strings.TrimSpace(val(f.raw))
		if raw == "" || versionPattern().MatchString(raw) && raw == val(f.raw) {
			continue
		}
		out = append(out, hit{iface: f.iface(),
			message: fmt.Sprintf("%s declares protocolVersion %q, which is not a Major.Minor version; clients match versions as numbers and skip it", f.where, val(f.raw)),
			fix:     fmt.Sprintf("write %q", suggestVersion(val(f.raw)))})
	}
	return out
}

func (l *linter) versionThreePart() []hit {
	var out []hit
	for _, f := range l.versions {
		raw := val(f.raw)
		if !f.v1 || !versionPattern().MatchString(raw) || strings.Count(raw, ".") != 2 {
			continue
		}
		out = append(out, hit{iface: f.where,
			message: fmt.Sprintf("%s declares protocolVersion %q; A2A 1.0 identifies versions by Major.Minor and patch numbers SHOULD NOT appear in cards", f.where, raw),
			fix:     fmt.Sprintf("write %q", card.NormalizeVersion(raw))})
	}
	return out
}

func (l *linter) versionUnsupported() []hit {
	var out []hit
	for _, f := range l.versions {
		raw := val(f.raw)
		if !versionPattern().MatchString(raw) {
			continue
		}
		if v := card.NormalizeVersion(raw); v == card.V1 || v == card.V03 {
			continue
		}
		out = append(out, hit{iface: f.iface(),
			message: fmt.Sprintf("%s declares protocolVersion %q: a2abind and the current SDKs speak 1.0 and 0.3 only, so clients select no interface for it", f.where, raw)})
	}
	return out
}
