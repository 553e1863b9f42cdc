package card_test

import (
	"regexp"
	"strings"
	"testing"
)

// TestOneCardReader keeps card.Parse the one reader of card documents (issue 17): no
// non-test file outside package card decodes a document into an AgentCard type (a2a-go's,
// its proto message, or a hand-written struct with the card's member names), since
// encoding/json would read "URL" as "url" and a repeated member as its last copy.
// lint, probe, send, serve and guard all get their cards from card.Parse or card.Load.
func TestOneCardReader(t *testing.T) {
	decode := regexp.MustCompile(`(json\.Unmarshal|\.Decode|protojson\.Unmarshal|UnmarshalOptions\{[^}]*\}\.Unmarshal)\(`)
	cardType := regexp.MustCompile(`\b(a2a|a2apb|a2av0)\.(AgentCard|AgentInterface)\b|new\((a2a|a2apb)\.AgentCard\)`)
	cardTags := regexp.MustCompile("json:\"(supportedInterfaces|preferredTransport|additionalInterfaces|protocolBinding)[\",]")
	checked := 0
	moduleGoFiles(t, func(path string, src []byte) {
		if strings.HasPrefix(path, "card/") {
			return
		}
		checked++
		for n, line := range strings.Split(string(src), "\n") {
			if cardTags.MatchString(line) {
				t.Errorf("%s:%d declares a card struct of its own (%s): read cards with card.Parse", path, n+1, strings.TrimSpace(line))
			}
			if decode.MatchString(line) && cardType.MatchString(line) {
				t.Errorf("%s:%d decodes a card outside package card: %s", path, n+1, strings.TrimSpace(line))
			}
		}
		// A variable of a card type decoded on a later line.
		for _, m := range regexp.MustCompile(`var (\w+) (a2a|a2apb|a2av0)\.AgentCard\b`).FindAllStringSubmatch(string(src), -1) {
			if regexp.MustCompile(`(Unmarshal|Decode)\([^)]*&` + m[1] + `\b`).MatchString(string(src)) {
				t.Errorf("%s decodes a card into %s outside package card", path, m[1])
			}
		}
	})
	if checked < 50 {
		t.Fatalf("checked only %d files: is the walk rooted at the module?", checked)
	}
}
