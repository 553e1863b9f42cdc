package addr

// DialModes says which TLS modes a2abind's delegate may use to reach a: what its scheme
// says (https and grpcs TLS, http and grpc plaintext); for a bare host:port (the gRPC
// form, which says nothing), plaintext only when plaintextAsked (--grpc-plaintext) or
// the card's origin, as the user named it, is plain http://; either mode on a loopback
// address, where plaintext never leaves the host (a lookup decides); else TLS only. So a
// message never goes in plaintext to another host unless the user says so. The
// delegate dials by it and probe's prediction of the delegate reads it.
func DialModes(a Address, named Origin, plaintextAsked bool) (useTLS, plain bool) {
	switch {
	case a.TLS == TLSYes:
		return true, false
	case a.TLS == TLSNo:
		return false, true
	case plaintextAsked || !named.IsZero() && !named.Secure:
		return false, true
	case a.Loopback():
		return true, true
	}
	return true, false
}
