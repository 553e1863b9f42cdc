package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
	"github.com/google/go-cmp/cmp"
)

// clock is a settable time for the store's age limit.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }
func newClock() *clock                   { return &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }
func testStore(l taskLimits, c *clock) *boundedStore {
	s := newBoundedStore(l, false)
	s.now = c.now
	return s
}

func task(id string, state a2a.TaskState, text string) *a2a.Task {
	return &a2a.Task{ID: a2a.TaskID(id), ContextID: "ctx", Status: a2a.TaskStatus{State: state},
		History: []*a2a.Message{a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))}}
}

func mustCreate(t *testing.T, s *boundedStore, ctx context.Context, tk *a2a.Task) {
	t.Helper()
	if _, err := s.Create(ctx, tk); err != nil {
		t.Fatalf("Create(%s) = %v", tk.ID, err)
	}
}

// has reports whether the store still holds id, seen from outside any call.
func has(s *boundedStore, id string) bool {
	_, err := s.Get(context.Background(), a2a.TaskID(id))
	return err == nil
}

func TestStoreEvictsTerminalTasksByCountOldestFirst(t *testing.T) {
	c := newClock()
	s := testStore(taskLimits{maxAge: time.Hour, maxCount: 2, maxBytes: 1 << 30}, c)
	ctx := context.Background()
	mustCreate(t, s, ctx, task("running", a2a.TaskStateWorking, "r"))
	for i := range 4 {
		c.advance(time.Second)
		mustCreate(t, s, ctx, task(fmt.Sprint("done", i), a2a.TaskStateCompleted, "d"))
	}
	for id, want := range map[string]bool{"running": true, "done0": false, "done1": false, "done2": true, "done3": true} {
		if got := has(s, id); got != want {
			t.Errorf("after 4 completed tasks with maxCount 2: has(%s) = %v, want %v", id, got, want)
		}
	}
	if st := s.stats(); st.terminal != 2 || st.evicted != 2 {
		t.Errorf("stats = %+v, want 2 terminal kept and 2 evicted", st)
	}
}

func TestStoreEvictsByBytesButNeverARunningTask(t *testing.T) {
	c := newClock()
	s := testStore(taskLimits{maxAge: time.Hour, maxCount: 1000, maxBytes: 10_000}, c)
	ctx := context.Background()
	big := strings.Repeat("x", 4_000)
	// Three running tasks alone exceed the byte limit: none of them may go.
	for i := range 3 {
		mustCreate(t, s, ctx, task(fmt.Sprint("run", i), a2a.TaskStateInputRequired, big))
	}
	mustCreate(t, s, ctx, task("done", a2a.TaskStateCompleted, big))
	for i := range 3 {
		if !has(s, fmt.Sprint("run", i)) {
			t.Errorf("running task run%d was evicted", i)
		}
	}
	if has(s, "done") {
		t.Error("a terminal task over the byte limit was kept")
	}
	// A running task that completes becomes evictable.
	stored, err := s.Get(ctx, "run0")
	if err != nil {
		t.Fatal(err)
	}
	stored.Task.Status.State = a2a.TaskStateCompleted
	if _, err := s.Update(ctx, &taskstore.UpdateRequest{Task: stored.Task, PrevVersion: stored.Version}); err != nil {
		t.Fatal(err)
	}
	if has(s, "run0") {
		t.Error("run0 completed over the byte limit and was kept")
	}
	if st := s.stats(); st.bytes > 10_000+3*entryOverhead+3*4_500 {
		t.Errorf("store holds %d bytes", st.bytes)
	}
}

func TestStoreEvictsByAge(t *testing.T) {
	c := newClock()
	s := testStore(taskLimits{maxAge: time.Minute, maxCount: 1000, maxBytes: 1 << 30}, c)
	ctx := context.Background()
	mustCreate(t, s, ctx, task("old", a2a.TaskStateFailed, "o"))
	mustCreate(t, s, ctx, task("waiting", a2a.TaskStateAuthRequired, "w"))
	c.advance(30 * time.Second)
	mustCreate(t, s, ctx, task("young", a2a.TaskStateCanceled, "y"))
	c.advance(31 * time.Second) // old is 61 s old, young 31 s
	if has(s, "old") || !has(s, "young") || !has(s, "waiting") {
		t.Errorf("after 61 s with maxAge 1m: old %v young %v waiting %v, want false true true",
			has(s, "old"), has(s, "young"), has(s, "waiting"))
	}
}

func TestStoreKeepsTheTaskStoreContract(t *testing.T) {
	s := testStore(taskLimits{maxAge: time.Hour, maxCount: 10, maxBytes: 1 << 20}, newClock())
	ctx := context.Background()
	in := task("t", a2a.TaskStateWorking, "hello")
	in.Artifacts = []*a2a.Artifact{{ID: "a", Parts: a2a.ContentParts{a2a.NewTextPart("answer")}}}
	mustCreate(t, s, ctx, in)
	if _, err := s.Create(ctx, in); !errors.Is(err, taskstore.ErrTaskAlreadyExists) {
		t.Errorf("Create twice = %v, want ErrTaskAlreadyExists", err)
	}
	got, err := s.Get(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, got.Task); diff != "" {
		t.Errorf("Get() differs from what was stored (-want +got):\n%s", diff)
	}
	in.History[0].Parts[0] = a2a.NewTextPart("changed by the caller")
	if again, _ := s.Get(ctx, "t"); again.Task.History[0].Parts[0].Text() != "hello" {
		t.Error("the stored task shares memory with the caller's")
	}
	if _, err := s.Update(ctx, &taskstore.UpdateRequest{Task: got.Task, PrevVersion: got.Version + 1}); !errors.Is(err, taskstore.ErrConcurrentModification) {
		t.Errorf("Update(stale version) = %v, want ErrConcurrentModification", err)
	}
	if _, err := s.Update(ctx, &taskstore.UpdateRequest{Task: task("nope", a2a.TaskStateWorking, "")}); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Errorf("Update(unknown) = %v, want ErrTaskNotFound", err)
	}
	if _, err := s.Create(ctx, &a2a.Task{ID: "x"}); !errors.Is(err, a2a.ErrInvalidParams) {
		t.Errorf("Create(no context id) = %v, want InvalidParams", err)
	}
}

func TestStoreListPagesEveryTaskOnce(t *testing.T) {
	c := newClock()
	s := testStore(taskLimits{maxAge: time.Hour, maxCount: 1000, maxBytes: 1 << 30}, c)
	ctx := context.Background()
	for i := range 23 {
		if i%5 != 0 {
			c.advance(time.Millisecond) // some share an update time: the id breaks the tie
		}
		mustCreate(t, s, ctx, task(fmt.Sprintf("t%02d", i), a2a.TaskStateCompleted, "x"))
	}
	seen := map[a2a.TaskID]bool{}
	var order []a2a.TaskID
	tok := ""
	for page := 0; ; page++ {
		resp, err := s.List(ctx, &a2a.ListTasksRequest{PageSize: 10, PageToken: tok})
		if err != nil {
			t.Fatalf("List(page %d) = %v", page, err)
		}
		if resp.TotalSize != 23 {
			t.Errorf("TotalSize = %d, want 23", resp.TotalSize)
		}
		for _, tk := range resp.Tasks {
			if seen[tk.ID] {
				t.Errorf("task %s listed twice", tk.ID)
			}
			seen[tk.ID] = true
			order = append(order, tk.ID)
			if tk.Artifacts != nil {
				t.Errorf("task %s listed with artifacts, want none without includeArtifacts", tk.ID)
			}
		}
		if tok = resp.NextPageToken; tok == "" {
			break
		}
	}
	if len(seen) != 23 || order[0] != "t22" || order[22] != "t00" {
		t.Errorf("listed %d tasks, first %s last %s; want 23, most recent (t22) first", len(seen), order[0], order[len(order)-1])
	}
	for _, bad := range []*a2a.ListTasksRequest{{PageSize: 101}, {PageSize: -1}, {PageToken: "not-a-token"}} {
		if _, err := s.List(ctx, bad); !errors.Is(err, a2a.ErrInvalidParams) {
			t.Errorf("List(%+v) = %v, want InvalidParams", bad, err)
		}
	}
}

// callAs is a call context for user ("" for an unauthenticated call).
func callAs(user string) context.Context {
	ctx, cc := a2asrv.NewCallContext(context.Background(), nil)
	if user != "" {
		cc.User = a2asrv.NewAuthenticatedUser(user, nil)
	}
	return ctx
}

func TestStoreScopesTasksToTheirOwner(t *testing.T) {
	for _, secured := range []bool{false, true} {
		t.Run(fmt.Sprint("secured=", secured), func(t *testing.T) {
			s := newBoundedStore(taskLimits{maxAge: time.Hour, maxCount: 10, maxBytes: 1 << 20}, secured)
			mustCreate(t, s, callAs("alice"), task("a", a2a.TaskStateCompleted, "x"))
			mustCreate(t, s, callAs("bob"), task("b", a2a.TaskStateCompleted, "x"))
			mustCreate(t, s, callAs(""), task("anon", a2a.TaskStateCompleted, "x"))
			resp, err := s.List(callAs("alice"), &a2a.ListTasksRequest{})
			if err != nil || len(resp.Tasks) != 1 || resp.Tasks[0].ID != "a" {
				t.Errorf("List as alice = %v, %v; want only task a", resp, err)
			}
			if _, err := s.Get(callAs("bob"), "a"); !errors.Is(err, a2a.ErrTaskNotFound) {
				t.Errorf("Get(alice's task) as bob = %v, want TaskNotFound", err)
			}
			resp, err = s.List(callAs(""), &a2a.ListTasksRequest{})
			switch {
			case secured && !errors.Is(err, a2a.ErrUnauthenticated):
				t.Errorf("List without credentials on a secured card = %v, want Unauthenticated", err)
			case !secured && (err != nil || len(resp.Tasks) != 1 || resp.Tasks[0].ID != "anon"):
				t.Errorf("List without credentials = %v, %v; want only the task created without credentials", resp, err)
			}
		})
	}
}
