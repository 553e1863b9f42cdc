package discovery

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/a2abind/a2abind/card"
)

// members reads a JSON object strictly: the members named in known are returned by
// name; a repeated member, or a member whose name differs from a known one only in
// case, is an error (JSON readers disagree on which one counts: encoding/json folds
// case, JSON.parse keeps the last). Other members are ignored.
func members(raw json.RawMessage, what string, known ...string) (map[string]json.RawMessage, error) {
	obj, err := decode(raw, what)
	if err != nil {
		return nil, err
	}
	return pick(obj, what, known...)
}

// decode reads raw as a JSON object; what names it in the error.
func decode(raw json.RawMessage, what string) (card.Object, error) {
	obj, err := card.DecodeObject(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return obj, nil
}

// pick is members of an object already decoded.
func pick(obj card.Object, what string, known ...string) (map[string]json.RawMessage, error) {
	out := make(map[string]json.RawMessage, len(known))
	for _, m := range obj {
		for _, k := range known {
			switch {
			case m.Key == k:
				if _, dup := out[k]; dup {
					return nil, fmt.Errorf("%s: member %q appears twice (readers disagree on which counts)", what, k)
				}
				out[k] = m.Value
			case strings.EqualFold(m.Key, k):
				return nil, fmt.Errorf("%s: member %q differs from %q only in case (names are matched exactly)", what, m.Key, k)
			}
		}
	}
	return out, nil
}

// str reads an optional JSON string member ("" when absent or null).
func str(m map[string]json.RawMessage, key, what string) (string, error) {
	v, ok := m[key]
	if !ok || string(v) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", fmt.Errorf("%s: %q is not a string", what, key)
	}
	return s, nil
}

// strs reads optional string members in order: pairs of a key and where it goes.
func strs(m map[string]json.RawMessage, what string, pairs ...any) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		v, err := str(m, pairs[i].(string), what)
		if err != nil {
			return err
		}
		*pairs[i+1].(*string) = v
	}
	return nil
}

// array reads an optional JSON array member, refusing one over max elements.
func array(m map[string]json.RawMessage, key, what string, max int) ([]json.RawMessage, error) {
	return arrayValue(m[key], key, what, max)
}

// arrayValue reads the value v of member key as an optional JSON array (nil when
// absent or null), refusing one over max elements.
func arrayValue(v json.RawMessage, key, what string, max int) ([]json.RawMessage, error) {
	if v == nil || string(v) == "null" {
		return nil, nil
	}
	var a []json.RawMessage
	if err := json.Unmarshal(v, &a); err != nil {
		return nil, fmt.Errorf("%s: %q is not an array", what, key)
	}
	if len(a) > max {
		return nil, fmt.Errorf("%s: %q has %d elements, over the bound of %d", what, key, len(a), max)
	}
	return a, nil
}
