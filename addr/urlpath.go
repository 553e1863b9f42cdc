package addr

import "net/url"

// ExtendPath returns u, a parse of an Address's HTTPURL, with suffix appended to its
// path: the URL that HTTPURL's string followed by suffix reads as, without reading it
// again. That holds only for a plain suffix (unreserved characters, '/' and ':', which a
// path carries as they are) after a path or starting one, on a URL with no query,
// fragment, escaped path or opaque part; for anything else ExtendPath returns nil, and
// the caller parses the whole string. FuzzExtendPath holds it to net/url.
func ExtendPath(u *url.URL, suffix string) *url.URL {
	if suffix != "" && (u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || u.RawFragment != "" || u.RawPath != "" ||
		u.Opaque != "" || u.Path == "" && suffix[0] != '/' || !plainPath(suffix)) {
		return nil
	}
	c := *u
	c.Path += suffix
	return &c
}

// plainPath reports whether s holds only unreserved characters, '/' and ':'.
func plainPath(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '-' || c == '.' || c == '_' || c == '~' || c == '/' || c == ':':
		default:
			return false
		}
	}
	return true
}
