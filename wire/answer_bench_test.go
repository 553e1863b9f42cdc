package wire_test

import (
	"testing"

	"github.com/a2abind/a2abind/wire"
)

// BenchmarkReadAnswer reads the answers a warm probe of a healthy agent reads: a
// JSON-RPC TaskNotFound and an HTTP+JSON google.rpc.Status TASK_NOT_FOUND, both with
// an ErrorInfo, and a v0.3 flat error (the last shape ReadAnswer knows).
func BenchmarkReadAnswer(b *testing.B) {
	for _, c := range []struct{ name, contentType, body string }{
		{"jsonrpc", "application/json", `{"jsonrpc":"2.0","id":"4f6c0b1e-2f1c-4bb4-a1c2-3d7a9c0e5f11","error":{"code":-32001,"message":"task not found","data":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org","metadata":{"taskId":"4f6c0b1e-2f1c-4bb4-a1c2-3d7a9c0e5f11"}}]}}`},
		{"status", "application/json", `{"error":{"code":404,"status":"NOT_FOUND","message":"failed to get task: task not found","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org","metadata":{"taskId":"4f6c0b1e-2f1c-4bb4-a1c2-3d7a9c0e5f11"}}]}}`},
		{"flat", "application/json", `{"code":-32001,"message":"Task not found: 4f6c0b1e-2f1c-4bb4-a1c2-3d7a9c0e5f11"}`},
	} {
		body := []byte(c.body)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if wire.ReadAnswer(c.contentType, body).Code == 0 {
					b.Fatal("no error code read")
				}
			}
		})
	}
}
