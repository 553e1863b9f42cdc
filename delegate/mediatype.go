package delegate

import (
	"context"
	"crypto/rand"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
)

// HTTP+JSON media types: A2A 1.0.1 says application/a2a+json SHOULD be used; 1.0.0 said
// application/json, which is what a2a-go v2.3.1's REST client sends (hard-coded in
// a2aclient/rest.go, with no option to change it).
const (
	mediaJSON    = "application/json"
	mediaA2AJSON = "application/a2a+json"
)

// mediaTypeTransport sits over the HTTP+JSON transports' RoundTripper. It accepts both
// media types (Accept lists both; an answer in application/a2a+json is handed to a2a-go
// as application/json, the only type whose error body a2a-go v2.3.1 reads), and sends
// what works: a request body goes as application/json, and when an origin answers 415
// Unsupported Media Type to that, the same request goes again as application/a2a+json
// and that origin gets application/a2a+json from then on. A 415 to a message is
// confirmed first (refusesMediaType): a handler may have run it and answered 415.
type mediaTypeTransport struct {
	base      http.RoundTripper
	a2aJSONAt *sync.Map // origin (scheme://host) -> true: it wants application/a2a+json
}

// restClient is the client's HTTP client (its redirect policy and all) for the
// HTTP+JSON transports, with both media types handled by mediaTypeTransport. The
// origins that want application/a2a+json are remembered per Client.
func (c *Client) restClient() *http.Client {
	c.mediaOnce.Do(func() { c.mediaTypes = &sync.Map{} })
	rest := *c.httpClient
	rest.Transport = mediaTypeTransport{base: c.httpClient.Transport, a2aJSONAt: c.mediaTypes}
	return &rest
}

func (t mediaTypeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	origin := req.URL.Scheme + "://" + req.URL.Host
	out := req.Clone(req.Context())
	if mt, _, _ := mime.ParseMediaType(out.Header.Get("Accept")); mt == mediaJSON {
		out.Header.Set("Accept", mediaA2AJSON+", "+mediaJSON)
	}
	hasBody := req.Body != nil && req.Body != http.NoBody
	if _, wants := t.a2aJSONAt.Load(origin); wants && hasBody {
		out.Header.Set("Content-Type", mediaA2AJSON)
	}
	resp, err := t.base.RoundTrip(out)
	if err == nil && resp.StatusCode == http.StatusUnsupportedMediaType && hasBody && req.GetBody != nil &&
		out.Header.Get("Content-Type") != mediaA2AJSON && t.refusesMediaType(out) {
		if body, gerr := req.GetBody(); gerr == nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxCapture))
			_ = resp.Body.Close()
			if rec := recorderFrom(req.Context()); rec != nil {
				rec.resetAnswer()
			}
			again := req.Clone(req.Context())
			again.Body = body
			again.Header.Set("Accept", out.Header.Get("Accept"))
			again.Header.Set("Content-Type", mediaA2AJSON)
			resp, err = t.base.RoundTrip(again)
			if err == nil && resp.StatusCode != http.StatusUnsupportedMediaType {
				t.a2aJSONAt.Store(origin, true)
			}
		}
	}
	if err == nil {
		if mt, params, perr := mime.ParseMediaType(resp.Header.Get("Content-Type")); perr == nil && mt == mediaA2AJSON {
			resp.Header.Set("Content-Type", mime.FormatMediaType(mediaJSON, params))
		}
	}
	return resp, err
}

// refusesMediaType reports whether a 415 to out proves that the media type, not a
// handler, refused it. A message (POST .../message:send or :stream) may have run
// before a 415 (issue 18), so it is confirmed with side-effect-free requests on the same
// interface (CancelTask of a random task id), as wire.Policy.Walk confirms a move to
// another interface: with out's media type it must get 415 too, and with
// application/a2a+json it must not (issue 43: a relay that answers 415 to everything
// must not get the message twice). Other requests are resent as they are.
func (t mediaTypeTransport) refusesMediaType(out *http.Request) bool {
	base, ok := strings.CutSuffix(out.URL.Path, "/message:send")
	if !ok {
		base, ok = strings.CutSuffix(out.URL.Path, "/message:stream")
	}
	if !ok {
		return true
	}
	u := *out.URL
	u.Path, u.RawPath, u.RawQuery = base+"/tasks/a2abind-lookup-"+rand.Text()+":cancel", "", ""
	ctx, cancel := context.WithTimeout(withRecorder(out.Context(), nil), lookupBudget) // not the attempt's evidence
	defer cancel()
	status := func(contentType string) int {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), strings.NewReader("{}"))
		if err != nil {
			return 0
		}
		req.Header = out.Header.Clone()
		req.Header.Del("Content-Length")
		req.Header.Set("Content-Type", contentType)
		resp, err := t.base.RoundTrip(req)
		if err != nil {
			return 0
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxCapture))
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	if status(out.Header.Get("Content-Type")) != http.StatusUnsupportedMediaType {
		return false
	}
	s := status(mediaA2AJSON)
	return s != 0 && s != http.StatusUnsupportedMediaType
}
