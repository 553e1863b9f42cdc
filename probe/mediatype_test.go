package probe_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

// a2aJSONAnswers relabels the agent's application/json answers as application/a2a+json,
// as an agent following A2A 1.0.1 (a2a-js) answers.
func a2aJSONAnswers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(relabel{w}, r)
	})
}

type relabel struct{ http.ResponseWriter }

func (r relabel) WriteHeader(code int) {
	if strings.HasPrefix(r.Header().Get("Content-Type"), "application/json") {
		r.Header().Set("Content-Type", "application/a2a+json")
	}
	r.ResponseWriter.WriteHeader(code)
}

// TestHTTPJSONMediaTypeNote: an HTTP+JSON interface answering application/a2a+json is
// served, with a note that a2a-go v2.3.1 clients lose its error bodies; one answering
// application/json gets no such note.
func TestHTTPJSONMediaTypeNote(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		opts []lab.Option
		note bool
	}{
		{"application/json", lab.Healthy(), false},
		{"application/a2a+json", append(lab.Healthy(), lab.WithHTTPMiddleware(a2aJSONAnswers)), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := labtest.Start(t, tt.opts...)
			r := probe.Interface(t.Context(), card.Interface{URL: a.URL(lab.PathREST), Binding: "HTTP+JSON", ProtocolVersion: card.V1},
				probe.WithTimeout(10*time.Second))
			if r.Outcome != wire.Served {
				t.Fatalf("outcome %s (%s), want served", r.Outcome, r.Detail)
			}
			if got := strings.Contains(r.Detail, "reads an error body only as application/json"); got != tt.note {
				t.Errorf("note present = %v, want %v: %s", got, tt.note, r.Detail)
			}
		})
	}
}
