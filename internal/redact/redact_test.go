package redact

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

const token = "tok-9f8e7d6c5b4a<&>\"q"

// TestSecretsHideEveryForm: a configured header value, its token alone, and the forms a
// server or a2abind's own rendering give it back in are all hidden.
func TestSecretsHideEveryForm(t *testing.T) {
	h := http.Header{"Authorization": {"Bearer " + token}, "X-Basic": {"Basic " + base64.StdEncoding.EncodeToString([]byte("alice:pa55word-x"))}}
	s := New(h, "https://bob:hunter2-pw@agent.example/x?api_key=K3y-v4lue&page=2&X-Amz-Signature=5ig-abcdef")
	jsonForm, _ := json.Marshal(token)
	for name, text := range map[string]string{
		"header":        "got Authorization: Bearer " + token,
		"token alone":   "token " + token + " refused",
		"json":          `{"error":` + string(jsonForm) + `}`,
		"go quoted":     "body " + strconv.Quote("auth="+token),
		"query escaped": "redirect to /x?t=" + url.QueryEscape(token),
		"path escaped":  "/p/" + url.PathEscape(token),
		"basic":         "Basic " + base64.StdEncoding.EncodeToString([]byte("alice:pa55word-x")),
		"basic decoded": "user alice:pa55word-x",
		"password":      "pass pa55word-x",
		"userinfo":      "https://bob:hunter2-pw@agent.example/",
		"userinfo b64":  base64.StdEncoding.EncodeToString([]byte("bob:hunter2-pw")),
		"query":         "key K3y-v4lue",
		"signature":     "sig 5ig-abcdef",
		"cut":           `"...Bearer ` + token[:len(token)/2+2],
	} {
		got := s.String(text)
		for _, secret := range []string{token, token[:len(token)/2+2], "pa55word-x", "hunter2-pw", "K3y-v4lue", "5ig-abcdef",
			base64.StdEncoding.EncodeToString([]byte("alice:pa55word-x")), base64.StdEncoding.EncodeToString([]byte("bob:hunter2-pw"))} {
			if strings.Contains(got, secret) {
				t.Errorf("%s: %q still shows %q", name, got, secret)
			}
		}
		if !strings.Contains(got, Mark) {
			t.Errorf("%s: %q: nothing hidden", name, got)
		}
	}
	if got := s.String("page=2 Bearer, alice"); got != "page=2 Bearer, alice" {
		t.Errorf("text without secrets changed: %q", got)
	}
}

// TestShortValuesStay: values shorter than MinLen are not searched for.
func TestShortValuesStay(t *testing.T) {
	s := New(http.Header{"A2A-Version": {"1.0"}, "X-Mode": {"json"}})
	if !s.Empty() {
		t.Errorf("short values kept: %v", s.values)
	}
	if got := s.String(`{"jsonrpc":"2.0"}`); got != `{"jsonrpc":"2.0"}` {
		t.Errorf("got %q", got)
	}
	var none *Secrets
	if none.String("x") != "x" || !none.Empty() {
		t.Error("nil Secrets changed text")
	}
}

func TestURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://u:p@h.example/a?AWSAccessKeyId=A&Signature=S&sig=x&X-Goog-Signature=g&keep=1": "https://REDACTED:REDACTED@h.example/a?AWSAccessKeyId=REDACTED&Signature=REDACTED&sig=REDACTED&X-Goog-Signature=REDACTED&keep=1",
		"https://token@h.example/":           "https://REDACTED:REDACTED@h.example/",
		"http://h.example/a%2Fb?api_key=1#f": "http://h.example/a%2Fb?api_key=REDACTED#f",
		"http://h.example/?page=2&q=a+b":     "http://h.example/?page=2&q=a+b",
		"agent-card.json":                    "agent-card.json",
		"http://h.example/?x=%zz":            "http://h.example/?x=%zz",
	} {
		if got := URL(in); got != want {
			t.Errorf("URL(%q) = %q, want %q", in, got, want)
		}
	}
}

func ExampleSecrets_String() {
	s := New(http.Header{"Authorization": {"Bearer s3cr3t-t0ken"}})
	fmt.Println(s.String(`401: {"error":"bad credentials: Bearer s3cr3t-t0ken"}`))
	fmt.Println(URL("https://user:pw@agent.example/card?sig=abc&page=1"))
	// Output:
	// 401: {"error":"bad credentials: REDACTED"}
	// https://REDACTED:REDACTED@agent.example/card?sig=REDACTED&page=1
}
