package addr

import (
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// FuzzExtendPath holds ExtendPath to url.Parse: for any interface URL and any suffix
// (the routes, task ids and tenants the probers append, or anything else), the URL it
// gives is the one url.Parse reads from HTTPURL's string followed by the suffix.
func FuzzExtendPath(f *testing.F) {
	for _, s := range [][2]string{
		{"http://127.0.0.1:8080/a2a", "/tasks/a2abind-probe-0123456789abcdef01234567"},
		{"http://127.0.0.1:8080", "/tasks/x:subscribe"},
		{"https://h.example/a/", "tasks/x/pushNotificationConfigs"},
		{"http://h:1/a?x=1", ""}, {"http://h:1/a?x=1", "/v1/tasks/x"}, {"http://h:1/a%2Fb", "/tasks/x"},
		{"http://h:1/a", "/t%2Fx/tasks/y"}, {"http://h:1/a", "/tasks/x?y"}, {"http://h:1/a", "#f"},
		{"http://[::1]:9/a", "/tasks/é"}, {"127.0.0.1:50051", "/tasks/x"}, {"http://h:1/a b", "/c"},
		{"http://h:1/", "/"}, {"http://h:1/a#frag", "/tasks"}, {"http://u@h:1/a", "/tasks"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, raw, suffix string) {
		a, err := ParseAddress(raw, a2a.TransportProtocolHTTPJSON)
		if err != nil {
			return
		}
		for _, useTLS := range []bool{false, true} {
			base := a.HTTPURL(useTLS)
			u, err := a.URL(useTLS)
			if err != nil {
				continue
			}
			for _, target := range []string{base + suffix, strings.TrimSuffix(base, "/") + suffix} {
				rest, ok := strings.CutPrefix(target, base)
				if !ok {
					continue
				}
				got := ExtendPath(u, rest)
				if got == nil {
					continue // the caller parses it
				}
				want, err := url.Parse(target)
				if err != nil || !reflect.DeepEqual(got, want) {
					t.Fatalf("ExtendPath(%q, %q) = %#v; url.Parse(%q): %#v, %v", base, rest, got, target, want, err)
				}
			}
		}
	})
}
