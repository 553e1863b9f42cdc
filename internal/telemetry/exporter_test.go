package telemetry

import (
	"fmt"
	"reflect"
	"testing"

	"go.opentelemetry.io/contrib/exporters/autoexport"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// TestSpanExporterChosenAsAutoexport: newSpanExporter makes the choice contrib's
// autoexport makes from the same variables (exporter type, or error text), without
// linking autoexport into the binary.
func TestSpanExporterChosenAsAutoexport(t *testing.T) {
	for _, env := range []map[string]string{
		{},
		{"OTEL_TRACES_EXPORTER": "otlp"},
		{"OTEL_TRACES_EXPORTER": "console"},
		{"OTEL_TRACES_EXPORTER": "none"},
		{"OTEL_TRACES_EXPORTER": "zipkin"},
		{"OTEL_TRACES_EXPORTER": "Console"},
		{"OTEL_TRACES_EXPORTER": "otlp,console"},
		{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
		{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"},
		{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"},
		{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf"},
		{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "grpc"},
		{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "GRPC"},
	} {
		t.Run(fmt.Sprint(env), func(t *testing.T) {
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1") // nothing is sent: no span is made
			for _, k := range []string{EnvTracesExporter, "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"} {
				t.Setenv(k, env[k])
			}
			want, wantErr := autoexport.NewSpanExporter(t.Context())
			got, err := newSpanExporter(t.Context())
			if fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("error %v, autoexport's %v", err, wantErr)
			}
			wantType := exporterType(want)
			if autoexport.IsNoneSpanExporter(want) {
				wantType = "<nil>"
			}
			if gotType := exporterType(got); gotType != wantType {
				t.Errorf("exporter %s, autoexport's %s", gotType, wantType)
			}
			for _, e := range []sdktrace.SpanExporter{want, got} {
				if e != nil {
					_ = e.Shutdown(t.Context())
				}
			}
		})
	}
}

// exporterType is e's type and, for an OTLP exporter, its client's (gRPC or HTTP).
func exporterType(e sdktrace.SpanExporter) string {
	if e == nil {
		return "<nil>"
	}
	v := reflect.ValueOf(e)
	if v.Kind() == reflect.Pointer && v.Elem().Kind() == reflect.Struct {
		if c := v.Elem().FieldByName("client"); c.IsValid() && !c.IsNil() {
			return fmt.Sprintf("%s(%s)", v.Type(), c.Elem().Type())
		}
	}
	return v.Type().String()
}
