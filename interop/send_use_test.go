package interop

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/a2abind/a2abind/wire"
)

// TestSendUseA2AGoVersionDrift: a2a-go's `a2a serve --echo --protocol 0.3` publishes a
// card stamped 1.0 and serves HTTP+JSON 0.3. probe proves what is there; send --use
// rest@0.3=URL (rest being the a2a-go CLI's word for HTTP+JSON) then calls that
// undeclared interface on the wire and gets the echo, the attempt marked undeclared;
// without --use, send's hint names that --use value. It
// runs against both releases (a2aGoReleases): v2.3.1 serves its own dialect at {url},
// v2.4.0 the specification's under {url}/v1.
func TestSendUseA2AGoVersionDrift(t *testing.T) {
	t.Parallel()
	for _, release := range a2aGoReleases(t) {
		t.Run(release, func(t *testing.T) {
			t.Parallel()
			sendUseDrift(t, buildA2AGoCLI(t, release))
		})
	}
}

func sendUseDrift(t *testing.T, bin string) {
	base := startA2AGoEcho(t, bin, "--protocol", "0.3")
	out, _ := runA2abind(t, "probe", "-o", "json", "--timeout", "20s", base)
	var p struct {
		Interfaces []struct {
			URL           string       `json:"url"`
			Outcome       wire.Outcome `json:"outcome"`
			ActualBinding string       `json:"actualBinding"`
		} `json:"interfaces"`
	}
	if err := json.Unmarshal(out, &p); err != nil || len(p.Interfaces) != 1 {
		t.Fatalf("probe -o json: %v\n%s", err, out)
	}
	iface := p.Interfaces[0]
	if iface.ActualBinding != "HTTP+JSON" {
		t.Fatalf("probe found %+v, want HTTP+JSON really there", iface)
	}

	// Without --use, send fails, and its hint names the --use value that works.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	plain, err := a2abind(ctx, "send", "--no-cache", "--timeout", "20s", base, "hello drift").CombinedOutput()
	if want := "hint: what a lookup found served there is not declared by the card: call it with --use rest@0.3=" + iface.URL; err == nil || !strings.Contains(string(plain), want) {
		t.Errorf("send without --use = %v, %s; want a failure whose hint names %s", err, plain, want)
	}

	out, code := runA2abind(t, "send", "-o", "json", "--no-cache", "--timeout", "20s",
		"--use", "rest@0.3="+iface.URL, base, "hello drift")
	var s struct {
		OK       bool `json:"ok"`
		Attempts []struct {
			URL             string       `json:"url"`
			Binding         string       `json:"binding"`
			ProtocolVersion string       `json:"protocolVersion"`
			Outcome         wire.Outcome `json:"outcome"`
			Undeclared      bool         `json:"undeclared"`
		} `json:"attempts"`
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(out, &s); err != nil {
		t.Fatalf("send -o json: %v\n%s", err, out)
	}
	if code != 0 || !s.OK || len(s.Attempts) != 1 || !strings.Contains(string(s.Result), "hello drift") {
		t.Fatalf("send --use = exit %d, %s; want 0, one attempt and the echo", code, out)
	}
	if a := s.Attempts[0]; !a.Undeclared || a.Binding != "HTTP+JSON" || a.ProtocolVersion != "0.3" || a.Outcome != wire.Served {
		t.Errorf("attempt %+v, want the undeclared HTTP+JSON 0.3 interface, served", a)
	}
}
