package exporter

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/a2abind/a2abind/internal/telemetry"
	"github.com/a2abind/a2abind/wire"
)

// TestProbeLog_AsTextHandler: a probe's log kept as records and written when read is,
// byte for byte, what slog's text handler writes at once (behind the telemetry handler
// that adds the trace ids, with attributes and groups, every kind of value, control
// characters), cut at maxDebugOutput as before; records past the cut are not kept.
func TestProbeLog_AsTextHandler(t *testing.T) {
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1}, SpanID: trace.SpanID{2}, TraceFlags: trace.FlagsSampled})
	traced := trace.ContextWithSpanContext(context.Background(), sc)
	write := func(l *slog.Logger, n int) {
		l.Info("beginning probe", "target", "http://a\x1b[31m/\"x\"", "module", "default", "timeout_seconds", 9.5)
		l.ErrorContext(traced, "card fetch failed", "err", errors.New("GET x: refused\nnext line"), "duration_seconds", 0.000112)
		l.Debug("not shown")
		l.With("a", 1).WithGroup("g").With("b", true).InfoContext(traced, "grouped", "outcome", wire.Served, "d", time.Second, "at", time.Unix(1e9, 0).UTC())
		l.WithGroup("empty").Info("no attrs")
		l.Warn("any", "v", struct{ A []int }{[]int{1, 2}}, "nil", nil, "u", uint64(7), "i", -3, "s", []string{"x"})
		for i := range n {
			l.InfoContext(traced, "interface", "n", i, "detail", strings.Repeat("é", 300))
		}
	}
	for _, n := range []int{0, 3, 200} {
		var want bytes.Buffer
		logs := newProbeLog()
		write(slog.New(telemetry.LogHandler(tee{slog.NewTextHandler(&want, nil), logs})), n) // the same records
		w := want.Bytes()[:min(want.Len(), maxDebugOutput)]
		if got := logs.text(nil); !bytes.Equal(got, w) {
			at := 0
			for at < min(len(got), len(w)) && got[at] == w[at] {
				at++
			}
			t.Errorf("%d records: kept and written later (%d bytes), written at once (%d), first difference at %d:\n%.300s\n%.300s",
				n, len(got), len(w), at, got[max(at-100, 0):], w[max(at-100, 0):])
		}
		if n == 200 && len(logs.store.records) >= 200 {
			t.Errorf("%d records kept, the ones past the cut too", len(logs.store.records))
		}
	}
}

// tee hands every record to two handlers.
type tee [2]slog.Handler

func (t tee) Enabled(ctx context.Context, l slog.Level) bool {
	return t[0].Enabled(ctx, l) || t[1].Enabled(ctx, l)
}

func (t tee) Handle(ctx context.Context, r slog.Record) error {
	for _, h := range t {
		if h.Enabled(ctx, r.Level) {
			_ = h.Handle(ctx, r.Clone())
		}
	}
	return nil
}

func (t tee) WithAttrs(as []slog.Attr) slog.Handler {
	return tee{t[0].WithAttrs(as), t[1].WithAttrs(as)}
}
func (t tee) WithGroup(name string) slog.Handler {
	return tee{t[0].WithGroup(name), t[1].WithGroup(name)}
}
