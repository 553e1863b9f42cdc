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

// jsonReaders are the files that may read JSON token by token or validate it apart
// from decoding it, each with the reason. Every other reading of a card document goes
// through card.Parse (card/reader.go, on jsontext); a second reader of a signed
// document (json.Valid, encoding/json's Decoder.Token, a scanner of its own) is a
// parser differential waiting to happen (issue 46).
var jsonReaders = map[string]string{
	"card/reader.go":                        "the one exact reader of card documents and protected headers",
	"card/jsonobj.go":                       "DecodeObject, the order-preserving editor, on jsontext",
	"signature/canonical.go":                "canonical forms of a signed card (to switch to jsontext's Canonicalize)",
	"wire/jsonscan.go":                      "answer envelopes and ErrorInfo details, on jsontext",
	"internal/accesslog/accesslog.go":       "a JSON-RPC request's method from its first bytes, on jsontext",
	"probe/httpjson.go":                     "whether an HTTP+JSON answer body is JSON at all",
	"internal/bench/fleetbench/sdmemory.go": "a benchmark tool's service discovery answer",
}

// TestOneJSONReader fails when a non-test file outside jsonReaders reads JSON token by
// token (json.Valid, Decoder.Token, json.NewDecoder, jsontext.NewDecoder) or brings
// back a scanner of its own (internal/jsontext, a StringEnd), and when an entry of
// jsonReaders no longer does.
func TestOneJSONReader(t *testing.T) {
	reader := regexp.MustCompile(`json\.Valid\(|\.Token\(\)|json\.NewDecoder\(|jsontext\.NewDecoder\(|new\(jsontext\.Decoder\)|a2abind/internal/jsontext"|func StringEnd\(`)
	seen := map[string]bool{}
	moduleGoFiles(t, func(path string, src []byte) {
		if strings.HasPrefix(path, "deploy/") {
			return
		}
		_, allowed := jsonReaders[path]
		seen[path] = allowed
		for n, line := range strings.Split(string(src), "\n") {
			if reader.MatchString(line) && !allowed {
				t.Errorf("%s:%d reads JSON beside the one reader (%s): parse cards with card.Parse, other JSON with encoding/json, or add the file to jsonReaders saying why",
					path, n+1, reader.FindString(line))
			}
		}
		if allowed && !reader.Match(src) {
			t.Errorf("jsonReaders lists %s, which reads no JSON token by token now: remove the entry", path)
		}
	})
	if !seen["card/reader.go"] {
		t.Fatal("card/reader.go not seen: is the walk rooted at the module?")
	}
}
