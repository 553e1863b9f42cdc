package exporter

import (
	"errors"
	"reflect"
	"regexp"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// configTypes are the config's structs by the name the YAML decoder gives them in an
// unknown-field error ("exporter.Module"), for a did-you-mean of their keys.
var configTypes = map[string]reflect.Type{}

func init() {
	for _, v := range []any{Config{}, Module{}, Secret{}, TLS{}, Signatures{}, Discovery{}} {
		t := reflect.TypeOf(v)
		configTypes[t.String()] = t
	}
}

// unknownField is the YAML decoder's (KnownFields) message for an unknown key.
var unknownField = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`field (\S+) not found in type (\S+)`) })

// suggestKeys adds to the decoder's unknown-key errors the key that was probably
// meant and the keys the place allows: `line 2: field alowed_targets not found in
// type exporter.Config: did you mean "allowed_targets"?`.
func suggestKeys(err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return err
	}
	msgs := make([]string, 0, len(te.Errors))
	for _, m := range te.Errors {
		if sm := unknownField().FindStringSubmatch(m); sm != nil {
			if t, ok := configTypes[sm[2]]; ok {
				m += "; " + didYouMean(sm[1], yamlKeys(t))
			}
		}
		msgs = append(msgs, m)
	}
	return errors.New(strings.Join(msgs, "\n"))
}

// yamlKeys are the keys of a config struct, in field order.
func yamlKeys(t reflect.Type) []string {
	var keys []string
	for f := range t.Fields() {
		if name, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	return keys
}

// didYouMean names the nearest key when it is close (an edit distance of at most a
// third of its length, at least 2, ignoring case and separators), else lists them all.
func didYouMean(got string, keys []string) string {
	best, bestD := "", -1
	norm := func(s string) string { return strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(s)) }
	for _, k := range keys {
		d := editDistance(norm(got), norm(k))
		if bestD < 0 || d < bestD {
			best, bestD = k, d
		}
	}
	if bestD >= 0 && bestD <= max(2, len(best)/3) {
		return `did you mean "` + best + `"?`
	}
	return "the keys here are " + strings.Join(keys, ", ")
}

// editDistance is the Levenshtein distance of a and b (bytes; keys are ASCII).
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return max(len(a), len(b)) // a key that long is no typo of ours
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
