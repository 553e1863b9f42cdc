package probe

import (
	"context"
	"errors"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestWithinBudgetKeepsTheBudget: a gRPC lookup's context has no deadline (no
// grpc-timeout is sent), keeps the values of the lookup's context, and still ends
// when the budget does, with the budget's cause.
func TestWithinBudgetKeepsTheBudget(t *testing.T) {
	type key struct{}
	budget, cancel := context.WithTimeout(context.WithValue(context.Background(), key{}, "v"), 20*time.Millisecond)
	defer cancel()
	err := withinBudget(budget, func(c context.Context) error {
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
		return status.FromContextError(c.Err()).Err() // what grpc-go answers a cancelled call
	})
	if !errors.Is(budget.Err(), context.DeadlineExceeded) {
		t.Fatalf("budget: %v", budget.Err())
	}
	if status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("a call its budget ended reads %v, want DeadlineExceeded", err)
	}
}

// TestWithinBudgetStopReleases: once the call returns, its context is cancelled at
// once, while the budget is still live.
func TestWithinBudgetStopReleases(t *testing.T) {
	budget, cancel := context.WithCancel(context.Background())
	defer cancel()
	var c context.Context
	if err := withinBudget(budget, func(ctx context.Context) error { c = ctx; return nil }); err != nil {
		t.Fatal(err)
	}
	if c.Err() == nil {
		t.Fatal("stopped, the call's context is still live")
	}
}
