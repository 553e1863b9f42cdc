package addr_test

import (
	"fmt"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/addr"
)

// Every form of a gRPC address has one meaning: host, port (defaults filled in) and
// what it says about TLS.
func ExampleParseAddress() {
	for _, raw := range []string{"agent.example.com:443", "grpcs://agent.example.com", "grpc://agent", "dns:///10.0.0.5:50051"} {
		a, err := addr.ParseAddress(raw, a2a.TransportProtocolGRPC)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%-26s -> %s (%s)\n", raw, a.HostPort(), a.TLS)
	}
	_, err := addr.ParseAddress("agent.example.com", a2a.TransportProtocolGRPC)
	fmt.Println(err)
	// Output:
	// agent.example.com:443      -> agent.example.com:443 (unknown)
	// grpcs://agent.example.com  -> agent.example.com:443 (TLS)
	// grpc://agent               -> agent:80 (plaintext)
	// dns:///10.0.0.5:50051      -> 10.0.0.5:50051 (unknown)
	// "agent.example.com" names no port (write host:port)
}

// Credentials go to the origin the user named, scheme included, and to allowed hosts.
func ExampleCredentialPolicy() {
	p := addr.NewCredentialPolicy(addr.OriginOf("https://agent.example.com"), "trusted.example.com")
	for _, raw := range []string{"https://agent.example.com/a2a", "http://agent.example.com:443/a2a", "https://trusted.example.com:8443/a2a", "https://other.example.com/a2a"} {
		a, _ := addr.ParseAddress(raw, a2a.TransportProtocolJSONRPC)
		fmt.Println(raw, p.Allows(a, a.TLS == addr.TLSYes))
	}
	// Output:
	// https://agent.example.com/a2a true
	// http://agent.example.com:443/a2a false
	// https://trusted.example.com:8443/a2a true
	// https://other.example.com/a2a false
}

// The dial policy refuses what a card should not make a2abind dial.
func ExampleDialPolicy_Check() {
	var p *addr.DialPolicy // the default policy
	for _, raw := range []string{"http://127.0.0.1:8080/a2a", "http://169.254.169.254/latest/meta-data/"} {
		a, _ := addr.ParseAddress(raw, a2a.TransportProtocolJSONRPC)
		fmt.Println(raw, p.Check(a) == nil)
	}
	// Output:
	// http://127.0.0.1:8080/a2a true
	// http://169.254.169.254/latest/meta-data/ false
}
