package card

// headerSchema names the protected header members a2abind reads.
var headerSchema = &schemaNode{fields: map[string]*schemaNode{"alg": nil, "kid": nil, "typ": nil, "jku": nil,
	"jwk": nil, "x5c": nil, "x5u": nil, "b64": nil, "crit": nil}}

// ReadHeader reads a JWS protected header (its decoded JSON) as exactly as Parse reads a
// card, as go-jose does: a repeated member is a *ReadError, and stray is the first
// member named like a header member but not exactly ("KID"), nil when there is none.
func ReadHeader(data []byte) (stray *ReadError, err error) {
	r, _, err := readTree(data, headerSchema)
	if err != nil || len(r.strays) == 0 {
		return nil, err
	}
	return r.strays[0], nil
}
