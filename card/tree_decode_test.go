package card

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// treeDecodeSeeds are the corners of decodeTree: every field null, empty, of the wrong
// kind, escaped, and entries null or of the wrong kind.
var treeDecodeSeeds = []string{
	`{"name":null,"description":null,"version":null,"url":null,"preferredTransport":null,"protocolVersion":null,` +
		`"supportedInterfaces":null,"additionalInterfaces":null,"securitySchemes":null,"capabilities":null,` +
		`"defaultInputModes":null,"defaultOutputModes":null,"skills":null,"supportsAuthenticatedExtendedCard":null}`,
	`{"name":"","supportedInterfaces":[],"additionalInterfaces":[],"securitySchemes":{},"capabilities":{},` +
		`"defaultInputModes":[],"defaultOutputModes":[],"skills":[]}`,
	`{"name":"a\u0062\n\"c","description":"\ud83d\ude00 \ud800","version":"` + "\xff\xfe" + `"}`,
	`{"supportedInterfaces":[null,{},{"url":null,"protocolBinding":null,"protocolVersion":null,"tenant":null}]}`,
	`{"supportedInterfaces":[{"url":"http://h/","tenant":"t","extra":[1,{"a":2}]}],"additionalInterfaces":[null,{"url":"u","transport":"GRPC","x":1}]}`,
	`{"defaultInputModes":["a",null,"b\u0000"],"defaultOutputModes":[ "x" , "y" ]}`,
	`{"capabilities":{"streaming":null,"pushNotifications":true,"extensions":[{"uri":"x"}]},"securitySchemes":{"a":{"type":"http"},"b":null}}`,
	`{"skills":[null,{"id":"a"}, 1 ,"s",[]],"supportsAuthenticatedExtendedCard":{"a":1}}`,
	`{"name":1}`, `{"name":true}`, `{"name":{}}`, `{"name":[]}`, `{"url":5}`, `{"protocolVersion":false}`,
	`{"supportedInterfaces":{}}`, `{"supportedInterfaces":"x"}`, `{"supportedInterfaces":[1]}`, `{"supportedInterfaces":[[]]}`,
	`{"supportedInterfaces":[{"url":1}]}`, `{"supportedInterfaces":[{"tenant":2}]}`, `{"supportedInterfaces":[{"tenant":{}}]}`,
	`{"additionalInterfaces":{}}`, `{"additionalInterfaces":[true]}`, `{"additionalInterfaces":[{"transport":[]}]}`,
	`{"securitySchemes":[]}`, `{"capabilities":"x"}`, `{"capabilities":1}`, `{"skills":{}}`, `{"skills":"x"}`,
	`{"defaultInputModes":"x"}`, `{"defaultInputModes":[1]}`, `{"defaultInputModes":[["x"]]}`, `{"defaultOutputModes":{}}`,
	`{"supportsAuthenticatedExtendedCard":true,"signatures":[{"protected":"e30"}]}`,
}

// sameDocument fails t when decodeTree and json.Unmarshal read data differently: both
// read it, to equal documents, or neither does. Documents with stray members, or that
// readTree refuses, are not decodeTree's.
func sameDocument(t *testing.T, data []byte) {
	t.Helper()
	r, tree, err := readTree(data, cardSchema())
	if err != nil || len(r.strays) > 0 || tree.kind != '{' {
		return
	}
	var fromTree, fromJSON document
	treeOK := fromTree.decodeTree(data, tree)
	jsonErr := json.Unmarshal(data, &fromJSON)
	if treeOK != (jsonErr == nil) {
		t.Fatalf("%q: decodeTree ok=%v, json.Unmarshal error %v", data, treeOK, jsonErr)
	}
	if treeOK && !reflect.DeepEqual(&fromTree, &fromJSON) {
		tj, _ := json.Marshal(&fromTree)
		jj, _ := json.Marshal(&fromJSON)
		t.Fatalf("%q: documents differ:\ntree %s\njson %s", data, tj, jj)
	}
}

// FuzzDocumentFromTree holds decodeTree to json.Unmarshal, the reader it replaces.
func FuzzDocumentFromTree(f *testing.F) {
	for _, d := range treeDocs(f) {
		f.Add(d)
	}
	for _, s := range treeDecodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(sameDocument)
}

// TestDocumentFromTree: on the seeds and the repository's cards, decodeTree reads what
// json.Unmarshal reads, and refuses what it refuses.
func TestDocumentFromTree(t *testing.T) {
	docs := treeDocs(t)
	for _, s := range treeDecodeSeeds {
		docs = append(docs, []byte(s))
	}
	read := 0
	for _, d := range docs {
		sameDocument(t, d)
		if r, tree, err := readTree(d, cardSchema()); err == nil && len(r.strays) == 0 && tree.kind == '{' {
			var doc document
			if doc.decodeTree(d, tree) {
				read++
			}
		}
	}
	if read < 20 {
		t.Errorf("decodeTree read %d of the %d seeds: the differential compares too few documents", read, len(docs))
	}
}

// TestDocumentFromTreeFields keeps decodeTree's field names in step with the json tags
// of document and of its interface entries: every tagged field, written with a value of
// its type, is read by decodeTree as json.Unmarshal reads it. A field added to the
// structs and not to decodeTree fails here.
func TestDocumentFromTreeFields(t *testing.T) {
	sample := map[reflect.Kind]string{reflect.String: `"x"`, reflect.Map: `{"k":{"a":1}}`}
	value := func(ft reflect.Type) string {
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case ft == reflect.TypeFor[json.RawMessage]():
			return `{"a":1}`
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.String:
			return `["x"]`
		case ft.Kind() == reflect.Slice:
			return `[{"a":1}]`
		}
		return sample[ft.Kind()]
	}
	docs := 0
	for _, st := range []struct {
		typ  reflect.Type
		wrap func(member string) string
	}{
		{reflect.TypeFor[document](), func(m string) string { return "{" + m + "}" }},
		{reflect.TypeFor[rawV1Interface](), func(m string) string { return `{"supportedInterfaces":[{` + m + `}]}` }},
		{reflect.TypeFor[rawV03Interface](), func(m string) string { return `{"url":"u","additionalInterfaces":[{` + m + `}]}` }},
	} {
		for f := range st.typ.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			v := value(f.Type)
			if v == "" {
				t.Fatalf("%s.%s: no sample value for %s", st.typ.Name(), f.Name, f.Type)
			}
			doc := []byte(st.wrap(strconv.Quote(name) + ":" + v))
			sameDocument(t, doc)
			var want document
			if err := json.Unmarshal(doc, &want); err != nil || reflect.DeepEqual(&want, &document{}) {
				t.Fatalf("%s: json.Unmarshal read nothing (%v): the sample does not exercise %s", doc, err, f.Name)
			}
			docs++
		}
	}
	if docs < 18 {
		t.Errorf("checked %d tagged fields, want every field of the three structs", docs)
	}
}
