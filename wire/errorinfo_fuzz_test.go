package wire

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/errordetails"
)

// errorInfoTyped is the reading errorInfo replaced, kept as its oracle: json.Unmarshal
// into a2a-go's []*errordetails.Typed or, leniently, one errordetails.Typed.
func errorInfoTyped(raw json.RawMessage) (string, map[string]string) {
	if len(raw) == 0 {
		return "", nil
	}
	var list []*errordetails.Typed
	if json.Unmarshal(raw, &list) != nil {
		var one errordetails.Typed
		if json.Unmarshal(raw, &one) != nil {
			return "", nil
		}
		list = []*errordetails.Typed{&one}
	}
	for _, d := range list {
		if d == nil {
			continue
		}
		r, _ := d.Value["reason"].(string)
		if r == "" || d.TypeURL != errordetails.ErrorInfoType && d.TypeURL != errordetails.StructType {
			continue
		}
		var md map[string]string
		if m, ok := d.Value["metadata"].(map[string]any); ok {
			md = make(map[string]string, len(m))
			for k, v := range m {
				if s, ok := v.(string); ok {
					md[k] = s
				}
			}
		}
		return r, md
	}
	return "", nil
}

// errorInfoSeeds are details that tell readers apart: case-variant and escaped member
// names, duplicates (the last wins), non-string reasons and types, a single object for
// a list, a missing @type (a Struct), other types, null elements, elements that are not
// objects, metadata with non-string and duplicate members, invalid UTF-8, deep nesting.
var errorInfoSeeds = []string{
	`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org","metadata":{"taskId":"x"}}]`,
	`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","Reason":"TASK_NOT_FOUND"}]`,
	`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","REASON":"A","reason":"B"}]`,
	`[{"@TYPE":"type.googleapis.com/google.rpc.BadRequest","reason":"A"}]`,
	`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"A","reason":"B"}]`,
	`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"A","reason":7}]`,
	`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":7,"reason":"A"}]`,
	`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":""},{"reason":"SECOND"}]`,
	`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","@type":1,"reason":"A"}]`,
	`[{"@type":"type.googleapis.com/google.rpc.BadRequest","@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"A"}]`,
	`[{"@type":"type.googleapis.com/google.protobuf.Struct","reason":"S"}]`,
	`[{"@type":"type.googleapis.com/google.rpc.DebugInfo","reason":"D"},{"reason":"NO_TYPE","metadata":{"a":"b","c":1,"d":null,"e":{"f":"g"}}}]`,
	`{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"ONE","metadata":{}}`,
	`{"reason":"ONE","metadata":null}`,
	`{"reason":"ONE","metadata":[]}`,
	`{"reason":"ONE","metadata":{"k":"a","k":2}}`,
	`{"reason":"ONE","metadata":{"k":2,"k":"a"}}`,
	`{"re\u0061son":"ESC\u00e9\ud83d\ude00","metadata":{"expected\u0054enant":"t\"x\\"}}`,
	`[{"reason":"\ud800"}]`, "[{\"reason\":\"bad\xff\xfeutf8\",\"metadata\":{\"k\xff\":\"v\xc3\"}}]",
	`[null,{"reason":"AFTER_NULL"}]`, `[{"reason":"A"},1]`, `[{"reason":"A"},"x"]`, `[{"reason":"A"},[]]`,
	`[[{"reason":"NESTED"}]]`, `[]`, `{}`, `null`, `"reason"`, `7`, `true`, ``, ` `, `[`, `{"reason":"A"`,
	` [ { "reason" : "SPACED" , "metadata" : { "a" : "b" } } , null ] `,
	`[{"x":{"reason":"DEEP"},"y":[1,{"reason":"NO"}],"reason":"TOP"}]`,
	`[{"reason":"A","x":"a]}\"{["}]`,
	`{"reason":"A","metadata":{"a":"1","b":true,"c":-1.5e3,"d":"2"}}`,
	`{"reason":"T","metadata":{"expectedTenant":"a","expectedTenant":2}}`,
	`{"reason":"T","metadata":{"expectedTenant":2,"expectedTenant":"b"}}`,
	`{"reason":"T","metadata":{"expectedTenant":null}}`,
	`{"reason":"T","metadata":{"ExpectedTenant":"c","expectedtenant":"d"}}`,
	`[{"reason":"T","metadata":{"taskId":"x","expectedTenant":"eu"}}]`,
	`[` + strings.Repeat(`{"a":[`, 200) + strings.Repeat(`]}`, 200) + `,{"reason":"AFTER_DEEP"}]`,
}

// FuzzErrorInfo holds errorInfo's scan of the bytes to the errordetails reading it
// replaced: the same reason and expected tenant for every input.
func FuzzErrorInfo(f *testing.F) {
	for _, s := range errorInfoSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, tenant := errorInfo(b)
		wr, wmd := errorInfoTyped(b)
		if r != wr || tenant != wmd["expectedTenant"] {
			t.Fatalf("errorInfo(%q) = %q, %q; errordetails reads %q, %#v", b, r, tenant, wr, wmd)
		}
	})
}

// TestErrorInfoReads: the seeds that hold an ErrorInfo are read as one (the fuzz
// target above only compares, so a reader that found nothing would pass it).
func TestErrorInfoReads(t *testing.T) {
	found := 0
	for _, s := range errorInfoSeeds {
		if r, _ := errorInfo([]byte(s)); r != "" {
			found++
		}
	}
	if found < 20 {
		t.Errorf("errorInfo read a reason in %d seeds, want at least 20", found)
	}
}
