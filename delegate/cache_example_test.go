package delegate_test

import (
	"context"
	"fmt"
	"os"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/delegate"
	"github.com/a2abind/a2abind/lab"
)

// ExampleWithCacheDir runs two clients, as two processes would, on one cache directory
// against the seed agent: the first pays one failed attempt, the second none.
func ExampleWithCacheDir() {
	seed, err := lab.Start(lab.Seed()...)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer seed.Close()
	dir, err := os.MkdirTemp("", "a2abind-cache-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir) // in real use: delegate.DefaultCacheDir()

	for run := 1; run <= 2; run++ {
		ctx := context.Background()
		c, err := delegate.New(ctx, seed.BaseURL, delegate.WithCache(delegate.NewCache(delegate.WithCacheDir(dir))))
		if err != nil {
			fmt.Println(err)
			return
		}
		var tr delegate.Trace
		_, err = c.SendMessage(delegate.WithTrace(ctx, &tr), &a2a.SendMessageRequest{
			Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hello"))})
		_ = c.Close()
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("run %d: %d attempt(s), answered by %s\n", run, len(tr.Attempts()), tr.Attempts()[len(tr.Attempts())-1].Interface.Binding)
	}
	// Output:
	// run 1: 2 attempt(s), answered by JSONRPC
	// run 2: 1 attempt(s), answered by JSONRPC
}
