package delegate

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"testing"

	a2apbv0 "github.com/a2aproject/a2a-go/a2apb"

	"github.com/a2abind/a2abind/internal/restv03"
)

// FuzzRESTV03Events: the event reader of the v0.3 HTTP+JSON client reads any answer
// body (Server-Sent Events in either dialect, error events, garbage) without a panic, ends
// with io.EOF or an error, and yields no more messages than the body has lines.
func FuzzRESTV03Events(f *testing.F) {
	f.Add([]byte("data: {\"task\":{\"id\":\"t\",\"contextId\":\"c\",\"status\":{\"state\":\"TASK_STATE_WORKING\"}}}\n\n"))
	f.Add([]byte("data: {\"statusUpdate\":{\"taskId\":\"t\"}}\n\ndata: {\"code\":-32001,\"message\":\"nope\"}\n\n"))
	f.Add([]byte("data: {\"msg\":\ndata: {\"messageId\":\"m\",\"role\":\"ROLE_AGENT\",\"content\":[{\"text\":\"hi\"}]}}\n\n"))
	f.Add([]byte("data: {\"kind\":\"status-update\",\"task_id\":\"t\",\"status\":{\"state\":\"working\"}}\n\n"))
	f.Add([]byte(": comment\n\nevent: x\ndata:\n\n"))
	f.Add([]byte("data: {"))
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, d := range []restv03.Dialect{restv03.Spec, restv03.A2AGo} {
			s := &restV03Stream{conn: &restV03Conn{dialect: d}, resp: &http.Response{Body: io.NopCloser(bytes.NewReader(body))}}
			s.events = bufio.NewScanner(s.resp.Body)
			s.events.Buffer(make([]byte, 0, 1024), maxRESTV03Answer)
			lines := bytes.Count(body, []byte("\n")) + 1 // every message takes a data line
			for n := 0; ; n++ {
				if n > lines {
					t.Fatalf("read %d messages from %d lines", n, lines)
				}
				if err := s.RecvMsg(&a2apbv0.StreamResponse{}); err != nil {
					break
				}
			}
		}
	})
}
