package delegate

import (
	"errors"
	"mime"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// mediaGate wraps the lab agent's HTTP+JSON routes: a request body in a media type the
// agent does not accept gets 415 and never reaches the handler; answers can be relabelled
// application/a2a+json. It counts what reached the handler, per media type.
type mediaGate struct {
	accept  string // "" for any, else the only Content-Type accepted for a body
	relabel bool   // answer application/a2a+json instead of application/json
	mu      sync.Mutex
	reached map[string]int
	refused int
}

func (g *mediaGate) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, lab.PathREST) {
			next.ServeHTTP(w, r)
			return
		}
		mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		g.mu.Lock()
		if r.Method == http.MethodPost && g.accept != "" && mt != g.accept {
			g.refused++
			g.mu.Unlock()
			http.Error(w, "unsupported media type", http.StatusUnsupportedMediaType)
			return
		}
		g.reached[mt]++
		g.mu.Unlock()
		if g.relabel {
			w = relabelled{w}
		}
		next.ServeHTTP(w, r)
	})
}

type relabelled struct{ http.ResponseWriter }

func (r relabelled) WriteHeader(code int) {
	if mt, _, _ := mime.ParseMediaType(r.Header().Get("Content-Type")); mt == mediaJSON {
		r.Header().Set("Content-Type", mediaA2AJSON)
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r relabelled) Write(p []byte) (int, error) { return r.ResponseWriter.Write(p) }

// TestMediaTypes: over HTTP+JSON the delegate sends what the agent accepts
// (application/json, or application/a2a+json after a 415, remembered) and reads answers
// in either type, error bodies included. A 415 never delivers the message twice.
func TestMediaTypes(t *testing.T) {
	tests := []struct {
		name         string
		gate         *mediaGate
		wantReached  map[string]int // after two sends
		wantRefused  int
		wantAttempts int // per send
	}{
		{"accepts both", &mediaGate{}, map[string]int{mediaJSON: 2}, 0, 1},
		{"accepts application/json only", &mediaGate{accept: mediaJSON}, map[string]int{mediaJSON: 2}, 0, 1},
		// Two 415s: the message's, and the side-effect-free CancelTask that confirms it
		// (issue 18: a handler may have run the message and answered 415); the same
		// CancelTask in application/a2a+json reaches the handler (issue 43: only then may
		// the message go again), then the message does.
		{"accepts application/a2a+json only: one 415 confirmed, then remembered", &mediaGate{accept: mediaA2AJSON}, map[string]int{mediaA2AJSON: 3}, 2, 1},
		{"answers in application/a2a+json", &mediaGate{relabel: true}, map[string]int{mediaJSON: 2}, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.gate.reached = map[string]int{}
			agent := labtest.Start(t, append(lab.Healthy(), lab.WithHTTPMiddleware(tt.gate.wrap))...)
			ctx := testContext(t)
			c := newTestClient(t, ctx, agent.BaseURL, WithBindings(a2a.TransportProtocolHTTPJSON))
			for i := range 2 {
				var tr Trace
				res, err := c.SendMessage(WithTrace(ctx, &tr), userMessage("media"))
				if err != nil {
					t.Fatalf("send %d: %v", i+1, err)
				}
				if got := echoed(res); !strings.Contains(got, "media") {
					t.Errorf("send %d answered %q, want the echo", i+1, got)
				}
				if len(tr.Attempts()) != tt.wantAttempts {
					t.Errorf("send %d: %d attempts, want %d: %v", i+1, len(tr.Attempts()), tt.wantAttempts, tr.Attempts())
				}
			}
			tt.gate.mu.Lock()
			defer tt.gate.mu.Unlock()
			want := 0
			for _, n := range tt.wantReached {
				want += n
			}
			if tt.gate.reached[mediaJSON]+tt.gate.reached[mediaA2AJSON] != want || tt.gate.refused != tt.wantRefused {
				t.Errorf("handler reached %v, refused %d; want %v and %d (each message delivered once)", tt.gate.reached, tt.gate.refused, tt.wantReached, tt.wantRefused)
			}
			for mt, n := range tt.wantReached {
				if tt.gate.reached[mt] != n {
					t.Errorf("handler reached in %s %d times, want %d", mt, tt.gate.reached[mt], n)
				}
			}
		})
	}

	t.Run("an error body in application/a2a+json keeps its A2A error", func(t *testing.T) {
		gate := &mediaGate{relabel: true, reached: map[string]int{}}
		agent := labtest.Start(t, append(lab.Healthy(), lab.WithHTTPMiddleware(gate.wrap))...)
		ctx := testContext(t)
		c := newTestClient(t, ctx, agent.BaseURL, WithBindings(a2a.TransportProtocolHTTPJSON))
		_, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: "no-such-task"})
		if !errors.Is(err, a2a.ErrTaskNotFound) {
			t.Errorf("GetTask(unknown) = %v, want ErrTaskNotFound read from the application/a2a+json body", err)
		}
	})
}
