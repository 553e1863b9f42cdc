package guard

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/probe"
)

// Response headers of a normalized card.
const (
	// HeaderNormalized says the card served is not the upstream's: its value is the
	// number of declared entries removed because they are not served.
	HeaderNormalized = "A2abind-Card-Normalized"
	// HeaderSignaturesDropped says the upstream card was signed and its signatures were
	// dropped because the card was rewritten; its value is how many.
	HeaderSignaturesDropped = "A2abind-Signatures-Dropped"
	// HeaderCapabilities says which capability flags the normalizer set to what is
	// served: "member=value" pairs, comma-separated
	// ("capabilities.pushNotifications=false").
	HeaderCapabilities = "A2abind-Card-Capabilities"
)

// State is what the guard publishes after its last round.
type State struct {
	// Published reports that the card endpoint answers 200 and /readyz is ready.
	Published bool
	// Round counts the completed rounds (fetch and probe); 0 before the first one ends.
	Round int
	// Since is the round from which the card has been published (or withheld) without
	// a break.
	Since int
	// ETag is the published card's strong ETag, empty while withheld.
	ETag string
	// Reason says why the card is withheld, empty while published.
	Reason string
	// Findings are the wire findings of the last round (interface-not-served,
	// preferred-not-served, capability-not-served), each naming an interface and its
	// cause.
	Findings []card.Finding
	// Results are the last round's probe results, in card order.
	Results []probe.Result
	// Capabilities are the last round's capability results (probe.Check).
	Capabilities []probe.CapabilityResult
	// Normalized is what the normalizer did to the published card (WithNormalize only).
	Normalized *Normalized
	// Resigned is the key ID the guard re-signed the rewritten card with
	// (WithCardSigning), empty otherwise.
	Resigned string
}

// snapshot is the state a request sees: replaced whole after each round.
type snapshot struct {
	State
	body     []byte
	modified time.Time
	// public is why the card is withheld, as the 503 tells any client: no upstream
	// address, no upstream error text (State.Reason and the log have those).
	public string
}

// serveCard publishes the card of the last round, or 503 with Retry-After
// (card.ServeCard, the one card endpoint of serve and guard).
func (g *Guard) serveCard(w http.ResponseWriter, r *http.Request) {
	s := g.snap.Load()
	if why := g.withheld(s); why != "" {
		card.ServeCard(w, r, nil, card.Withheld{Why: "agent card withheld by a2abind guard: " + why, RetryAfter: g.o.interval})
		return
	}
	p := &card.Publication{Body: s.body, ETag: s.ETag, Modified: s.modified, CacheControl: g.cacheControl(), Header: http.Header{}}
	if nz := s.Normalized; nz != nil && nz.Changed {
		p.Header.Set(HeaderNormalized, strconv.Itoa(len(nz.Removed)))
		if nz.SignaturesDropped > 0 {
			p.Header.Set(HeaderSignaturesDropped, strconv.Itoa(nz.SignaturesDropped))
		}
		if len(nz.Capabilities) > 0 {
			set := make([]string, 0, len(nz.Capabilities))
			for _, c := range nz.Capabilities {
				set = append(set, c.Member+"="+strconv.FormatBool(c.Declared))
			}
			p.Header.Set(HeaderCapabilities, strings.Join(set, ", "))
		}
	}
	if s.Resigned != "" {
		p.Header.Set(HeaderResigned, s.Resigned)
	}
	card.ServeCard(w, r, p, card.Withheld{})
}

// withheld says why the card is not published ("" when it is).
func (g *Guard) withheld(s *snapshot) string {
	switch {
	case g.stopping.Load():
		return "the guard is shutting down"
	case s == nil || s.Round == 0:
		return "the first check of the declared interfaces has not finished"
	case !s.Published:
		return s.public
	}
	return ""
}

func (g *Guard) serveReadyz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if why := g.withheld(g.snap.Load()); why != "" {
		w.Header().Set("Retry-After", g.retryAfter())
		http.Error(w, "not ready: "+why, http.StatusServiceUnavailable)
		return
	}
	_, _ = io.WriteString(w, "ready\n")
}

func serveHealthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	_, _ = io.WriteString(w, "ok\n")
}

// retryAfter is the next round's distance in whole seconds (at least 1).
func (g *Guard) retryAfter() string {
	return strconv.Itoa(max(1, int((g.o.interval+time.Second-1)/time.Second)))
}

// cacheControl lets caches keep the card for one interval: the guard may withdraw it
// at the next round.
func (g *Guard) cacheControl() string {
	return fmt.Sprintf("public, max-age=%d", int(g.o.interval/time.Second))
}
