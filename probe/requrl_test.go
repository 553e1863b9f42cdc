package probe

import (
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// FuzzRequestURL holds requestURL to url.Parse: for any interface URL and any suffix
// (the routes, task ids and tenants the probers append, or anything else), the URL a
// request goes to is the one url.Parse reads from its target.
func FuzzRequestURL(f *testing.F) {
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
		ep, err := parseEndpoint(raw, a2a.TransportProtocolHTTPJSON)
		if err != nil {
			return
		}
		for _, mode := range []tlsMode{tlsAuto, tlsOn, tlsOff} {
			base := ep.httpURL(mode)
			for _, target := range []string{base + suffix, strings.TrimSuffix(base, "/") + suffix} {
				got := ep.requestURL(target)
				if got == nil {
					continue // net/http parses it
				}
				want, err := url.Parse(target)
				if err != nil || !reflect.DeepEqual(got, want) {
					t.Fatalf("requestURL(%q) = %#v; url.Parse: %#v, %v", target, got, want, err)
				}
			}
		}
	})
}

// TestRequestURLFromMemo: the lookups' targets are taken from the parsed URL, not parsed
// again (the fuzz target above would pass for a requestURL that always parsed).
func TestRequestURLFromMemo(t *testing.T) {
	ep, err := parseEndpoint("http://127.0.0.1:8080/a2a", a2a.TransportProtocolJSONRPC)
	if err != nil {
		t.Fatal(err)
	}
	base := ep.base(false)
	base.u.User = url.User("marker") // only a copy of the memo's parse carries it
	for _, target := range []string{ep.httpURL(tlsAuto), ep.httpURL(tlsAuto) + "/tasks/a2abind-probe-00"} {
		if u := ep.requestURL(target); u == nil || u.User == nil || u == base.u {
			t.Errorf("requestURL(%q) = %v: not a copy of the memo's parse", target, u)
		}
	}
}
