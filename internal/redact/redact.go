// Package redact is a2abind's one home for keeping secrets out of what it shows: the
// values of the headers a user configured (-H, an exporter module's headers), the
// user:password of a URL and the values of its secret-looking query parameters
// (SensitiveKeys). Whatever the network sends back (a body, a header, an error message,
// a redirect's Location), the text a2abind turns into output (reports, JSON, debug
// pages, logs, span status and attributes) goes through a Secrets first. Other packages
// call it; none looks for secrets itself.
package redact

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Mark is what a secret is replaced with.
const Mark = "REDACTED"

// MinLen is the length below which a value is not searched for: shorter ones are too
// common in text to replace safely ("1", "json"), and no credential worth hiding.
const MinLen = 6

// minCut is the shortest start of a secret hidden when the rest is cut off.
const minCut = 8

// SensitiveKeys are the query parameters whose values are secrets, compared without
// case: those the OpenTelemetry url.full convention names (AWSAccessKeyId, Signature,
// sig, X-Goog-Signature), the other signed-URL ones, and the usual names of API keys,
// tokens and passwords.
var SensitiveKeys = []string{
	"AWSAccessKeyId", "Signature", "sig", "X-Goog-Signature", "X-Goog-Credential",
	"X-Amz-Signature", "X-Amz-Credential", "X-Amz-Security-Token",
	"api_key", "apikey", "api-key", "key", "token", "access_token", "refresh_token",
	"id_token", "auth", "secret", "client_secret", "password", "passwd",
}

// Sensitive reports whether a query parameter's values are secrets.
func Sensitive(key string) bool {
	return slices.ContainsFunc(SensitiveKeys, func(k string) bool { return strings.EqualFold(k, key) })
}

// Secrets is a set of secret strings, each also found in the forms the network may
// give it back in: alone after its auth scheme ("Bearer "), JSON- and Go-quoted,
// URL-escaped, and user:password in base64 (Basic). The zero value and nil hide nothing.
type Secrets struct {
	values []string // every form, longest first
	once   sync.Once
	r      *strings.Replacer
}

// New is the secrets of the header values h carries and of the URLs' user:password and
// sensitive query values.
func New(h http.Header, urls ...string) *Secrets {
	var s Secrets
	for _, vs := range h {
		for _, v := range vs {
			s.addHeaderValue(v)
		}
	}
	for _, raw := range urls {
		s.addURL(raw)
	}
	return &s
}

// Join is the union of a and b (either may be nil).
func Join(a, b *Secrets) *Secrets {
	if a.Empty() {
		return b
	}
	if b.Empty() {
		return a
	}
	s := &Secrets{}
	for _, v := range append(slices.Clone(a.values), b.values...) {
		s.add(v)
	}
	return s
}

// Empty reports whether s hides nothing.
func (s *Secrets) Empty() bool { return s == nil || len(s.values) == 0 }

// String is text with every secret of s replaced by Mark.
func (s *Secrets) String(text string) string {
	if s.Empty() {
		return text
	}
	s.once.Do(func() {
		pairs := make([]string, 0, 2*len(s.values))
		for _, v := range s.values {
			pairs = append(pairs, v, Mark)
		}
		s.r = strings.NewReplacer(pairs...)
	})
	return s.cut(s.r.Replace(text))
}

// cut hides what is left of a secret that text has only the start of: a body snippet,
// a clipped error message or label cut inside it. A start counts from half the secret
// and at least minCut bytes, in forms without a space ("Bearer " alone is no secret).
func (s *Secrets) cut(text string) string {
	for _, v := range s.values {
		n := max(minCut, (len(v)+1)/2)
		if len(v) <= n || strings.Contains(v, " ") {
			continue
		}
		for i := 0; ; {
			j := strings.Index(text[i:], v[:n])
			if j < 0 {
				break
			}
			j += i
			k := n
			for j+k < len(text) && k < len(v) && text[j+k] == v[k] {
				k++
			}
			text = text[:j] + Mark + text[j+k:]
			i = j + len(Mark)
		}
	}
	return text
}

func (s *Secrets) addHeaderValue(v string) {
	v = strings.TrimSpace(v)
	s.addForms(v)
	scheme, cred, ok := strings.Cut(v, " ")
	if !ok {
		return
	}
	cred = strings.TrimSpace(cred)
	s.addForms(cred)
	if strings.EqualFold(scheme, "Basic") {
		if b, err := base64.StdEncoding.DecodeString(cred); err == nil {
			user, pass, _ := strings.Cut(string(b), ":")
			s.addUserinfo(user, pass)
		}
	}
}

func (s *Secrets) addURL(raw string) {
	// Not addr.ParseAddress: any URL text is read here for its userinfo and query, not
	// an interface address to dial (TestAddressModelHasOneHome allows this file).
	u, err := url.Parse(raw)
	if err != nil {
		return
	}
	if u.User != nil {
		pass, _ := u.User.Password()
		s.addUserinfo(u.User.Username(), pass)
	}
	for k, vs := range u.Query() {
		if Sensitive(k) {
			for _, v := range vs {
				s.addForms(v)
			}
		}
	}
}

// addUserinfo adds user:password and the password, in the clear and as Basic's
// base64; a user alone (a token as the user name) is a secret itself.
func (s *Secrets) addUserinfo(user, pass string) {
	pair := user + ":" + pass
	if pass == "" {
		pair = user
	}
	s.addForms(pair)
	s.addForms(pass)
	s.add(base64.StdEncoding.EncodeToString([]byte(user + ":" + pass)))
}

// addForms adds v and the forms it takes when quoted or escaped.
func (s *Secrets) addForms(v string) {
	if len(v) < MinLen {
		return
	}
	s.add(v)
	q := strconv.Quote(v)
	s.add(q[1 : len(q)-1])
	if j, err := json.Marshal(v); err == nil { // HTML-safe: <, >, & as \u003c
		s.add(string(j[1 : len(j)-1]))
	}
	s.add(strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v)) // JSON without HTML escaping
	s.add(url.QueryEscape(v))
	s.add(url.PathEscape(v))
}

func (s *Secrets) add(v string) {
	if len(v) < MinLen || slices.Contains(s.values, v) {
		return
	}
	i, _ := slices.BinarySearchFunc(s.values, v, func(a, b string) int { return len(b) - len(a) })
	s.values = slices.Insert(s.values, i, v)
}

// URL is raw as the OpenTelemetry url.full convention records it: user:password@ as
// REDACTED:REDACTED@ and the values of the SensitiveKeys query parameters as REDACTED.
// What does not parse as a URL is returned as it is.
func URL(raw string) string {
	// Not addr.ParseAddress: the URL is rewritten for output, never dialled.
	u, err := url.Parse(raw)
	if err != nil || (u.User == nil && u.RawQuery == "") {
		return raw
	}
	changed := u.User != nil
	if changed {
		u.User = url.UserPassword(Mark, Mark)
	}
	parts := strings.Split(u.RawQuery, "&")
	for i, p := range parts {
		k, _, ok := strings.Cut(p, "=")
		if uk, err := url.QueryUnescape(k); err == nil && ok && Sensitive(uk) {
			parts[i], changed = k+"="+Mark, true
		}
	}
	if !changed {
		return raw
	}
	u.RawQuery = strings.Join(parts, "&")
	return u.String()
}

// Writer writes to w what s.String leaves of each write. Each write is redacted on its
// own: callers write a secret whole (a line, an encoded JSON value).
type Writer struct {
	W io.Writer
	S *Secrets
}

func (w Writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(w.W, w.S.String(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

type ctxKey struct{}

// NewContext returns ctx carrying s together with the secrets ctx already carries: the
// spans started under it (telemetry.Start) hide them.
func NewContext(ctx context.Context, s *Secrets) context.Context {
	if s.Empty() {
		return ctx
	}
	return context.WithValue(ctx, ctxKey{}, Join(FromContext(ctx), s))
}

// FromContext is the secrets ctx carries (nil: none).
func FromContext(ctx context.Context) *Secrets {
	s, _ := ctx.Value(ctxKey{}).(*Secrets)
	return s
}
