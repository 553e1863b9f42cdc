package card_test

import (
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"

	"github.com/a2abind/a2abind/card"
)

// FuzzInterfacesMatchProtojson is the differential check of the exact reader (issue 17):
// for any document protojson reads as a v1.0 AgentCard (a2a-go's a2apb messages, unknown
// fields discarded), a2abind reads the same supportedInterfaces (url, binding, version,
// tenant, in order), or reports the document as an error: Parse refuses it, or lint
// reports a member spelt the proto way ("protocol_binding"), which protojson reads and
// a2abind, like a2a-go, does not.
func FuzzInterfacesMatchProtojson(f *testing.F) {
	seedCards(f) // signature_fuzz_test.go
	for _, s := range []string{
		`{"name":"a","supportedInterfaces":[{"url":"http://h/","URL":"http://evil/","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`,
		`{"name":"a","SupportedInterfaces":[{"url":"http://evil/"}],"supportedInterfaces":[{"url":"http://h/","protocolBinding":"GRPC"}]}`,
		`{"name":"a","supported_interfaces":[{"url":"http://h/","protocol_binding":"GRPC","tenant":"t"}]}`,
		`{"name":"a","supportedInterfaces":[{"url":"http://h/","url":"http://evil/"}]}`,
		`{"name":"a","supportedInterfaces":[{"\u0075rl":"http://h/","protocolVersion":"1.0.0","tenant":null}]}`,
		`{"name":"a","supportedInterfaces":null,"url":"http://h/","preferredTransport":"GRPC"}`,
		`{"name":"a","supportedInterfaces":[{"ſrl":"x","protocolBindinK":"y"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var pb a2apb.AgentCard
		if protojson.Unmarshal(data, &pb) != nil {
			return // not a v1.0 card to protojson: nothing to compare
		}
		c, err := card.Parse(data)
		if err != nil {
			return // a2abind reports the document as an error
		}
		var got [][4]string
		for _, i := range c.Declared() {
			if i.Source.List == card.ListSupported {
				got = append(got, [4]string{i.URL, string(i.Binding), i.ProtocolVersion, i.Tenant})
			}
		}
		var want [][4]string
		for _, i := range pb.GetSupportedInterfaces() {
			want = append(want, [4]string{i.GetUrl(), i.GetProtocolBinding(), card.NormalizeVersion(i.GetProtocolVersion()), i.GetTenant()})
		}
		if slices.Equal(got, want) {
			return
		}
		for _, e := range c.ReadIssues() {
			if strings.Contains(e.Member, "_") {
				return // a proto-name spelling: lint reports field-name-case (error)
			}
		}
		t.Fatalf("a2abind reads supportedInterfaces as %q, protojson as %q, and reports no error (stray members %v)", got, want, c.ReadIssues())
	})
}
