package exporter_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// TestProbe_CardChangesBetweenScrapes: the exporter keeps the last card of each target
// to skip reading an unchanged document again, and checks it while the card is fetched
// again; a card that changes between scrapes still gets the new card's series (its
// interfaces alone: the old ones are no longer counted, the early check is dropped), a
// card that cannot be fetched reports no card, and the first card served again is read
// and checked again. Each probe's log says which it was.
func TestProbe_CardChangesBetweenScrapes(t *testing.T) {
	a := labtest.Start(t, lab.Healthy()...)
	jsonrpc := lab.Decl{URL: a.URL(lab.PathJSONRPC), Binding: lab.JSONRPC, Version: card.V1}
	grpc := lab.Decl{URL: a.GRPCAddr, Binding: lab.GRPC, Version: card.V1}
	rest := lab.Decl{URL: a.URL(lab.PathREST), Binding: lab.HTTPJSON, Version: card.V1}
	three := mustJSON(t, lab.V1Card("three", jsonrpc, grpc, rest))
	two := mustJSON(t, lab.V1Card("two", lab.Decl{URL: a.URL("/nothing-here"), Binding: lab.JSONRPC, Version: card.V1}, rest))
	cards := labtest.NewAnswerer(t)
	base := start(t, nil)
	path := probePath(cards.URL + card.WellKnownPath)

	scrapeThree := func(when string) {
		t.Helper()
		cards.Set(http.StatusOK, "application/json", three)
		for range 2 { // read, then reused
			_, _, f := scrape(t, base, path)
			mustValue(t, f, "a2abind_card_interfaces", nil, 3)
			mustValue(t, f, "probe_success", nil, 1)
			for _, d := range []lab.Decl{jsonrpc, grpc, rest} {
				mustValue(t, f, "a2abind_interface_up", ifaceLabels(d.URL, string(d.Binding), d.Version), 1)
			}
			if n := len(f["a2abind_interface_up"].GetMetric()); n != 3 {
				t.Errorf("%s: %d interface_up series, want 3", when, n)
			}
		}
	}
	scrapeThree("first card")

	cards.Set(http.StatusOK, "application/json", two)
	_, _, f := scrape(t, base, path)
	mustValue(t, f, "a2abind_card_interfaces", nil, 2)
	mustValue(t, f, "probe_success", nil, 0)
	mustValue(t, f, "a2abind_interface_up", ifaceLabels(a.URL("/nothing-here"), "JSONRPC", "1.0"), 0)
	mustValue(t, f, "a2abind_interface_up", ifaceLabels(rest.URL, "HTTP+JSON", "1.0"), 1)
	if n := len(f["a2abind_interface_up"].GetMetric()); n != 2 {
		t.Errorf("changed card: %d interface_up series, want its 2 (the old card's are not counted)", n)
	}

	cards.Set(http.StatusInternalServerError, "application/json", three)
	_, _, f = scrape(t, base, path)
	mustValue(t, f, "a2abind_card_fetch_success", nil, 0)
	if f["a2abind_card_interfaces"] != nil || f["a2abind_interface_up"] != nil {
		t.Errorf("a failed fetch reported a card: %v %v", f["a2abind_card_interfaces"], f["a2abind_interface_up"])
	}

	scrapeThree("first card again")

	early := "interfaces checked while the card was fetched"
	dropped := "was canceled and dropped"
	for id, want := range map[int][]string{1: nil, 2: {early}, 3: {"the card changed since the last scrape", dropped},
		4: {"card fetch failed", dropped}, 5: nil, 6: {early}} {
		_, logs, _ := get(t, base+"/logs?id="+strconv.Itoa(id))
		for _, w := range want {
			if !strings.Contains(logs, w) {
				t.Errorf("probe %d's log does not say %q:\n%s", id, w, logs)
			}
		}
		if strings.Count(logs, "not obtainable") > 1 {
			t.Errorf("probe %d's log says why the card is missing twice:\n%s", id, logs)
		}
		if len(want) == 0 && (strings.Contains(logs, early) || strings.Contains(logs, dropped)) {
			t.Errorf("probe %d had no previous card, its log says otherwise:\n%s", id, logs)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
