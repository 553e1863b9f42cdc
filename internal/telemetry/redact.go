package telemetry

import (
	"errors"
	"slices"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/a2abind/a2abind/internal/redact"
)

// urlKeys are the attributes holding a URL, recorded as url.full's convention asks
// (redact.URL): no user:password, no signature or key in the query.
var urlKeys = map[attribute.Key]bool{URLFull: true, Target: true, CardURL: true, InterfaceURL: true}

// redacted is a span started by Start: what it records (status, attributes, events)
// goes through the secrets of the context it was started in (redact.NewContext), and
// its URL attributes through redact.URL.
type redacted struct {
	trace.Span
	s *redact.Secrets
}

func (r redacted) SetStatus(c codes.Code, description string) {
	r.Span.SetStatus(c, r.s.String(description))
}

func (r redacted) SetAttributes(kv ...attribute.KeyValue) { r.Span.SetAttributes(r.attrs(kv)...) }

func (r redacted) AddEvent(name string, opts ...trace.EventOption) {
	cfg := trace.NewEventConfig(opts...)
	r.Span.AddEvent(name, trace.WithAttributes(r.attrs(cfg.Attributes())...), trace.WithTimestamp(cfg.Timestamp()))
}

func (r redacted) RecordError(err error, opts ...trace.EventOption) {
	if err != nil {
		err = errors.New(r.s.String(err.Error()))
	}
	cfg := trace.NewEventConfig(opts...)
	r.Span.RecordError(err, trace.WithAttributes(r.attrs(cfg.Attributes())...), trace.WithTimestamp(cfg.Timestamp()))
}

// attrs is kv with its string values hidden; the caller's slice is left as it was.
func (r redacted) attrs(kv []attribute.KeyValue) []attribute.KeyValue {
	out, copied := kv, false
	for i, a := range kv {
		if a.Value.Type() != attribute.STRING {
			continue
		}
		v := a.Value.AsString()
		clean := r.s.String(v)
		if urlKeys[a.Key] {
			clean = redact.URL(clean)
		}
		if clean != v {
			if !copied {
				out, copied = slices.Clone(kv), true
			}
			out[i] = a.Key.String(clean)
		}
	}
	return out
}
