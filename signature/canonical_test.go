package signature

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// TestCanonicalizeSpecExample is A2A 1.0 §8.4.1's worked example: presence rules keep the
// explicitly set false capabilities and the empty REQUIRED description and skills, drop
// the empty non-REQUIRED extensions list, then RFC 8785 sorts and compacts.
func TestCanonicalizeSpecExample(t *testing.T) {
	in := `{"name":"Example Agent","description":"","capabilities":{"streaming":false,"pushNotifications":false,"extensions":[]},"skills":[]}`
	want := `{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}`
	got, err := Canonicalize([]byte(in), FormSpec)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("spec form:\n got %s\nwant %s", got, want)
	}
}

// TestCanonicalizeForms shows, on one card, what each form keeps and drops.
func TestCanonicalizeForms(t *testing.T) {
	in := `{
	  "name": "Café", "description": "", "version": "1.0.0",
	  "url": "https://v03.example.com/a2a", "x-unknown": {"a": ""},
	  "documentationUrl": "",
	  "supportedInterfaces": [{"url": "https://a.example.com/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0", "tenant": ""}],
	  "capabilities": {"streaming": false, "extensions": [{"uri": "urn:x", "required": false, "params": {"n": 1, "e": ""}}]},
	  "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
	  "skills": [{"id": "s", "name": "S", "description": "d", "tags": [], "examples": []}],
	  "signatures": [{"protected": "x", "signature": "y"}]
	}`
	cases := map[Form]string{
		FormSpec: `{"capabilities":{"extensions":[{"params":{"e":"","n":1},"uri":"urn:x"}],"streaming":false},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],` +
			`"description":"","documentationUrl":"","name":"Café","skills":[{"description":"d","id":"s","name":"S","tags":[]}],` +
			`"supportedInterfaces":[{"protocolBinding":"JSONRPC","protocolVersion":"1.0","url":"https://a.example.com/a2a"}],"version":"1.0.0"}`,
		FormJS: `{"capabilities":{"extensions":[{"params":{"n":1},"uri":"urn:x"}],"streaming":false},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],` +
			`"name":"Café","skills":[{"description":"d","id":"s","name":"S"}],` +
			`"supportedInterfaces":[{"protocolBinding":"JSONRPC","protocolVersion":"1.0","url":"https://a.example.com/a2a"}],"version":"1.0.0"}`,
		FormPython: `{"capabilities":{"extensions":[{"params":{"n":1.0},"uri":"urn:x"}],"streaming":false},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],` +
			`"name":"Caf\u00e9","skills":[{"description":"d","id":"s","name":"S"}],` +
			`"supportedInterfaces":[{"protocolBinding":"JSONRPC","protocolVersion":"1.0","url":"https://a.example.com/a2a"}],"version":"1.0.0"}`,
		FormNoPresence: `{"capabilities":{"extensions":[{"params":{"e":"","n":1},"required":false,"uri":"urn:x"}],"streaming":false},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],` +
			`"description":"","documentationUrl":"","name":"Café","skills":[{"description":"d","examples":[],"id":"s","name":"S","tags":[]}],` +
			`"supportedInterfaces":[{"protocolBinding":"JSONRPC","protocolVersion":"1.0","tenant":"","url":"https://a.example.com/a2a"}],"url":"https://v03.example.com/a2a","version":"1.0.0","x-unknown":{"a":""}}`,
	}
	for form, want := range cases {
		got, err := Canonicalize([]byte(in), form)
		if err != nil {
			t.Fatalf("%s: %v", form, err)
		}
		if string(got) != want {
			t.Errorf("%s:\n got %s\nwant %s", form, got, want)
		}
	}
	if got := OutsideSchema([]byte(in)); !equal(got, []string{"url", "x-unknown"}) {
		t.Errorf("OutsideSchema = %v", got)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestCanonicalizeRFC8785 checks the JCS output on RFC 8785 §3.2.2's example values
// (numbers in ES6 form, escapes, UTF-16 key order) inside a Struct, where the spec form
// keeps values as written.
func TestCanonicalizeRFC8785(t *testing.T) {
	in := `{"capabilities":{"extensions":[{"uri":"u","params":{
	  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
	  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
	  "literals": [null, true, false],
	  "\u20ac": 1, "\r": 2, "1": 3, "\u00f6": 4, "\ud83d\ude00": 5, "\ufb33": 6}}]}}`
	want := `{"capabilities":{"extensions":[{"params":{"\r":2,"1":3,"literals":[null,true,false],` +
		`"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/",` +
		`"ö":4,"€":1,"😀":5,` + "\"\ufb33\":6" + `},"uri":"u"}]}}`
	got, err := Canonicalize([]byte(in), FormSpec)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}

// TestPythonFloatRepr compares with Python 3's repr(float), values printed by CPython 3.
func TestPythonFloatRepr(t *testing.T) {
	for in, want := range map[float64]string{
		1: "1.0", 0.5: "0.5", 1e16: "1e+16", 1e15: "1000000000000000.0", 123456789012345678: "1.2345678901234568e+17",
		1e-4: "0.0001", 1e-5: "1e-05", -2.5e-7: "-2.5e-07", 0.1: "0.1", 100: "100.0", 1.5e300: "1.5e+300", 12345.678: "12345.678",
	} {
		if got := pythonFloatRepr(in); got != want {
			t.Errorf("pythonFloatRepr(%v) = %s, want %s", in, got, want)
		}
	}
}

// TestPythonStrings compares with CPython 3's
// json.dumps({'b':'é','a':'😀\x7f\x01\n"\\/','é':1.0,'z':[True,None]}, sort_keys=True, separators=(',',':')).
func TestPythonStrings(t *testing.T) {
	var b bytes.Buffer
	v := map[string]any{"b": "é", "a": "😀\x7f\x01\n\"\\/", "é": json.Number("1"), "z": []any{true, nil}}
	if err := writePython(&b, v); err != nil {
		t.Fatal(err)
	}
	want := `{"a":"\ud83d\ude00\u007f\u0001\n\"\\/","b":"\u00e9","z":[true,null],"\u00e9":1.0}`
	if b.String() != want {
		t.Errorf("\n got %s\nwant %s", b.String(), want)
	}
}

// TestCanonicalizeProtoNames: proto field names are read as protojson and a2a-js read
// them, written with their JSON names; beside the JSON name they lose, every time.
func TestCanonicalizeProtoNames(t *testing.T) {
	in := `{"name":"a","supported_interfaces":[{"url":"snake"}],"supportedInterfaces":[{"url":"camel"}],"default_input_modes":["x"]}`
	want := `{"defaultInputModes":["x"],"name":"a","supportedInterfaces":[{"url":"camel"}]}`
	for range 20 { // map order varies between runs; the result must not
		for _, f := range []Form{FormSpec, FormJS} {
			got, err := Canonicalize([]byte(in), f)
			if err != nil || string(got) != want {
				t.Fatalf("%s: %s, %v; want %s", f, got, err, want)
			}
		}
	}
}

func TestCanonicalizeRejects(t *testing.T) {
	deep := bytes.Repeat([]byte(`{"a":`), 70)
	deep = append(append([]byte(`{"x":`), deep...), bytes.Repeat([]byte("}"), 71)...)
	for name, in := range map[string]string{
		"duplicate key":  `{"name":"a","name":"b"}`,
		"not an object":  `["name"]`,
		"invalid utf-8":  "{\"name\":\"\xff\"}",
		"truncated":      `{"name":`,
		"too deep":       string(deep),
		"number too big": `{"capabilities":{"extensions":[{"params":{"n":1e400}}]}}`,
	} {
		for _, f := range Forms {
			if _, err := Canonicalize([]byte(in), f); !errors.Is(err, ErrCanonical) {
				t.Errorf("%s (%s): err = %v, want ErrCanonical", name, f, err)
			}
		}
	}
}
