package card

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"time"
)

// Publication is a card document as a card endpoint publishes it: serve and guard
// build one whenever what they publish changes and answer every request with
// ServeCard.
type Publication struct {
	// Body is the card document, byte for byte.
	Body []byte
	// ETag is Body's strong entity tag (ETagOf).
	ETag string
	// Modified is Last-Modified: when this document was first published, whole seconds.
	Modified time.Time
	// CacheControl is the Cache-Control of the card answer.
	CacheControl string
	// Header holds more response headers of the card answer; nil for none.
	Header http.Header
}

// NewPublication publishes body, modified at (truncated to whole seconds, UTC), with
// its strong ETag.
func NewPublication(body []byte, modified time.Time, cacheControl string) *Publication {
	return &Publication{Body: body, ETag: ETagOf(body), Modified: modified.UTC().Truncate(time.Second), CacheControl: cacheControl}
}

// ETagOf is the strong entity tag of a card document: 128 bits of its SHA-256, quoted.
func ETagOf(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}

// Withheld is why a card endpoint does not publish now, and when to ask again.
type Withheld struct {
	// Why is the text of the 503 answer; it names no upstream address or error.
	Why string
	// RetryAfter is when a client may ask again (at least one second).
	RetryAfter time.Duration
}

// ServeCard answers a request to a card endpoint, the one way serve and guard publish a
// card: CORS, OPTIONS and 405 first (AnswerCardPreflight); then, with p nil, 503 with
// Retry-After, Cache-Control no-store and w.Why; otherwise the document with its
// ETag, Last-Modified, Cache-Control and p.Header, through http.ServeContent (HEAD,
// If-None-Match, or without it If-Modified-Since, gives 304; RFC 9110 §13.2.2).
func ServeCard(w http.ResponseWriter, r *http.Request, p *Publication, withheld Withheld) {
	if AnswerCardPreflight(w, r) {
		return
	}
	h := w.Header()
	if p == nil {
		secs := max(1, int((withheld.RetryAfter+time.Second-1)/time.Second))
		h.Set("Retry-After", strconv.Itoa(secs))
		h.Set("Cache-Control", "no-store")
		http.Error(w, withheld.Why, http.StatusServiceUnavailable)
		return
	}
	for k, vs := range p.Header {
		h[k] = append([]string(nil), vs...)
	}
	h.Set("Cache-Control", p.CacheControl)
	h.Set("ETag", p.ETag)
	h.Set("Content-Type", "application/json")
	http.ServeContent(w, r, "", p.Modified, bytes.NewReader(p.Body))
}
