package probe

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestUnboundedKeepsTheBudget: a gRPC lookup's context has no deadline (no
// grpc-timeout is sent), keeps the values of the lookup's context, and still ends
// when the budget does, with the budget's cause.
func TestUnboundedKeepsTheBudget(t *testing.T) {
	type key struct{}
	budget, cancel := context.WithTimeout(context.WithValue(context.Background(), key{}, "v"), 20*time.Millisecond)
	defer cancel()
	c, stop := unbounded(budget)
	defer stop()
	if _, ok := c.Deadline(); ok {
		t.Fatal("the call's context has a deadline: grpc-go would send grpc-timeout")
	}
	if c.Value(key{}) != "v" {
		t.Fatal("the call's context lost the lookup's values")
	}
	select {
	case <-c.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the call's context outlived its budget")
	}
	if !errors.Is(budget.Err(), context.DeadlineExceeded) {
		t.Fatalf("budget: %v", budget.Err())
	}
}

// TestUnboundedStopReleases: stopping the call's context cancels it at once, while
// the budget is still live.
func TestUnboundedStopReleases(t *testing.T) {
	budget, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, stop := unbounded(budget)
	stop()
	if c.Err() == nil {
		t.Fatal("stopped, the call's context is still live")
	}
}
