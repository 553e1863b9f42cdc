package cli

import (
	"errors"
	"strconv"

	"go.opentelemetry.io/otel/trace"

	"github.com/a2abind/a2abind/internal/telemetry"
)

// spanSend is the root span of a send run (docs/telemetry.md).
const spanSend = "a2abind.send"

// endSpan ends a command's root span with the command's result: its exit code and,
// for a failure, the error's first line as the status.
func endSpan(span trace.Span, err error) {
	code := ExitOK
	var ee *exitError
	switch {
	case errors.As(err, &ee):
		code = ee.code
	case err != nil:
		code = ExitFailed
	}
	if span.IsRecording() {
		span.SetAttributes(telemetry.ExitCode.Int(code))
		if code != ExitOK {
			telemetry.Fail(span, "exit_"+strconv.Itoa(code), firstLine(err.Error())) // "exit N" when the command printed its result
		}
	}
	span.End()
}
