package delegate_test

import (
	"context"
	"fmt"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/a2abind/a2abind/delegate"
	"github.com/a2abind/a2abind/lab"
)

// ExampleWithTracerProvider traces a call with the caller's own tracer provider: one
// span for the call, one client span per attempt named after the A2A method, each with
// its interface and outcome.
func ExampleWithTracerProvider() {
	agent, err := lab.Start(lab.Healthy()...)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer agent.Close()
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	defer func() { _ = tp.Shutdown(context.Background()) }()

	ctx := context.Background()
	c, err := delegate.New(ctx, agent.BaseURL, delegate.WithTracerProvider(tp))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	if _, err := c.SendMessage(ctx, &a2a.SendMessageRequest{
		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hello"))}); err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range spans.Ended() {
		attrs := map[string]string{}
		for _, kv := range s.Attributes() {
			attrs[string(kv.Key)] = kv.Value.String()
		}
		fmt.Println(s.Name(), attrs["a2a.method.name"], attrs["a2abind.binding"], attrs["a2abind.outcome"])
	}
	// Output:
	// SendMessage SendMessage JSONRPC served
	// a2abind.delegate SendMessage  served
}
