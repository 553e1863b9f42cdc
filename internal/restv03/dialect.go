package restv03

import (
	"net/http"

	"google.golang.org/protobuf/proto"
)

// Dialect is one way a v0.3 HTTP+JSON interface is spoken: where its routes are under
// the interface's URL and how bodies are written. The routes themselves are the same.
type Dialect struct {
	// Prefix is the path under the interface's URL where the routes are.
	Prefix string
	// Subscribe is the HTTP method of {prefix}/tasks/{id}:subscribe.
	Subscribe string
	// Marshal writes a request body; Unmarshal reads an answer or a stream event.
	Marshal   func(proto.Message) ([]byte, error)
	Unmarshal func([]byte, proto.Message) error
}

// Spec is the v0.3 specification's dialect under {url}/v1 (@a2a-js/sdk 0.3, a2a-go
// v2.4.0 and later): proto JSON.
var Spec = Dialect{Prefix: Prefix, Subscribe: http.MethodGet, Marshal: Marshal, Unmarshal: Unmarshal}

// A2AGo is a2a-go v2.3.1's dialect at {url} itself: the legacy v0.3 JSON types with
// snake_case keys (legacy.go).
var A2AGo = Dialect{Prefix: "", Subscribe: http.MethodPost, Marshal: MarshalLegacy, Unmarshal: UnmarshalLegacy}

// DialectAt is the dialect of the routes a lookup found under prefix (probe.Way.Prefix
// of a located v0.3 HTTP+JSON interface), ok false for a prefix no known server uses.
func DialectAt(prefix string) (Dialect, bool) {
	switch prefix {
	case Spec.Prefix:
		return Spec, true
	case A2AGo.Prefix:
		return A2AGo, true
	}
	return Dialect{}, false
}
