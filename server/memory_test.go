package server

import (
	"context"
	"iter"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// ackExecutor completes every task with a short answer: the task it leaves behind is
// about as big as the message it was sent.
type ackExecutor struct{}

func (ackExecutor) Execute(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if ec.StoredTask == nil && !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
			return
		}
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
	}
}

func (ackExecutor) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// heapInUse is the live heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestStoreKeepsItsBoundUnderLoad drives 600 SendMessage of 1 MiB each through a real
// a2a-go client and checks that the default task store, and the live heap, keep the
// configured bound. Without eviction the 600 tasks hold 600 MiB. Under the race
// detector (test.sh) it makes 100 calls, three times the bound, in a
// reasonable time; test.sh also runs the 600 without it.
func TestStoreKeepsItsBoundUnderLoad(t *testing.T) {
	calls := 600
	if raceEnabled {
		calls = 100
	}
	const (
		msgBytes = 1 << 20
		bound    = 32 << 20
		slack    = 64 << 20 // the client's and server's buffers, the race detector's shadow
	)
	if testing.Short() {
		t.Skip("600 MiB over loopback")
	}
	srv, err := New(ackExecutor{}, echoInfo, WithGRPCAddr("127.0.0.1:0"), WithTaskLimits(time.Hour, 10_000, bound))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = srv.Shutdown(context.Background()) }()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	// gRPC: protobuf spends less of the test's time encoding 1 MiB than JSON does.
	ep := &a2a.AgentInterface{URL: srv.GRPCAddr(), ProtocolBinding: a2a.TransportProtocolGRPC, ProtocolVersion: a2a.Version}
	c, err := a2aclient.NewFromEndpoints(ctx, []*a2a.AgentInterface{ep}, grpcInsecure)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Destroy() }()

	text := strings.Repeat("m", msgBytes)
	before := heapInUse()
	var peak uint64
	for i := range calls {
		msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))
		if _, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: msg}); err != nil {
			t.Fatalf("SendMessage %d: %v", i, err)
		}
		if st := srv.store.stats(); st.bytes > bound {
			t.Fatalf("after %d calls the store holds %d bytes, over its %d-byte bound", i+1, st.bytes, bound)
		}
		if (i+1)%50 == 0 || i+1 == calls {
			peak = max(peak, heapInUse())
		}
	}
	st := srv.store.stats()
	growth := int64(peak) - int64(before)
	t.Logf("%d x %d B: store %d tasks, %d B (bound %d), %d evicted; live heap %d MiB before, peak %d MiB (growth %d MiB)",
		calls, msgBytes, st.tasks, st.bytes, bound, st.evicted, before>>20, peak>>20, growth>>20)
	if want := calls - bound/msgBytes; st.evicted < want {
		t.Errorf("evicted %d tasks, want at least %d", st.evicted, want)
	}
	if growth > bound+slack {
		t.Errorf("the live heap grew by %d MiB over %d calls, want at most the %d MiB bound + %d MiB", growth>>20, calls, bound>>20, slack>>20)
	}
}
