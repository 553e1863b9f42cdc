package probe

import (
	"net/url"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// TestRequestURLFromMemo: the lookups' targets are taken from the parsed URL, not parsed
// again (addr.FuzzExtendPath holds the extended URL to net/url's reading; it would pass
// for a requestURL that always left the target to net/http).
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
