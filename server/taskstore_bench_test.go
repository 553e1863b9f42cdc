package server

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
)

// BenchmarkTaskStore compares the bounded store with a2a-go's unbounded in-memory one on
// what a SendMessage does to a store: create, two updates, a get. Both copy the task
// with encoding/gob; each iteration runs the cycle on both, alternating which goes
// first, and reports bounded/inmemory.
func BenchmarkTaskStore(b *testing.B) {
	text := strings.Repeat("x", 1<<10)
	bounded := newBoundedStore(taskLimits{maxAge: time.Hour, maxCount: 1000, maxBytes: 64 << 20}, false)
	inmem := taskstore.NewInMemory(nil)
	cycle := func(s taskstore.Store, id string) time.Duration {
		ctx := context.Background()
		start := time.Now()
		tk := task(id, a2a.TaskStateSubmitted, text)
		v, err := s.Create(ctx, tk)
		if err != nil {
			b.Fatal(err)
		}
		for _, st := range []a2a.TaskState{a2a.TaskStateWorking, a2a.TaskStateCompleted} {
			tk.Status.State = st
			if v, err = s.Update(ctx, &taskstore.UpdateRequest{Task: tk, PrevVersion: v}); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := s.Get(ctx, tk.ID); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	var tb, ti time.Duration
	b.ResetTimer()
	for i := range b.N {
		id := fmt.Sprint("t", i)
		if i%2 == 0 {
			tb += cycle(bounded, id)
			ti += cycle(inmem, id)
		} else {
			ti += cycle(inmem, id)
			tb += cycle(bounded, id)
		}
	}
	b.ReportMetric(float64(tb.Nanoseconds())/float64(b.N), "bounded-ns/op")
	b.ReportMetric(float64(ti.Nanoseconds())/float64(b.N), "inmemory-ns/op")
	b.ReportMetric(float64(tb)/float64(ti), "bounded/inmemory")
}
