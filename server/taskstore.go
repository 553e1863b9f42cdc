package server

import (
	"bytes"
	"container/list"
	"context"
	"encoding/base64"
	"encoding/gob"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
)

// Defaults of the bounded task store (WithTaskLimits, serve --task-max-*).
const (
	// DefaultTaskMaxAge is how long a terminal task is kept after its last update.
	DefaultTaskMaxAge = time.Hour
	// DefaultTaskMaxCount is how many terminal tasks are kept at most.
	DefaultTaskMaxCount = 10_000
	// DefaultTaskMaxBytes bounds the encoded size of all stored tasks; terminal ones are
	// evicted, oldest first, to stay under it.
	DefaultTaskMaxBytes = 256 << 20
)

// entryOverhead is what one stored task costs beyond its encoded bytes (map entry,
// list element, bookkeeping), counted so that many tiny tasks are bounded too.
const entryOverhead = 256

// boundedStore is the default task store: a2a-go's taskstore.Store kept in memory with
// terminal tasks evicted by age, count and bytes, oldest first. A task that is not in a
// terminal state (submitted, working, input or auth required) is never evicted. Tasks
// are kept encoded with encoding/gob (the copy a2a-go's own in-memory store makes, and
// the types a2a-go registers for it): a stored task shares nothing with the caller's, and
// its size is known exactly.
//
// Ownership: a task belongs to the user who created it (a2asrv.CallContext.User, when
// authenticated). When the card declares a security scheme, ListTasks needs an
// authenticated user and lists only that user's tasks; when it declares none, ListTasks
// works without credentials and lists the tasks created without credentials. GetTask
// of a task another user owns answers TaskNotFound either way.
type boundedStore struct {
	maxAge   time.Duration
	maxCount int
	maxBytes int64
	secured  bool
	now      func() time.Time

	mu       sync.Mutex
	tasks    map[a2a.TaskID]*storedEntry
	terminal *list.List // of *storedEntry, least recently updated first
	bytes    int64
	evicted  int
}

type storedEntry struct {
	id      a2a.TaskID
	raw     []byte // the task's gob encoding
	version taskstore.TaskVersion
	owner   string
	updated time.Time
	// context, state and status time, for ListTasks without decoding every task.
	contextID string
	state     a2a.TaskState
	statusAt  *time.Time
	elem      *list.Element // in terminal, nil while running
}

var _ taskstore.Store = (*boundedStore)(nil)

func newBoundedStore(l taskLimits, secured bool) *boundedStore {
	return &boundedStore{
		maxAge: l.maxAge, maxCount: l.maxCount, maxBytes: l.maxBytes, secured: secured, now: time.Now,
		tasks: make(map[a2a.TaskID]*storedEntry), terminal: list.New(),
	}
}

// callUser is the authenticated user of the call ctx belongs to, "" for none.
func callUser(ctx context.Context) (name string, inCall bool) {
	cc, ok := a2asrv.CallContextFrom(ctx)
	if !ok || cc.User == nil || !cc.User.Authenticated {
		return "", ok
	}
	return cc.User.Name, true
}

func validTask(t *a2a.Task) error {
	switch {
	case t == nil:
		return fmt.Errorf("task store: nil task: %w", a2a.ErrInvalidParams)
	case t.ID == "":
		return fmt.Errorf("task store: task without an id: %w", a2a.ErrInvalidParams)
	case t.ContextID == "":
		return fmt.Errorf("task store: task %s without a context id: %w", t.ID, a2a.ErrInvalidParams)
	}
	return nil
}

func encodeTask(t *a2a.Task) (*storedEntry, error) {
	if err := validTask(t); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(t); err != nil {
		return nil, fmt.Errorf("task store: encode task %s: %w", t.ID, err)
	}
	return &storedEntry{id: t.ID, raw: bytes.Clone(buf.Bytes()), contextID: t.ContextID, state: t.Status.State, statusAt: t.Status.Timestamp}, nil
}

func (e *storedEntry) size() int64 { return int64(len(e.raw)) + entryOverhead }

func (e *storedEntry) decode() (*a2a.Task, error) {
	var t a2a.Task
	if err := gob.NewDecoder(bytes.NewReader(e.raw)).Decode(&t); err != nil {
		return nil, fmt.Errorf("task store: decode task %s: %w", e.id, err)
	}
	return &t, nil
}

// Create stores a new task, owned by the call's user.
func (s *boundedStore) Create(ctx context.Context, task *a2a.Task) (taskstore.TaskVersion, error) {
	e, err := encodeTask(task)
	if err != nil {
		return taskstore.TaskVersionMissing, err
	}
	e.owner, _ = callUser(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.tasks[task.ID]; ok {
		return taskstore.TaskVersionMissing, taskstore.ErrTaskAlreadyExists
	}
	e.version = 1
	s.put(e)
	return e.version, nil
}

// Update replaces a stored task, refusing a stale PrevVersion.
func (s *boundedStore) Update(_ context.Context, req *taskstore.UpdateRequest) (taskstore.TaskVersion, error) {
	if req == nil {
		return taskstore.TaskVersionMissing, fmt.Errorf("task store: nil update: %w", a2a.ErrInvalidParams)
	}
	e, err := encodeTask(req.Task)
	if err != nil {
		return taskstore.TaskVersionMissing, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.tasks[e.id]
	if !ok {
		return taskstore.TaskVersionMissing, a2a.ErrTaskNotFound
	}
	if req.PrevVersion != taskstore.TaskVersionMissing && old.version != req.PrevVersion {
		return taskstore.TaskVersionMissing, taskstore.ErrConcurrentModification
	}
	e.version, e.owner = old.version+1, old.owner
	s.remove(old)
	s.put(e)
	return e.version, nil
}

// put stores e (not yet in the store) and evicts what the limits say. Called with mu held.
func (s *boundedStore) put(e *storedEntry) {
	e.updated = s.now()
	s.tasks[e.id] = e
	s.bytes += e.size()
	if e.state.Terminal() {
		e.elem = s.terminal.PushBack(e)
	}
	s.evict()
}

func (s *boundedStore) remove(e *storedEntry) {
	delete(s.tasks, e.id)
	s.bytes -= e.size()
	if e.elem != nil {
		s.terminal.Remove(e.elem)
		e.elem = nil
	}
}

// evict drops terminal tasks, least recently updated first, while one of the limits is
// exceeded. Called with mu held.
func (s *boundedStore) evict() {
	now := s.now()
	for front := s.terminal.Front(); front != nil; front = s.terminal.Front() {
		e := front.Value.(*storedEntry)
		over := s.terminal.Len() > s.maxCount || s.bytes > s.maxBytes || now.Sub(e.updated) > s.maxAge
		if !over {
			return
		}
		s.remove(e)
		s.evicted++
	}
}

// Get returns a stored task; a task another user owns is not found.
func (s *boundedStore) Get(ctx context.Context, id a2a.TaskID) (*taskstore.StoredTask, error) {
	s.mu.Lock()
	s.evict()
	e, ok := s.tasks[id]
	s.mu.Unlock()
	if !ok || !s.visible(ctx, e) {
		return nil, a2a.ErrTaskNotFound
	}
	t, err := e.decode()
	if err != nil {
		return nil, err
	}
	return &taskstore.StoredTask{Task: t, Version: e.version}, nil
}

// visible reports whether the call ctx belongs to may see e. Outside a call (a2a-go's
// own bookkeeping) every task is visible.
func (s *boundedStore) visible(ctx context.Context, e *storedEntry) bool {
	user, inCall := callUser(ctx)
	return !inCall || user == e.owner
}

// ListTasks defaults and bounds (A2A §3.1.4).
const (
	listDefaultPageSize = 50
	listMaxPageSize     = 100
	listMaxHistory      = 100
)

// List answers ListTasks: the call user's tasks, most recently updated first, filtered
// and paged as the request says.
func (s *boundedStore) List(ctx context.Context, req *a2a.ListTasksRequest) (*a2a.ListTasksResponse, error) {
	user, _ := callUser(ctx)
	if s.secured && user == "" {
		return nil, fmt.Errorf("ListTasks needs an authenticated user: the card declares a security scheme: %w", a2a.ErrUnauthenticated)
	}
	pageSize := req.PageSize
	switch {
	case pageSize == 0:
		pageSize = listDefaultPageSize
	case pageSize < 1 || pageSize > listMaxPageSize:
		return nil, fmt.Errorf("pageSize must be between 1 and %d, got %d: %w", listMaxPageSize, pageSize, a2a.ErrInvalidParams)
	}
	var cursor *pageCursor
	if req.PageToken != "" {
		c, err := decodePageToken(req.PageToken)
		if err != nil {
			return nil, err
		}
		cursor = &c
	}
	s.mu.Lock()
	s.evict()
	var match []*storedEntry
	for _, e := range s.tasks {
		if e.owner == user && listMatches(e, req) {
			match = append(match, e)
		}
	}
	s.mu.Unlock()
	slices.SortFunc(match, func(a, b *storedEntry) int {
		if c := b.updated.Compare(a.updated); c != 0 {
			return c
		}
		return strings.Compare(string(b.id), string(a.id))
	})
	total := len(match)
	if cursor != nil {
		i := slices.IndexFunc(match, cursor.after)
		if i < 0 {
			i = len(match)
		}
		match = match[i:]
	}
	next := ""
	if len(match) > pageSize {
		last := match[pageSize-1]
		next = encodePageToken(pageCursor{updated: last.updated, id: last.id})
		match = match[:pageSize]
	}
	tasks := make([]*a2a.Task, 0, len(match))
	for _, e := range match {
		t, err := e.decode()
		if err != nil {
			return nil, err
		}
		trimForList(t, req)
		tasks = append(tasks, t)
	}
	return &a2a.ListTasksResponse{Tasks: tasks, TotalSize: total, PageSize: pageSize, NextPageToken: next}, nil
}

func listMatches(e *storedEntry, req *a2a.ListTasksRequest) bool {
	switch {
	case req.ContextID != "" && e.contextID != req.ContextID:
		return false
	case req.Status != a2a.TaskStateUnspecified && e.state != req.Status:
		return false
	case req.StatusTimestampAfter != nil && e.statusAt != nil && e.statusAt.Before(*req.StatusTimestampAfter):
		return false
	}
	return true
}

// trimForList applies historyLength (default 100) and includeArtifacts (default false).
func trimForList(t *a2a.Task, req *a2a.ListTasksRequest) {
	n := listMaxHistory
	if req.HistoryLength != nil {
		n = *req.HistoryLength
	}
	switch {
	case n == 0:
		t.History = []*a2a.Message{}
	case n > 0 && len(t.History) > n:
		t.History = t.History[len(t.History)-n:]
	}
	if !req.IncludeArtifacts {
		t.Artifacts = nil
	}
}

// pageCursor is the last task of a page: the next page starts after it.
type pageCursor struct {
	updated time.Time
	id      a2a.TaskID
}

// after reports whether e comes after the cursor in list order (updated desc, id desc).
func (c pageCursor) after(e *storedEntry) bool {
	if cmp := e.updated.Compare(c.updated); cmp != 0 {
		return cmp < 0
	}
	return strings.Compare(string(e.id), string(c.id)) < 0
}

func encodePageToken(c pageCursor) string {
	return base64.RawURLEncoding.EncodeToString([]byte(c.updated.UTC().Format(time.RFC3339Nano) + "_" + string(c.id)))
}

var errPageToken = fmt.Errorf("pageToken is not one this server issued: %w", a2a.ErrInvalidParams)

func decodePageToken(tok string) (pageCursor, error) {
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		return pageCursor{}, errPageToken
	}
	at, id, ok := strings.Cut(string(raw), "_")
	if !ok || id == "" {
		return pageCursor{}, errPageToken
	}
	t, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		return pageCursor{}, errPageToken
	}
	return pageCursor{updated: t, id: a2a.TaskID(id)}, nil
}

// stats is what the store holds now (tests, logs).
type storeStats struct {
	tasks, terminal, evicted int
	bytes                    int64
}

func (s *boundedStore) stats() storeStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return storeStats{tasks: len(s.tasks), terminal: s.terminal.Len(), evicted: s.evicted, bytes: s.bytes}
}

// taskLimits are the bounded store's limits (WithTaskLimits).
type taskLimits struct {
	maxAge   time.Duration
	maxCount int
	maxBytes int64
}

func (l taskLimits) validate() error {
	if l.maxAge <= 0 || l.maxCount <= 0 || l.maxBytes <= 0 {
		return errorf("task limits must be positive (age %v, count %d, bytes %d)", l.maxAge, l.maxCount, l.maxBytes)
	}
	return nil
}
