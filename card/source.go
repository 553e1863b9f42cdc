package card

import (
	"fmt"
	"strconv"
	"strings"
)

// SourceList names the part of a card document that declared an interface.
type SourceList uint8

const (
	// ListSupported is the A2A 1.0 supportedInterfaces list.
	ListSupported SourceList = iota + 1
	// ListPrimary is the v0.3 primary interface: url with preferredTransport.
	ListPrimary
	// ListAdditional is the v0.3 additionalInterfaces list.
	ListAdditional
)

// Source says where in the document an interface was declared: the list, and the
// position in it. Its text ("supportedInterfaces[0]", "url+preferredTransport",
// "additionalInterfaces[2]") is what reports and JSON output show (the "source" field
// is a contract); the zero Source, for an interface made by hand, is "".
type Source struct {
	// List is the part of the document; 0 for an interface made by hand.
	List SourceList
	// Index is the position in supportedInterfaces or additionalInterfaces (0 for
	// ListPrimary).
	Index int
}

// SourcePrimary is the Source of the v0.3 primary interface (url + preferredTransport).
var SourcePrimary = Source{List: ListPrimary}

// Supported is the Source of supportedInterfaces[i].
func Supported(i int) Source { return Source{List: ListSupported, Index: i} }

// Additional is the Source of additionalInterfaces[i].
func Additional(i int) Source { return Source{List: ListAdditional, Index: i} }

const (
	// FieldSupported is the v1.0 list of interfaces.
	FieldSupported  = "supportedInterfaces"
	additionalField = "additionalInterfaces"
	primaryText     = "url+preferredTransport"
)

// String renders the Source as the document names it: "supportedInterfaces[0]".
func (s Source) String() string {
	switch s.List {
	case ListSupported:
		if s.Index >= 0 && s.Index < len(supportedNames) {
			return supportedNames[s.Index]
		}
		return FieldSupported + "[" + strconv.Itoa(s.Index) + "]"
	case ListAdditional:
		if s.Index >= 0 && s.Index < len(additionalNames) {
			return additionalNames[s.Index]
		}
		return additionalField + "[" + strconv.Itoa(s.Index) + "]"
	case ListPrimary:
		return primaryText
	}
	return ""
}

// supportedNames and additionalNames are String of the first entries of each list,
// made once: lint, the diagnosis and the reports name them again and again.
var supportedNames, additionalNames = sourceNames(FieldSupported), sourceNames(additionalField)

func sourceNames(field string) []string {
	out := make([]string, 16)
	for i := range out {
		out[i] = field + "[" + strconv.Itoa(i) + "]"
	}
	return out
}

// MarshalText writes String.
func (s Source) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads what MarshalText writes.
func (s *Source) UnmarshalText(b []byte) error {
	p, err := ParseSource(string(b))
	if err != nil {
		return err
	}
	*s = p
	return nil
}

// ParseSource reads a Source's text; "" is the zero Source.
func ParseSource(text string) (Source, error) {
	switch {
	case text == "":
		return Source{}, nil
	case text == primaryText:
		return SourcePrimary, nil
	}
	for list, field := range map[SourceList]string{ListSupported: FieldSupported, ListAdditional: additionalField} {
		rest, ok := strings.CutPrefix(text, field+"[")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSuffix(rest, "]"))
		if err == nil && n >= 0 && strconv.Itoa(n)+"]" == rest { // canonical digits, then "]"
			return Source{List: list, Index: n}, nil
		}
	}
	return Source{}, fmt.Errorf("interface source %q: want supportedInterfaces[N], additionalInterfaces[N] or %s", text, primaryText)
}
