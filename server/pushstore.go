package server

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/push"

	"github.com/a2abind/a2abind/addr"
)

// Bounds of NewPushConfigStore.
const (
	// DefaultPushMaxConfigs is how many push configs the store keeps in all.
	DefaultPushMaxConfigs = 10_000
	// DefaultPushMaxPerTask is how many push configs one task may have.
	DefaultPushMaxPerTask = 16
	// DefaultPushMaxConfigBytes bounds one push config, JSON-encoded.
	DefaultPushMaxConfigBytes = 8 << 10
)

// boundedPushStore is a2a-go's in-memory push config store with its memory bounded: a
// config beyond DefaultPushMaxConfigBytes, beyond DefaultPushMaxPerTask for its task or
// beyond DefaultPushMaxConfigs in all is refused with InvalidParams naming the bound; so
// is a webhook the dial policy refuses.
type boundedPushStore struct {
	policy   *addr.DialPolicy
	maxTotal int        // DefaultPushMaxConfigs; smaller in the package's tests
	mu       sync.Mutex // serializes the count with the store's own operations
	inner    *push.InMemoryPushConfigStore
	total    int
}

// NewPushConfigStore returns a2a-go's in-memory push config store
// (push.NewInMemoryStore) with its memory bounded: a config larger than
// DefaultPushMaxConfigBytes (JSON), a task's config beyond DefaultPushMaxPerTask and any
// config beyond DefaultPushMaxConfigs are refused with A2A InvalidParams naming the bound,
// and so is a webhook URL policy refuses by the URL alone (nil: the default policy; pass
// the NewPushSender's). Pass it with a push.Sender to WithPushNotifications.
func NewPushConfigStore(policy *addr.DialPolicy) push.ConfigStore {
	return &boundedPushStore{policy: policy, maxTotal: DefaultPushMaxConfigs, inner: push.NewInMemoryStore()}
}

// Save stores a config within the bounds; replacing a config of the same id is always
// allowed.
func (s *boundedPushStore) Save(ctx context.Context, taskID a2a.TaskID, config *a2a.PushConfig) (*a2a.PushConfig, error) {
	if b, err := json.Marshal(config); err == nil && len(b) > DefaultPushMaxConfigBytes {
		return nil, fmt.Errorf("%w: a push config may take at most %d bytes, this one takes %d", a2a.ErrInvalidParams, DefaultPushMaxConfigBytes, len(b))
	}
	if config != nil {
		if err := checkWebhook(s.policy, config.URL); err != nil {
			return nil, fmt.Errorf("%w: the push config's webhook is not one this agent calls: %v", a2a.ErrInvalidParams, err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	replaces := false
	if config != nil && config.ID != "" {
		_, err := s.inner.Get(ctx, taskID, config.ID)
		replaces = err == nil
	}
	if !replaces {
		list, err := s.inner.List(ctx, taskID)
		if err != nil {
			return nil, err
		}
		switch {
		case len(list) >= DefaultPushMaxPerTask:
			return nil, fmt.Errorf("%w: task %s has %d push configs, the most one task may have; delete one first", a2a.ErrInvalidParams, taskID, len(list))
		case s.total >= s.maxTotal:
			return nil, fmt.Errorf("%w: the agent keeps at most %d push configs and has no room for another", a2a.ErrInvalidParams, s.maxTotal)
		}
	}
	saved, err := s.inner.Save(ctx, taskID, config)
	if err == nil && !replaces {
		s.total++
	}
	return saved, err
}

// Get returns a stored config.
func (s *boundedPushStore) Get(ctx context.Context, taskID a2a.TaskID, configID string) (*a2a.PushConfig, error) {
	return s.inner.Get(ctx, taskID, configID)
}

// List returns a task's configs.
func (s *boundedPushStore) List(ctx context.Context, taskID a2a.TaskID) ([]*a2a.PushConfig, error) {
	return s.inner.List(ctx, taskID)
}

// Delete removes one config.
func (s *boundedPushStore) Delete(ctx context.Context, taskID a2a.TaskID, configID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.inner.Get(ctx, taskID, configID); err == nil {
		s.total--
	}
	return s.inner.Delete(ctx, taskID, configID)
}

// DeleteAll removes a task's configs.
func (s *boundedPushStore) DeleteAll(ctx context.Context, taskID a2a.TaskID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	list, err := s.inner.List(ctx, taskID)
	if err != nil {
		return err
	}
	s.total -= len(list)
	return s.inner.DeleteAll(ctx, taskID)
}
