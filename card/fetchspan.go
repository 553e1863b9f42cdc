package card

import (
	"errors"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"go.opentelemetry.io/otel/trace"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/internal/telemetry"
)

// SpanFetch is the name of the span of one card fetch (one URL: the well-known path,
// the legacy one or the path under a base URL each get their own).
const SpanFetch = "a2abind.card.fetch"

// endFetchSpan records a fetch's URL, status and outcome on its span and ends it.
func endFetchSpan(span trace.Span, cardURL string, c *Card, err error) {
	defer span.End()
	if !span.IsRecording() {
		return
	}
	span.SetAttributes(telemetry.URLFull.String(cardURL))
	if a, aerr := addr.ParseAddress(cardURL, a2a.TransportProtocolJSONRPC); aerr == nil {
		span.SetAttributes(telemetry.Server(a.Host, a.Port)...)
	}
	var se *StatusError
	switch {
	case err == nil:
		span.SetAttributes(telemetry.HTTPStatusCode.Int(200), telemetry.Interfaces.Int(len(c.Interfaces)))
	case errors.As(err, &se):
		span.SetAttributes(telemetry.HTTPStatusCode.Int(se.StatusCode))
		telemetry.Fail(span, "http_"+se.Status[:min(3, len(se.Status))], err.Error())
	case errors.Is(err, ErrMalformed):
		telemetry.Fail(span, "malformed", err.Error())
	default:
		telemetry.Fail(span, "unavailable", err.Error())
	}
}
