package card_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/a2abind/a2abind/card"
)

// cardServer serves mux on a loopback httptest server closed at cleanup.
func cardServer(t *testing.T, mux http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func serveBytes(body []byte, ctype string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", ctype)
		w.Write(body)
	}
}

func TestFetchFindsTheCard(t *testing.T) {
	seed := readCard(t, "seed-v03.json")
	mux := http.NewServeMux()
	mux.HandleFunc(card.WellKnownPath, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		serveBytes(seed, "application/json")(w, r)
	})
	mux.HandleFunc("/cards/seed", serveBytes(seed, "application/json"))
	mux.HandleFunc("/agents/x"+card.WellKnownPath, serveBytes(seed, "application/json"))
	mux.HandleFunc("/hop1", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/hop2", http.StatusFound) })
	mux.HandleFunc("/hop2", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, card.WellKnownPath, http.StatusMovedPermanently)
	})
	srv := cardServer(t, mux)
	want, err := card.Parse(seed)
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct{ name, target, location string }{
		{"base URL", srv.URL, srv.URL + card.WellKnownPath},
		{"base URL with slash", srv.URL + "/", srv.URL + card.WellKnownPath},
		{"card URL", srv.URL + "/cards/seed", srv.URL + "/cards/seed"},
		{"base URL with a path", srv.URL + "/agents/x", srv.URL + "/agents/x" + card.WellKnownPath},
		{"two redirects", srv.URL + "/hop1", srv.URL + card.WellKnownPath},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := card.Load(context.Background(), tc.target, card.WithTimeout(5*time.Second))
			if err != nil {
				t.Fatalf("Load(%s) = %v", tc.target, err)
			}
			if diff := cmp.Diff(want.Interfaces, c.Interfaces); diff != "" {
				t.Errorf("Interfaces (-want +got):\n%s", diff)
			}
			if c.Location != tc.location {
				t.Errorf("Location = %q, want %q", c.Location, tc.location)
			}
		})
	}
	c, err := card.Fetch(context.Background(), srv.URL)
	if err != nil || c.ETag != `"v1"` {
		t.Errorf("Fetch() ETag = %q, err %v; want \"v1\"", c.ETag, err)
	}
}

func TestFetchSendsHeaders(t *testing.T) {
	seed := readCard(t, "v1-healthy.json")
	srv := cardServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer t0k3n" {
			http.Error(w, "missing token", http.StatusUnauthorized)
			return
		}
		serveBytes(seed, "application/json")(w, r)
	}))
	if _, err := card.Fetch(context.Background(), srv.URL); !errors.Is(err, card.ErrUnavailable) {
		t.Fatalf("Fetch() without header = %v, want ErrUnavailable", err)
	}
	if _, err := card.Fetch(context.Background(), srv.URL, card.WithHeader("Authorization", "Bearer t0k3n")); err != nil {
		t.Fatalf("Fetch() with header = %v", err)
	}
}

func TestFetchFailures(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	mux.HandleFunc("/html404/", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, "<!DOCTYPE html><html><body><h1>Not Found</h1></body></html>")
	})
	mux.HandleFunc("/500/", func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "upstream connect error", http.StatusInternalServerError)
	})
	mux.HandleFunc("/html200/", serveBytes(readCard(t, "html-error-page.json"), "text/html"))
	mux.HandleFunc("/text/", serveBytes([]byte("agent card goes here"), "text/plain"))
	mux.HandleFunc("/truncated/", serveBytes(readCard(t, "truncated.json"), "application/json"))
	mux.HandleFunc("/empty/", serveBytes(nil, "application/json"))
	mux.HandleFunc("/slow/", func(w http.ResponseWriter, r *http.Request) {
		select { // answers only when the client has gone
		case <-r.Context().Done():
		case <-time.After(time.Minute):
		}
	})
	mux.HandleFunc("/slowbody/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"name": "trickle"`))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	huge := func(declareLength bool) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			const size = 10 << 20
			w.Header().Set("Content-Type", "application/json")
			if declareLength {
				w.Header().Set("Content-Length", fmt.Sprint(size))
			}
			w.Write([]byte(`{"name": "`))
			chunk := bytes.Repeat([]byte("a"), 64<<10)
			for n := 0; n < size; n += len(chunk) {
				if _, err := w.Write(chunk); err != nil {
					return // the client stopped reading at the limit
				}
			}
		}
	}
	mux.HandleFunc("/huge/", huge(false))
	mux.HandleFunc("/hugecl/", huge(true))
	srv := cardServer(t, mux)

	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedURL := "http://" + closed.Addr().String()
	closed.Close()

	tests := []struct {
		name, target string
		is           error
		status       int
		html         bool
		timeout      time.Duration // the fetch bound; 20 s unless the case is about time
		contains     []string
	}{
		{name: "redirect loop", target: srv.URL + "/loop", is: card.ErrUnavailable, contains: []string{"redirected more than 3 times"}},
		{name: "404 HTML page", target: srv.URL + "/html404/agent.json", is: card.ErrUnavailable, status: 404, html: true,
			contains: []string{"404 Not Found", "HTML error page"}},
		{name: "500", target: srv.URL + "/500/agent.json", is: card.ErrUnavailable, status: 500,
			contains: []string{"500 Internal Server Error", "upstream connect error"}},
		{name: "200 HTML page", target: srv.URL + "/html200/agent.json", is: card.ErrUnavailable, contains: []string{"HTML page, not a JSON card"}},
		{name: "200 text", target: srv.URL + "/text/agent.json", is: card.ErrMalformed, contains: []string{"Content-Type text/plain", "expected a JSON object"}},
		{name: "200 truncated", target: srv.URL + "/truncated/agent.json", is: card.ErrMalformed, contains: []string{"truncated JSON"}},
		{name: "200 empty", target: srv.URL + "/empty/agent.json", is: card.ErrMalformed, contains: []string{"document is empty"}},
		{name: "slow server", target: srv.URL + "/slow/agent.json", is: context.DeadlineExceeded, timeout: 200 * time.Millisecond, contains: []string{"no complete answer within 200ms"}},
		{name: "slow body", target: srv.URL + "/slowbody/agent.json", is: context.DeadlineExceeded, timeout: 200 * time.Millisecond, contains: []string{"no complete answer within 200ms"}},
		{name: "10 MB body", target: srv.URL + "/huge/agent.json", is: card.ErrMalformed, contains: []string{"over the 1048576-byte limit"}},
		{name: "10 MB Content-Length", target: srv.URL + "/hugecl/agent.json", is: card.ErrMalformed, contains: []string{"10485760 bytes, over the 1048576-byte limit"}},
		{name: "nothing listens", target: closedURL, is: card.ErrUnavailable, contains: []string{"connection refused"}},
		{name: "base path without card", target: srv.URL + "/nothing/here", is: card.ErrUnavailable, status: 404,
			contains: []string{"404 Not Found", "also tried " + srv.URL + "/nothing/here" + card.WellKnownPath}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Only the slow peers race the clock; every other case is cut by what it
			// names, so a loaded machine (the race detector) cannot turn it into a timeout.
			c, err := card.Load(context.Background(), tc.target, card.WithTimeout(orDefault(tc.timeout)))
			if err == nil {
				t.Fatalf("Load(%s) = %+v, want an error", tc.target, c)
			}
			if !errors.Is(err, tc.is) {
				t.Errorf("Load() error = %v, want errors.Is %v", err, tc.is)
			}
			for _, s := range tc.contains {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("Load() error = %q, want it to contain %q", err, s)
				}
			}
			var se *card.StatusError
			if got := errors.As(err, &se); got != (tc.status != 0) {
				t.Fatalf("errors.As(StatusError) = %v, want %v (err %v)", got, tc.status != 0, err)
			}
			if se != nil && (se.StatusCode != tc.status || se.HTML != tc.html) {
				t.Errorf("StatusError = {%d html=%v}, want {%d html=%v}", se.StatusCode, se.HTML, tc.status, tc.html)
			}
		})
	}
}

func TestLoadFileAndStdin(t *testing.T) {
	seedPath := filepath.Join("..", "testdata", "cards", "seed-v03.json")
	seed := readCard(t, "seed-v03.json")
	fromFile, err := card.Load(context.Background(), seedPath)
	if err != nil || fromFile.Location != seedPath {
		t.Fatalf("Load(file) = %v, %v", fromFile, err)
	}
	fromStdin, err := card.Load(context.Background(), "-", card.WithStdin(bytes.NewReader(seed)))
	if err != nil || fromStdin.Location != "-" {
		t.Fatalf("Load(-) = %v, %v", fromStdin, err)
	}
	if diff := cmp.Diff(fromFile.Interfaces, fromStdin.Interfaces); diff != "" {
		t.Errorf("stdin and file differ (-file +stdin):\n%s", diff)
	}

	dir := t.TempDir()
	tests := []struct {
		name, src string
		stdin     []byte
		is        error
		contains  string
	}{
		{name: "missing file", src: filepath.Join(dir, "nope.json"), is: card.ErrUnavailable, contains: "no such file"},
		{name: "host instead of URL", src: "agent.example.com:8443", is: card.ErrUnavailable, contains: "https://agent.example.com:8443"},
		{name: "directory", src: dir, is: card.ErrUnavailable, contains: "is a directory"},
		{name: "truncated stdin", src: "-", stdin: []byte(`{"name": "x",`), is: card.ErrMalformed, contains: "-: malformed agent card: truncated JSON"},
		{name: "stdin over the limit", src: "-", stdin: bytes.Repeat([]byte(" "), card.DefaultMaxBytes+1), is: card.ErrUnavailable, contains: "over the 1048576-byte limit"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := card.Load(context.Background(), tc.src, card.WithStdin(bytes.NewReader(tc.stdin)))
			if !errors.Is(err, tc.is) || !strings.Contains(fmt.Sprint(err), tc.contains) {
				t.Errorf("Load(%q) error = %v, want errors.Is %v containing %q", tc.src, err, tc.is, tc.contains)
			}
		})
	}
}

// TestParseHostileInput feeds generated documents that must fail cleanly, never panic.
func TestParseHostileInput(t *testing.T) {
	deep := func(n int) []byte {
		return []byte(`{"name": "deep", "x": ` + strings.Repeat(`{"a": [`, n) + strings.Repeat(`]}`, n) + `}`)
	}
	tests := []struct {
		name     string
		data     []byte
		contains string
	}{
		{"10 MB", append(append([]byte(`{"name": "`), bytes.Repeat([]byte("a"), 10<<20)...), `"}`...), "over the 1048576-byte limit"},
		{"deep nesting", deep(20000), "exceeded max depth"},
		{"not an object", []byte(`["supportedInterfaces"]`), "expected a JSON object"},
		{"empty", []byte("  \n"), "document is empty"},
		{"trailing garbage", []byte(`{"name": "x"} {}`), "invalid JSON at line 1, column 15"},
		{"wrong type deep inside", []byte("{\n\"additionalInterfaces\": [{\"url\": \"x\", \"transport\": [1]}]}"),
			`field "additionalInterfaces.transport" at line 2, column 52: expected a string, found JSON array`},
		{"NUL bytes", []byte("{\"name\": \"a\x00\"}"), "invalid JSON at line 1, column 12"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := card.Parse(tc.data)
			if !errors.Is(err, card.ErrMalformed) || !strings.Contains(fmt.Sprint(err), tc.contains) {
				t.Errorf("Parse() = %v, %v; want ErrMalformed containing %q", c, err, tc.contains)
			}
		})
	}
	// Nesting the decoder accepts is read, and its unknown fields are ignored.
	if _, err := card.Parse(deep(500)); err != nil {
		t.Errorf("Parse(500 levels in an unknown field) = %v, want nil", err)
	}
	// A UTF-8 byte order mark is tolerated.
	if c, err := card.Parse(append([]byte{0xEF, 0xBB, 0xBF}, readCard(t, "v1-healthy.json")...)); err != nil || len(c.Interfaces) != 4 {
		t.Errorf("Parse(BOM + card) = %v, %v", c, err)
	}
}

// orDefault is the fetch bound of a TestFetchFailures case: its own, or 20 s.
func orDefault(d time.Duration) time.Duration {
	if d == 0 {
		return 20 * time.Second
	}
	return d
}
