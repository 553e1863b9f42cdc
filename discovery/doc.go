// Package discovery finds the A2A agents an organisation lists: in targets files (one
// URL a line, the format of probe --targets), in AI Catalogs (a JSON document of
// entries, /.well-known/ai-catalog.json) and in RFC 9727 API catalogs
// (/.well-known/api-catalog, an application/linkset+json document). It reads these
// documents strictly (member names matched exactly, duplicates refused), fetches
// catalogs the way a card is fetched (card.FetchDocument: the same bounds, dial policy
// and redirect rules), follows nested catalogs to a bounded depth without cycles, and
// refuses, entry by entry with a reason, what must not be probed: paths, local
// sockets, metadata addresses, hosts outside the caller's allow-list, names with
// control characters. The exporter's /sd and probe --catalog call it.
package discovery
