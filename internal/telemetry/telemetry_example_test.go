package telemetry_test

import (
	"context"
	"fmt"
	"net/http"

	"go.opentelemetry.io/otel/trace"

	"github.com/a2abind/a2abind/internal/telemetry"
)

// A command sets tracing up from OTEL_* before it runs and flushes (at most 2 s) when
// it ends; its calls start spans and carry their trace context to the agent.
func ExampleSetup() {
	ctx := context.Background()
	tel, err := telemetry.Setup(ctx)
	if err != nil {
		fmt.Println("tracing off:", err)
	}
	defer tel.Shutdown(ctx)

	ctx, span := telemetry.Start(ctx, "GetTask", trace.SpanKindClient)
	defer span.End()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1:1/", nil)
	telemetry.InjectHTTP(ctx, req.Header) // traceparent, when tracing is on
	fmt.Println("tracing on:", tel.Enabled())
}
