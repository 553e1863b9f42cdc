package card

import (
	"net/http"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// AnswerCardPreflight handles what a card endpoint answers before it looks at the card:
// CORS for any origin, OPTIONS preflight, and 405 for a method other than GET, HEAD or
// OPTIONS. It returns true when it has answered; the caller then writes nothing more.
// serve and guard publish cards through it.
func AnswerCardPreflight(w http.ResponseWriter, r *http.Request) bool {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		return false
	case http.MethodOptions:
		h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "If-None-Match, If-Modified-Since, "+a2a.SvcParamVersion)
		w.WriteHeader(http.StatusNoContent)
	default:
		h.Set("Allow", "GET, HEAD, OPTIONS")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
	return true
}

// IsGRPCRequest reports whether r is a gRPC call, by its content type:
// application/grpc, application/grpc+CODEC or gRPC-Web (application/grpc-web[+CODEC]),
// in any case, with or without parameters. It is the one rule serve and guard route
// gRPC by; whether the HTTP version can carry it (gRPC needs HTTP/2) is the caller's
// next question.
func IsGRPCRequest(r *http.Request) bool {
	ct, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";")
	ct = strings.ToLower(strings.TrimSpace(ct))
	return ct == "application/grpc" || strings.HasPrefix(ct, "application/grpc+") || strings.HasPrefix(ct, "application/grpc-web")
}
