package wire

import (
	"mime"
	"testing"
)

// TestMediaTypeAgreesWithMime: the bare-type shortcut reads every Content-Type as
// mime.ParseMediaType does.
func TestMediaTypeAgreesWithMime(t *testing.T) {
	for _, ct := range []string{"", "application/json", "application/a2a+json", "text/event-stream", "Application/JSON",
		"application/json; charset=utf-8", "/json", "application/", "application", "a/b/c", "a/b c", "a/b;", "text/html\x7f",
		"application/problem+json", "x-y.z/~!#$%&'*^_`|", "a/\"b\"", "é/json", " application/json", "a/b\t"} {
		checkMediaType(t, ct)
	}
}

func checkMediaType(t *testing.T, ct string) {
	t.Helper()
	want, _, _ := mime.ParseMediaType(ct)
	if got := MediaType(ct); got != want {
		t.Errorf("MediaType(%q) = %q, mime reads %q", ct, got, want)
	}
}

// FuzzMediaType holds the shortcut to mime.ParseMediaType for any header value.
func FuzzMediaType(f *testing.F) {
	for _, s := range []string{"application/json", "Text/Event-Stream", "a/b; q=1", "/", "a//b"} {
		f.Add(s)
	}
	f.Fuzz(checkMediaType)
}
