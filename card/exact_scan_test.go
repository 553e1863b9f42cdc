package card

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// treeSeeds are documents for the reader differential: the repository's cards and the
// corners of the JSON grammar and of exact member matching.
var treeSeeds = []string{
	`{}`, `[]`, `{"a":1}`, ` {"name" : "x" , "url":"u"} `, "\t{\r\n}\n",
	`{"name":"a","name":"b"}`, `{"Name":"a","NAME":"b","name":"c"}`,
	`{"supportedInterfaces":[{"url":"u","URL":"v","url":"w"}]}`,
	`{"supported_interfaces":[],"supportedInterfaces":null}`,
	`{"na\u006de":"x","name":"y"}`, `{"\u00e9":1,"é":2}`, "{\"\xff\":1,\"\xfe\":2}", "{\"\xff\":1,\"\xff\":2}",
	`{"a\"b":1,"a\\b":[1,-2.5e+10,0.1E-3,true,false,null,"s\"\\\/\b\f\n\r\t\u0041"]}`,
	`{"capabilities":{"streaming":true,"Streaming":false},"securitySchemes":{"a":{"b":{"a":1,"a":2}}}}`,
	`{"skills":[{"id":"a","tags":["x"],"x":{"y":[[[{}]]]}}],"x":{"x":{"x":1,"x":2}}}`,
	`{"signatures":[{"protected":"e30","signature":"x","header":{"kid":"a"}}]}`,
	`{"alg":"ES256","ALG":"x","kid":"k","typ":"JOSE"}`,
	`{"a":1}{"b":2}`, `{"a":1} x`, `{"a":}`, `{"a":1,}`, `{"a" 1}`, `[1,]`, `{`, `}`, ``, ` `, `"\ud800"`,
	`123`, `-0`, `1e5`, `"s"`, `null`, `true`, `false`, `{"a":01}`, `{"a":"` + "\x01" + `"}`,
	"\xef\xbb\xbf{}", `{"a":[` + strings.Repeat(`[`, 20) + strings.Repeat(`]`, 20) + `]}`,
	strings.Repeat(`[`, 200) + strings.Repeat(`]`, 200),
	`{"skills":[` + strings.Repeat(`{"a":`, 30) + `1` + strings.Repeat(`}`, 30) + `]}`,
	manyMembers(40, false), manyMembers(40, true),
}

// manyMembers is an object past smallObject members, its last one repeated when dup.
func manyMembers(n int, dup bool) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		fmt.Fprintf(&b, `"m%d":%d,`, i, i)
	}
	if dup {
		fmt.Fprintf(&b, `"m%d":0,`, n-1)
	}
	b.WriteString(`"name":"x"}`)
	return b.String()
}

// sameReading fails t when the scanning reader and the Decoder one read data
// differently under s: the error, the tree kept, the repeated and the stray members.
func sameReading(t *testing.T, data []byte, s *schemaNode) {
	t.Helper()
	r1, n1, err1 := readTree(data, s)
	r2, n2, err2 := readTreeDecoder(data, s)
	if fmt.Sprint(err1) != fmt.Sprint(err2) || !reflect.DeepEqual(err1, err2) {
		t.Fatalf("%q: errors differ:\nscan    %v\ndecoder %v", data, err1, err2)
	}
	if err1 != nil {
		return
	}
	if !reflect.DeepEqual(n1, n2) {
		t.Fatalf("%q: trees differ:\nscan    %s\ndecoder %s", data, dumpNode(n1), dumpNode(n2))
	}
	if !reflect.DeepEqual(r1.strays, r2.strays) {
		t.Fatalf("%q: strays differ: %v / %v", data, r1.strays, r2.strays)
	}
}

func dumpNode(n *jsonNode) string {
	if n == nil {
		return "nil"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%c[%d:%d]", n.kind, n.start, n.end)
	for _, m := range n.members {
		fmt.Fprintf(&b, " %q[%d:%d]stray=%v=(%s)", m.name, m.keyStart, m.keyEnd, m.stray, dumpNode(m.value))
	}
	for _, e := range n.elems {
		fmt.Fprintf(&b, " (%s)", dumpNode(e))
	}
	return b.String()
}

// TestTreeReaders: on the seeds, the scanning reader reads what the Decoder one reads.
func TestTreeReaders(t *testing.T) {
	for _, d := range treeDocs(t) {
		sameReading(t, d, cardSchema())
		sameReading(t, d, headerSchema)
	}
}

func treeDocs(t testing.TB) [][]byte {
	var out [][]byte
	for _, s := range treeSeeds {
		out = append(out, []byte(s))
	}
	files, err := filepath.Glob(filepath.Join("..", "testdata", "cards", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no seed cards: %v", err)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, data)
	}
	return out
}

// FuzzTreeReaders is the differential of the card's two exact readers: readTree (the
// scanning reader for documents json.Valid accepts) against readTreeDecoder
// (encoding/json's Decoder.Token, the reader it replaced), under the card's schema and
// the protected header's.
func FuzzTreeReaders(f *testing.F) {
	for _, d := range treeDocs(f) {
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sameReading(t, data, cardSchema())
		sameReading(t, data, headerSchema)
	})
}

// TestScanAllocs: the scanning reader allocates a fraction of what the Decoder reader
// does on a healthy card (it made one error per scalar token).
func TestScanAllocs(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "cards", "v1-healthy.json"))
	if err != nil {
		t.Fatal(err)
	}
	scan := testing.AllocsPerRun(50, func() { _, _, _ = readTree(data, cardSchema()) })
	dec := testing.AllocsPerRun(50, func() { _, _, _ = readTreeDecoder(data, cardSchema()) })
	t.Logf("allocations per read: scanning %.0f, decoder %.0f", scan, dec)
	if scan*3 > dec {
		t.Errorf("scanning reader: %.0f allocations, decoder reader %.0f: want under a third", scan, dec)
	}
}

func BenchmarkTreeReaders(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "cards", "v1-healthy.json"))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("scan", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _, _ = readTree(data, cardSchema())
		}
	})
	b.Run("decoder", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _, _ = readTreeDecoder(data, cardSchema())
		}
	})
}
