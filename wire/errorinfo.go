package wire

import (
	"encoding/json"

	"github.com/a2aproject/a2a-go/v2/errordetails"
)

// errorInfo reads (with jsontext, jsonscan.go) the google.rpc.ErrorInfo among a JSON-RPC error's data or a
// google.rpc.Status's details as a2a-go's errordetails reads them (json.Unmarshal
// into []*errordetails.Typed, or leniently a single errordetails.Typed): the first
// detail, null ones skipped, with a non-empty string "reason" whose "@type" is
// ErrorInfo or Struct (a detail without a string "@type" is a Struct), and the
// "expectedTenant" string member of its "metadata" object (the one member of it the
// evidence reads). Member names match exactly and the last of a duplicated member wins,
// as in the map errordetails decodes into; a list holding anything but objects and
// nulls has no ErrorInfo, as its decoding fails. It scans the bytes instead of decoding
// every detail into a map[string]any, which was the largest part of reading an answer,
// and builds no map of the metadata; FuzzErrorInfo holds it to the errordetails reading.
func errorInfo(raw json.RawMessage) (reason, expectedTenant string) {
	if d, ok := readDetail(raw); ok {
		if d.errorInfo() {
			return d.read()
		}
		return "", ""
	}
	// Every element must be an object or null (else the decoding fails), so the whole
	// list is read before the first ErrorInfo in it is.
	var found detail
	ok := false
	list := elements(raw, func(v []byte) bool {
		d, obj := readDetail(v)
		if obj && !ok && d.errorInfo() {
			found, ok = d, true
		}
		return obj || string(v) == "null"
	})
	if list && ok {
		return found.read()
	}
	return "", ""
}

// detail is where a detail object's last "@type", "reason" and "metadata" values are in
// the scanned bytes (nil for a member not there).
type detail struct{ typ, reason, metadata []byte }

// errorInfo reports whether the detail is the one errorInfo reads: a non-empty string
// reason and an ErrorInfo or Struct type.
func (d detail) errorInfo() bool {
	r, ok := text(d.reason)
	if !ok || len(r) == 0 {
		return false
	}
	t, ok := text(d.typ)
	if !ok {
		return true // no string @type: errordetails reads a Struct
	}
	return string(t) == errordetails.ErrorInfoType || string(t) == errordetails.StructType
}

// read returns the detail's reason and its metadata's "expectedTenant" string member
// ("" when metadata is not an object, or when a later member of that name is not a
// string: the last duplicate wins).
func (d detail) read() (reason, expectedTenant string) {
	t, _ := text(d.reason)
	r := known(t)
	if len(d.metadata) == 0 || d.metadata[0] != '{' {
		return r, ""
	}
	var tenant []byte
	members(d.metadata, func(name, v []byte) {
		if string(name) == ExpectedTenantKey {
			tenant = v
		}
	})
	t, _ = text(tenant)
	return r, known(t)
}

// readDetail reads the object b into a detail; false when b is not one object.
func readDetail(b []byte) (detail, bool) {
	var d detail
	ok := members(b, func(name, v []byte) {
		switch string(name) {
		case "@type":
			d.typ = v
		case "reason":
			d.reason = v
		case "metadata":
			d.metadata = v
		}
	})
	return d, ok
}
