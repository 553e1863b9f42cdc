package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/lint"
	"github.com/a2abind/a2abind/probe"
)

// The readers of TestCardBytesDifferential, in table order.
const (
	readerGo       = iota // a2a-go v2.4.0 agentcard.Resolver, DefaultCardParser (a2a-go-default, a2a-go-grpc)
	readerGoCompat        // the same with a2av0.NewAgentCardParser (the a2a-go v0.3 compat profiles)
	readerProto           // protojson into a2apb.AgentCard, unknown fields discarded
	readerJS              // @a2a-js/sdk 1.3.0 DefaultAgentCardResolver (interop/js/resolve.mjs)
	readerJS03            // @a2a-js/sdk 0.3.14 DefaultAgentCardResolver
	readers
)

var readerNames = [readers]string{"a2a-go", "a2a-go-v03-compat", "protojson", "a2a-js", "a2a-js-03"}

// readerProfiles are the client profiles whose prediction is a2abind's claim about a
// reader of a document it reads.
var readerProfiles = map[string]int{"a2a-go-default": readerGo, "a2a-go-v03-compat": readerGoCompat,
	"a2a-js-default": readerJS, "a2a-js-03-default": readerJS03}

// TestCardBytesDifferential serves card documents written in ways JSON readers disagree
// on (a BOM, nesting at and past encoding/json's limit, invalid UTF-8, lone surrogates,
// a repeated member, something after the document, control characters, whitespace
// outside JSON's, huge numbers) on loopback, has the real readers fetch them, and
// checks that what a2abind says of each reader is what it does: for a document a2abind
// reads, the probe's client-impact prediction for a2a-go and a2a-js 1.3.0 and 0.3.14
// (over a real probe of the lab agent the union card declares, which every one of them
// uses) and lint's document-refused finding for protojson; for a document it refuses,
// its error's finding (document-refused, member-duplicate) or, for a plain syntax
// error, that every reader refuses it. a2abind
// makes no claim about protojson for a document it reads without a finding (invalid
// UTF-8, lone surrogates: no client it models reads card bytes with protojson). Each
// reader's verdict is also pinned, so that a change in an SDK shows here.
func TestCardBytesDifferential(t *testing.T) {
	env := needNode(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	agent := labtest.Start(t, lab.Union()...)
	plainCard, err := card.Parse(agent.CardJSON)
	if err != nil {
		t.Fatal(err)
	}
	results := probe.Card(ctx, plainCard, probe.WithTimeout(5*time.Second))

	// with returns the lab card with extra written after its last member.
	obj := bytes.TrimSpace(agent.CardJSON)
	with := func(extra string) string { return string(obj[:len(obj)-1]) + extra + "}" }
	nest := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	const r, R = false, true // reads, refuses
	docs := []struct {
		name string
		body string
		want [readers]bool // refuses, by reader: pinned as observed
	}{ // a2a-js 1.3.0 and 0.3.14 read alike
		{"plain", with(""), [readers]bool{r, r, r, r, r}},
		{"BOM", "\ufeff" + with(""), [readers]bool{R, R, R, r, r}},
		{"two BOMs", "\ufeff\ufeff" + with(""), [readers]bool{R, R, R, r, r}}, // Node's fetch drops one, its TextDecoder the next
		{"three BOMs", "\ufeff\ufeff\ufeff" + with(""), [readers]bool{R, R, R, R, R}},
		{"nesting 10000", with(`,"x":` + nest(9999)), [readers]bool{r, r, r, r, r}},
		{"nesting 10001", with(`,"x":` + nest(10000)), [readers]bool{R, R, R, r, r}},
		{"nesting 10001 in objects", with(`,"x":` + strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000)), [readers]bool{R, R, R, r, r}},
		{"invalid UTF-8", with(",\"x\":\"\xff\""), [readers]bool{r, r, R, r, r}},
		{"invalid UTF-8 in a key", with(",\"x\xff\":1"), [readers]bool{r, r, R, r, r}},
		{"UTF-8 encoded surrogate", with(",\"x\":\"\xed\xa0\x80\""), [readers]bool{r, r, R, r, r}},
		{"lone surrogate escape", with(`,"x":"\ud800"`), [readers]bool{r, r, R, r, r}},
		{"lone low surrogate escape", with(`,"x":"\udc00"`), [readers]bool{r, r, R, r, r}},
		{"escaped NUL", with(`,"x":"\u0000"`), [readers]bool{r, r, r, r, r}},
		{"repeated member", with(`,"name":"other"`), [readers]bool{r, r, R, r, r}},
		{"garbage after", with("") + "x", [readers]bool{R, R, R, R, R}},
		{"second document after", with("") + "{}", [readers]bool{R, R, R, R, R}},
		{"NUL after", with("") + "\x00", [readers]bool{R, R, R, R, R}},
		{"NUL in a string", with(",\"x\":\"\x00\""), [readers]bool{R, R, R, R, R}},
		{"control character in a string", with(",\"x\":\"\x01\""), [readers]bool{R, R, R, R, R}},
		{"JSON whitespace around", " \t\r\n" + with("") + " \t\r\n", [readers]bool{r, r, r, r, r}},
		{"form feed before", "\f" + with(""), [readers]bool{R, R, R, R, R}},
		{"no-break space after", with("") + "\u00a0", [readers]bool{R, R, R, R, R}},
		{"BOM after", with("") + "\ufeff", [readers]bool{R, R, R, R, R}},
		{"UTF-16 BOM", "\xff\xfe" + with(""), [readers]bool{R, R, R, R, R}},
		{"huge number", with(`,"x":1e400`), [readers]bool{r, r, r, r, r}},
		{"huge integer", with(`,"x":123456789012345678901234567890`), [readers]bool{r, r, r, r, r}},
		{"NaN", with(`,"x":NaN`), [readers]bool{R, R, R, R, R}},
		{"leading zero", with(`,"x":01`), [readers]bool{R, R, R, R, R}},
		{"trailing comma", with(","), [readers]bool{R, R, R, R, R}},
		{"empty", "", [readers]bool{R, R, R, R, R}},
	}

	// Serve each document at /<i> on loopback, as an agent would.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	for i, d := range docs {
		mux.HandleFunc(fmt.Sprintf("GET /%d", i), func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(d.body))
		})
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	base := "http://" + ln.Addr().String()

	js := resolveJS(ctx, t, env, base, len(docs))
	client := &http.Client{Timeout: 10 * time.Second}
	goResolvers := [2]*agentcard.Resolver{{Client: client}, {Client: client, CardParser: a2av0.NewAgentCardParser()}}
	var table strings.Builder
	column := func(k int, s string) string { return fmt.Sprintf(" %-*s", max(9, len(readerNames[k])), s) }
	fmt.Fprintf(&table, "%-32s", "document")
	for k := range readers {
		table.WriteString(column(k, readerNames[k]))
	}
	table.WriteString(" a2abind\n")
	for i, d := range docs {
		var got [readers]bool
		var why [readers]string
		for k, res := range goResolvers {
			if _, err := res.Resolve(ctx, base, agentcard.WithPath(fmt.Sprintf("/%d", i))); err != nil {
				got[readerGo+k], why[readerGo+k] = true, err.Error()
			}
		}
		if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal([]byte(d.body), &a2apb.AgentCard{}); err != nil {
			got[readerProto], why[readerProto] = true, err.Error()
		}
		for k, v := range js[i] {
			got[k], why[k] = v.refuses, v.err
		}
		says, verdict := a2abindSays(t, []byte(d.body), results)

		row := fmt.Sprintf("%-32s", d.name)
		for k := range readers {
			row += column(k, verdictWord(got[k]))
			if got[k] != d.want[k] {
				t.Errorf("%s: %s %s it (%s), the table says it %s: has the SDK changed?", d.name, readerNames[k], verdictWord(got[k]), why[k], verdictWord(d.want[k]))
			}
			if says[k] != nil && *says[k] != got[k] {
				t.Errorf("%s: a2abind says %s %s it (%s), but it %s it (%s)", d.name, readerNames[k], verdictWord(*says[k]), verdict, verdictWord(got[k]), why[k])
			}
		}
		fmt.Fprintf(&table, "%s %s\n", row, verdict)
	}
	t.Logf("what each reader does with each document:\n%s", table.String())
}

func verdictWord(refuses bool) string {
	if refuses {
		return "refuses"
	}
	return "reads"
}

// a2abindSays is what a2abind says each reader does with body (nil: no claim), with
// a2abind's own verdict for the table: for a document it reads, the client-impact
// prediction of Diagnose over results (a2a-go-default, a2a-go-v03-compat,
// a2a-js-default) and, for protojson, its document-refused finding; for one it refuses,
// the finding of its error, or, for invalid JSON, that every reader refuses it.
func a2abindSays(t *testing.T, body []byte, results []probe.Result) ([readers]*bool, string) {
	t.Helper()
	yes, no := true, false
	var says [readers]*bool
	c, err := card.Parse(body)
	if err != nil {
		x, ok := card.FindingOf(err)
		switch {
		case ok && x.Code == card.CodeDocumentRefused:
			says = [readers]*bool{&yes, &yes, &yes, &no, &no}
		case ok && x.Code == card.CodeMemberDuplicate:
			says = [readers]*bool{&no, &no, &yes, &no, &no}
		case ok:
			t.Fatalf("Parse() = %v: a finding this test does not know", err)
		default:
			says = [readers]*bool{&yes, &yes, &yes, &yes, &yes}
		}
		verdict := "refuses"
		if ok {
			verdict += ": " + x.Code
		}
		return says, verdict
	}
	verdict := "reads"
	for _, f := range lint.Lint(c) {
		if f.Code == card.CodeDocumentRefused {
			says[readerProto] = &yes
			verdict += ": " + f.Code
		}
	}
	for _, ci := range probe.Diagnose(c, results).Clients {
		if k, ok := readerProfiles[ci.Profile]; ok {
			refuses := !ci.OK
			says[k] = &refuses
		}
	}
	return says, verdict
}

// jsVerdict is what resolve.mjs said of one document.
type jsVerdict struct {
	refuses bool
	err     string
}

// resolveJS has @a2a-js/sdk's resolvers read documents base/0 to base/n-1, in one node
// process: each document's verdicts by reader.
func resolveJS(ctx context.Context, t *testing.T, env nodeEnv, base string, n int) []map[int]jsVerdict {
	t.Helper()
	urls := make([]string, n)
	for i := range urls {
		urls[i] = fmt.Sprintf("%s/%d", base, i)
	}
	ctx, cancel := context.WithTimeout(ctx, clientTimeout)
	defer cancel()
	cmd := env.command(ctx, "resolve.mjs", urls...)
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("resolve.mjs: %v\nstderr:\n%s", err, stderr.String())
	}
	var got []map[int]jsVerdict
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line struct {
			URL string `json:"url"`
			SDK map[string]struct {
				OK    bool   `json:"ok"`
				Error string `json:"error"`
			} `json:"sdk"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil || line.URL != urls[len(got)] || len(line.SDK) != 2 {
			t.Fatalf("resolve.mjs line %q (%v), want one for %s with two SDKs", sc.Text(), err, urls[len(got)])
		}
		v := map[int]jsVerdict{}
		for version, k := range map[string]int{wantSDKVersion: readerJS, wantSDK03Version: readerJS03} {
			v[k] = jsVerdict{refuses: !line.SDK[version].OK, err: line.SDK[version].Error}
		}
		got = append(got, v)
	}
	if len(got) != n {
		t.Fatalf("resolve.mjs answered %d of %d documents:\n%s\nstderr:\n%s", len(got), n, out, stderr.String())
	}
	return got
}
