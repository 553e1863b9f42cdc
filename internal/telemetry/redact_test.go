package telemetry_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/a2abind/a2abind/internal/redact"
	"github.com/a2abind/a2abind/internal/telemetry"
	"github.com/a2abind/a2abind/internal/telemetry/otlptest"
)

// exported sets tracing up towards a fresh receiver, runs fn, flushes and returns the
// spans that arrived.
func exported(t *testing.T, fn func()) []otlptest.Span {
	t.Helper()
	clearEnv(t)
	rcv := otlptest.Start(t)
	rcv.Env(t, "http/protobuf")
	p, err := telemetry.Setup(context.Background())
	if err != nil || !p.Enabled() {
		t.Fatalf("Setup() = enabled %v, %v; want on", p.Enabled(), err)
	}
	fn()
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	return rcv.Spans()
}

// TestSpansHideSecrets: a span started under a context carrying secrets records none of
// them (status, attributes, events, a recorded error), and its URL attributes follow
// url.full's convention whatever the context carries.
func TestSpansHideSecrets(t *testing.T) {
	const token = "tok-0123456789abcdef"
	spans := exported(t, func() {
		ctx := redact.NewContext(context.Background(), redact.New(http.Header{"Authorization": {"Bearer " + token}}))
		_, span := telemetry.Start(ctx, "leaky", trace.SpanKindClient)
		span.SetAttributes(telemetry.URLFull.String("https://u:pw@h.example/c?X-Goog-Signature=abc&sig=def&page=1"),
			telemetry.Target.String("https://h.example/?Signature=s1&AWSAccessKeyId=k1"),
			telemetry.CardURL.String("https://h.example/card?sig=zz"), telemetry.Evidence.String("echo "+token))
		span.AddEvent("fallback", trace.WithAttributes(telemetry.Evidence.String("401 "+token)))
		span.RecordError(errors.New("boom " + token))
		telemetry.Fail(span, "auth_required", `{"error":"bad token `+token+`"}`)
		span.End()
	})
	if len(spans) != 1 {
		t.Fatalf("%d spans, want 1", len(spans))
	}
	s := spans[0]
	want := map[string]string{
		"url.full":         "https://REDACTED:REDACTED@h.example/c?X-Goog-Signature=REDACTED&sig=REDACTED&page=1",
		"a2abind.target":   "https://h.example/?Signature=REDACTED&AWSAccessKeyId=REDACTED",
		"a2abind.card.url": "https://h.example/card?sig=REDACTED",
		"a2abind.evidence": "echo REDACTED",
	}
	for k, v := range want {
		if s.Attrs[k] != v {
			t.Errorf("%s = %q, want %q", k, s.Attrs[k], v)
		}
	}
	if s.StatusMessage != `{"error":"bad token REDACTED"}` {
		t.Errorf("status %q", s.StatusMessage)
	}
	if len(s.Events) != 2 || s.Events[0].Attrs["a2abind.evidence"] != "401 REDACTED" || s.Events[1].Attrs["exception.message"] != "boom REDACTED" {
		t.Errorf("events %+v", s.Events)
	}
}

// TestServerSpanClientIsThePeer: a request through Handler that says
// X-Forwarded-For: 203.0.113.9 gets a server span whose client.address is the peer
// that connected (127.0.0.1), not the address the client wrote; the handler still
// gets the header.
func TestServerSpanClientIsThePeer(t *testing.T) {
	const xff = "203.0.113.9, 198.51.100.7"
	var got string
	spans := exported(t, func() {
		srv := httptest.NewServer(telemetry.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got = r.Header.Get("X-Forwarded-For")
			echoBody(w, r)
		}), "test"))
		defer srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Forwarded-For", xff)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	})
	if len(spans) != 1 || spans[0].Kind.String() != "SPAN_KIND_SERVER" {
		t.Fatalf("spans %+v, want one server span", spans)
	}
	if c := spans[0].Attrs["client.address"]; c != "127.0.0.1" {
		t.Errorf("client.address = %q, want the peer 127.0.0.1 (attributes %v)", c, spans[0].Attrs)
	}
	if got != xff {
		t.Errorf("the handler got X-Forwarded-For %q, want %q", got, xff)
	}
}
