package guard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path"
	"strings"

	"github.com/a2abind/a2abind/card"
)

// What a request asks of the guard, before it is proxied (cardRoute).
type cardRoute int

const (
	routeProxy    cardRoute = iota // not a card: proxy it
	routeOwnCard                   // the guarded agent's card, in one of its spellings
	routeForeign                   // a card document at another path: never the upstream's
	routeExtended                  // the extended card (HTTP+JSON, gRPC or JSON-RPC)
)

// maxInspect bounds how much of a request body the guard reads to find a JSON-RPC
// method while the extended card is gated (the server's default request bound).
const maxInspect = 8 << 20

// Suffixes of the paths agents serve card documents at (lower case).
var cardSuffixes = []string{strings.ToLower(card.WellKnownPath), strings.ToLower(card.LegacyWellKnownPath)}

// Methods that answer the extended card, lower case: A2A 1.0 JSON-RPC and gRPC, v0.3
// JSON-RPC and gRPC (GetAgentCard).
var extendedMethods = map[string]bool{
	"getextendedagentcard":               true,
	"agent/getauthenticatedextendedcard": true,
	"getagentcard":                       true,
}

// cleanPath is a request path as the guard compares it: decoded (r.URL.Path),
// backslashes read as slashes and ";parameters" cut from each segment (servers that
// route so must not see a card the guard did not), cleaned, lower case.
func cleanPath(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	if strings.Contains(p, ";") {
		segs := strings.Split(p, "/")
		for i, s := range segs {
			segs[i], _, _ = strings.Cut(s, ";")
		}
		p = strings.Join(segs, "/")
	}
	return strings.ToLower(path.Clean("/" + p))
}

// isCardDocument reports whether a cleaned path (cleanPath) ends in a card document's
// well-known name.
func isCardDocument(p string) bool {
	for _, s := range cardSuffixes {
		if strings.HasSuffix(p, s) {
			return true
		}
	}
	return false
}

// ownCardPaths are the cleaned paths where the guarded agent's card is read: the
// well-known and legacy paths at the root and under the upstream's base path, and the
// upstream URL's own path (card.Load reads a card there first).
func ownCardPaths(upstreamPath string) map[string]bool {
	own := map[string]bool{}
	for _, base := range []string{"/", upstreamPath} {
		b := strings.TrimSuffix(cleanPath(base), "/")
		for _, s := range cardSuffixes {
			own[b+s] = true
		}
	}
	if p := cleanPath(upstreamPath); p != "/" {
		own[p] = true
	}
	return own
}

// route says what r's path asks of the guard: its own card, a card at a foreign path,
// the extended card (HTTP+JSON paths, gRPC methods), or anything else (routeProxy; a
// JSON-RPC request for the extended card is found by inspect).
func (g *Guard) route(r *http.Request) cardRoute {
	p := cleanPath(r.URL.Path)
	if g.ownCards[p] && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		return routeOwnCard
	}
	if isCardDocument(p) {
		if g.ownCards[p] {
			return routeOwnCard // the card endpoint answers OPTIONS, and 405 to the rest
		}
		return routeForeign
	}
	last := p[strings.LastIndexByte(p, '/')+1:]
	switch {
	case card.IsGRPCRequest(r):
		if extendedMethods[last] {
			return routeExtended
		}
	case last == "extendedagentcard" || strings.HasSuffix(p, "/v1/card"):
		return routeExtended
	}
	return routeProxy
}

// inspect reads the body of a request the path did not place (bounded by maxInspect)
// to find a JSON-RPC request for the extended card, and puts it back for the proxy. An
// error means the body could not be inspected within the bound.
func inspect(r *http.Request) (cardRoute, error) {
	if r.Method != http.MethodPost || r.Body == nil || r.Body == http.NoBody || card.IsGRPCRequest(r) {
		return routeProxy, nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxInspect+1))
	if err != nil {
		return routeProxy, fmt.Errorf("reading the request: %w", err)
	}
	if len(body) > maxInspect {
		return routeProxy, errTooLarge
	}
	_ = r.Body.Close()
	r.Body, r.ContentLength, r.TransferEncoding = io.NopCloser(bytes.NewReader(body)), int64(len(body)), nil
	if asksExtendedCard(body) {
		return routeExtended, nil
	}
	return routeProxy, nil
}

// errTooLarge is why a request was refused while the extended card is gated.
var errTooLarge = fmt.Errorf("a request body over %d bytes cannot be checked for an extended card request while the card is withheld", maxInspect)

// asksExtendedCard reports whether a JSON-RPC request (or batch) may name an extended
// card method: in any member spelt "method" in any case (encoding/json matches member
// names so), any value spelling counted. A body that is not JSON counts when it
// mentions the methods at all: a lenient parser upstream might read it.
func asksExtendedCard(body []byte) bool {
	var top json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		low := bytes.ToLower(body)
		return bytes.Contains(low, []byte("extended")) || bytes.Contains(low, []byte("getagentcard"))
	}
	var batch []json.RawMessage
	if json.Unmarshal(top, &batch) != nil {
		batch = []json.RawMessage{top}
	}
	for _, req := range batch {
		members, err := card.DecodeObject(req)
		if err != nil {
			continue
		}
		for _, m := range members {
			var method string
			if strings.EqualFold(m.Key, "method") && json.Unmarshal(m.Value, &method) == nil && extendedMethods[strings.ToLower(method)] {
				return true
			}
		}
	}
	return false
}

// extendedPassable reports whether the upstream's extended card may pass: only while
// its card is published as it is (strict, or normalized without a change). A withheld
// card, or one the normalizer had to rewrite, would come back through the extended
// card unchecked.
func (g *Guard) extendedPassable() string {
	s := g.snap.Load()
	if why := g.withheld(s); why != "" {
		return "the agent card is withheld (" + why + ")"
	}
	if s.Normalized != nil && s.Normalized.Changed {
		return "the agent card was normalized by the guard; the upstream's extended card names what it removed"
	}
	return ""
}

// refuse answers a request the guard does not proxy now: 503 with Retry-After, or gRPC
// UNAVAILABLE, saying why.
func (g *Guard) refuse(w http.ResponseWriter, r *http.Request, why string) {
	msg := "a2abind guard: " + why
	if card.IsGRPCRequest(r) {
		grpcUnavailable(w, msg)
		return
	}
	w.Header().Set("Retry-After", g.retryAfter())
	w.Header().Set("Cache-Control", "no-store")
	http.Error(w, msg, http.StatusServiceUnavailable)
}

// serveForeignCard answers a card path the guarded agent does not publish at: the
// upstream may serve other agents' cards there, which the guard has not checked.
func (g *Guard) serveForeignCard(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	http.Error(w, "a2abind guard: no checked agent card at this path; the card is at "+card.WellKnownPath, http.StatusNotFound)
}

// grpcUnavailable answers a gRPC request with status UNAVAILABLE (trailers only).
func grpcUnavailable(w http.ResponseWriter, msg string) {
	h := w.Header()
	h.Set("Content-Type", "application/grpc")
	h.Set("Grpc-Status", "14")
	h.Set("Grpc-Message", grpcEscape(msg))
	w.WriteHeader(http.StatusOK)
}

// grpcEscape percent-encodes a grpc-message (gRPC over HTTP/2: printable ASCII except %).
func grpcEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e || c == '%' {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
