package exporter

import (
	"bytes"
	"context"
	"log/slog"
	"sync"

	"github.com/a2abind/a2abind/internal/redact"
)

// probeLog is the slog.Handler of a probe's log, for the debug output: it keeps the
// records as they are logged and writes them out with slog's text handler only when the
// output is read (debug=true, /logs), which gives the bytes writing them at once would
// have given (the records hold values, not what they point to), without formatting
// every scrape's log for a page seldom read. Records that would begin past
// maxDebugOutput bytes, where the output is cut, are not kept.
type probeLog struct {
	store  *logStore
	parent *probeLog
	attrs  []slog.Attr // WithAttrs
	group  string      // WithGroup
}

type logStore struct {
	mu      sync.Mutex
	records []slog.Record
	least   int // a lower bound of the bytes the records kept so far write
}

func newProbeLog() *probeLog { return &probeLog{store: &logStore{}} }

// Enabled is the text handler's default level: Info and above.
func (l *probeLog) Enabled(_ context.Context, level slog.Level) bool { return level >= slog.LevelInfo }

func (l *probeLog) Handle(_ context.Context, r slog.Record) error {
	if l.parent != nil { // attributes and groups of WithAttrs and WithGroup, outermost last
		var attrs []slog.Attr
		r.Attrs(func(a slog.Attr) bool { attrs = append(attrs, a); return true })
		for h := l; h.parent != nil; h = h.parent {
			if h.group != "" {
				attrs = []slog.Attr{slog.Attr{Key: h.group, Value: slog.GroupValue(attrs...)}}
			} else {
				attrs = append(h.attrs[:len(h.attrs):len(h.attrs)], attrs...)
			}
		}
		r = slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
		r.AddAttrs(attrs...)
	}
	s := l.store
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.least > maxDebugOutput {
		return nil
	}
	s.least += len(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		s.least += len(a.Key)
		if a.Value.Kind() == slog.KindString {
			s.least += len(a.Value.String())
		}
		return true
	})
	s.records = append(s.records, r.Clone())
	return nil
}

func (l *probeLog) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &probeLog{store: l.store, parent: l, attrs: attrs}
}

func (l *probeLog) WithGroup(name string) slog.Handler {
	if name == "" {
		return l
	}
	return &probeLog{store: l.store, parent: l, group: name}
}

// text writes the kept records as slog.NewTextHandler(w, nil) would have, the secrets
// of hide hidden, up to maxDebugOutput bytes (cut after hiding: a cut secret is no
// longer found).
func (l *probeLog) text(hide *redact.Secrets) []byte {
	s := l.store
	s.mu.Lock()
	records := s.records
	s.mu.Unlock()
	var b bytes.Buffer
	h := slog.NewTextHandler(&b, nil)
	for _, r := range records {
		_ = h.Handle(context.Background(), r)
	}
	out := hide.String(b.String())
	return []byte(out[:min(len(out), maxDebugOutput)])
}
