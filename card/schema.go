package card

import (
	"strings"
	"sync"

	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// schemaNode describes the members of one kind of JSON value in a card, for the exact
// reader: an object's known fields, a list's entries, or a map's values.
type schemaNode struct {
	fields map[string]*schemaNode // exact JSON name -> its value; nil child: not described further
	proto  map[string]string      // proto name -> JSON name, where they differ
	each   *schemaNode            // a list's entries
	values *schemaNode            // a map's values
}

// variant reports whether name is another spelling of a known field (a case variant, or
// its proto name) and returns the field's JSON name.
func (s *schemaNode) variant(name string) (string, bool) {
	if f, ok := s.proto[name]; ok {
		return f, true
	}
	for f := range s.fields {
		if strings.EqualFold(name, f) {
			return f, true
		}
	}
	for p, f := range s.proto {
		if strings.EqualFold(name, p) {
			return f, true
		}
	}
	return "", false
}

// cardSchema is the AgentCard as the v1.0 proto describes it (every depth: interfaces,
// capabilities, security schemes, skills, ...), plus the v0.3 fields a2abind reads or
// v0.3 cards carry. Built on first use: walking the descriptors is start-up cost
// that commands which read no card must not pay.
var cardSchema = sync.OnceValue(func() *schemaNode {
	memo := map[protoreflect.FullName]*schemaNode{}
	s := messageSchema(schemaDescriptor, memo)
	v03Iface := &schemaNode{fields: map[string]*schemaNode{"url": nil, "transport": nil}}
	for name, child := range map[string]*schemaNode{
		"url": nil, "preferredTransport": nil, "protocolVersion": nil,
		"additionalInterfaces":              {each: v03Iface},
		"supportsAuthenticatedExtendedCard": nil, "security": nil,
	} {
		s.fields[name] = child
	}
	// v0.3 security schemes are flat objects ({"type": "http", "scheme": "bearer"}).
	scheme := s.fields["securitySchemes"].values
	for _, name := range []string{"type", "scheme", "bearerFormat", "name", "in", "description", "openIdConnectUrl"} {
		scheme.fields[name] = nil
	}
	scheme.fields["flows"] = scheme.fields["oauth2SecurityScheme"].fields["flows"]
	s.fields["capabilities"].fields["stateTransitionHistory"] = nil
	return s
})

// messageSchema describes a proto message's JSON form (Struct and Value are free-form).
func messageSchema(md protoreflect.MessageDescriptor, memo map[protoreflect.FullName]*schemaNode) *schemaNode {
	if md.FullName() == "google.protobuf.Struct" || md.FullName() == "google.protobuf.Value" {
		return nil
	}
	if s, ok := memo[md.FullName()]; ok {
		return s
	}
	s := &schemaNode{fields: map[string]*schemaNode{}, proto: map[string]string{}}
	memo[md.FullName()] = s
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if string(fd.Name()) != fd.JSONName() {
			s.proto[string(fd.Name())] = fd.JSONName()
		}
		var child *schemaNode
		switch {
		case fd.IsMap() && fd.MapValue().Kind() == protoreflect.MessageKind:
			if v := messageSchema(fd.MapValue().Message(), memo); v != nil {
				child = &schemaNode{values: v}
			}
		case fd.IsList() && fd.Kind() == protoreflect.MessageKind:
			if e := messageSchema(fd.Message(), memo); e != nil {
				child = &schemaNode{each: e}
			}
		case !fd.IsMap() && fd.Kind() == protoreflect.MessageKind:
			child = messageSchema(fd.Message(), memo)
		}
		s.fields[fd.JSONName()] = child
	}
	return s
}

// schemaDescriptor is the v1.0 AgentCard message the card schema is built from.
var schemaDescriptor = (&a2apb.AgentCard{}).ProtoReflect().Descriptor()
