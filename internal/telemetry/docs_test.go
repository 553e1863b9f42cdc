package telemetry_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/delegate"
	"github.com/a2abind/a2abind/guard"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/server"
)

// TestDocsListEverySpanAndAttribute keeps docs/telemetry.md in step with the code:
// every attribute key of attrs.go and every span name is listed there.
func TestDocsListEverySpanAndAttribute(t *testing.T) {
	doc, err := os.ReadFile("../../docs/telemetry.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("attrs.go")
	if err != nil {
		t.Fatal(err)
	}
	keys := regexp.MustCompile(`attribute\.Key\("([^"]+)"\)`).FindAllStringSubmatch(string(src), -1)
	if len(keys) < 10 {
		t.Fatalf("found %d attribute keys in attrs.go: the pattern is stale", len(keys))
	}
	names := []string{probe.SpanTarget, probe.SpanInterface, card.SpanFetch, "GetTask", "tasks/get",
		delegate.SpanCall, delegate.EventFallback, server.SpanSelfCheck, guard.SpanRound,
		"a2abind.send"} // the root span of send (internal/cli)
	for _, k := range keys {
		names = append(names, k[1])
	}
	for _, n := range names {
		if !strings.Contains(string(doc), "`"+n+"`") {
			t.Errorf("docs/telemetry.md does not list `%s`", n)
		}
	}
}
