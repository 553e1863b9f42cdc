package card_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/a2abind/a2abind/card"
)

// TestReadErrorsSayWhere: every error of the reader names its place as a JSON Pointer
// and a byte offset (issue 46), and a repeated or stray member its JSON path too.
func TestReadErrorsSayWhere(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`{"name":"a","supportedInterfaces":[{"url":"x","url":"y"}]}`, `appears twice in one object: JSON parsers disagree on which copy wins (protojson rejects the card) (JSON Pointer "/supportedInterfaces/0/url", byte 46)`},
		{`{"name":"a","x":{"a~/b":1,"a~/b":2}}`, `(JSON Pointer "/x/a~0~1b", byte 26)`},
		{`{"name":"a","supportedInterfaces":[{"url":5}]}`, `expected a string, found JSON number (JSON Pointer "/supportedInterfaces/0/url", byte 42)`},
		{`{"name":"a","skills":[1,}`, `(JSON Pointer "/skills", byte 23)`},
		{`{"name":"a"} x`, `invalid JSON at line 1, column 14: invalid character 'x' after top-level value (JSON Pointer "", byte 13)`},
		{`{"name":"a",`, `truncated JSON: the document ends at line 1, column 13 before the card is complete (byte 12)`},
	} {
		_, err := card.Parse([]byte(tc.doc))
		if !errors.Is(err, card.ErrMalformed) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%s) = %v, want an error containing %s", tc.doc, err, tc.want)
		}
	}
	c, err := card.Parse([]byte(`{"name":"a","supportedInterfaces":[{"URL":"x"}]}`))
	if err != nil || len(c.ReadIssues()) != 1 {
		t.Fatalf("Parse() = %v, %v", c, err)
	}
	if e := c.ReadIssues()[0]; e.Path != "supportedInterfaces[0].URL" || e.Pointer != "/supportedInterfaces/0/URL" || e.Offset != 36 ||
		!strings.HasSuffix(e.Error(), `(JSON Pointer "/supportedInterfaces/0/URL", byte 36)`) {
		t.Errorf("stray member: %+v, %v", e, e)
	}
}
