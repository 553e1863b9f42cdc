package guard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	a2agrpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/delegate"
	"github.com/a2abind/a2abind/guard"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/probe"
)

// seeds are the seed incident's agents, in both card shapes.
var seeds = []struct {
	name  string
	agent []lab.Option
}{{"v0.3 card", lab.Seed()}, {"v1.0 card", lab.SeedV1()}}

// TestNormalizeTurnsTheSeedAgentsIntoTruthfulCards: behind --normalize both seed
// agents publish a card that a probe passes, on which a2abind's delegate succeeds in one
// attempt, and on which the record's three clients (real a2a-go v2.3.1 clients) all
// succeed. Against the upstream card itself the two that follow a preference fail, as
// in the record: the check is not one that passes whatever the card says.
func TestNormalizeTurnsTheSeedAgentsIntoTruthfulCards(t *testing.T) {
	t.Parallel()
	for _, tt := range seeds {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			a := labtest.Start(t, tt.agent...)
			g := startGuard(t, a.BaseURL, guard.WithNormalize())
			got := get(t, cardOf(g))
			if got.status != http.StatusOK || got.header.Get(guard.HeaderNormalized) == "" {
				t.Fatalf("card = %d (%s %q), want 200 marked normalized: %s", got.status, guard.HeaderNormalized,
					got.header.Get(guard.HeaderNormalized), got.body)
			}
			c, err := card.Fetch(ctx, g.URL())
			if err != nil {
				t.Fatal(err)
			}
			if rep := probe.Diagnose(c, probe.Card(ctx, c, probe.WithTimeout(5*time.Second))); !rep.OK() {
				t.Errorf("probe of the normalized card: %+v", rep.Findings)
			}
			if n := delegateAttempts(ctx, t, c); n != 1 {
				t.Errorf("delegate needed %d attempts on the normalized card, want 1", n)
			}
			for _, rc := range recordClients {
				if err := rc.send(ctx, []byte(got.body)); err != nil {
					t.Errorf("%s on the normalized card: %v", rc.name, err)
				}
			}
			for _, rc := range recordClients[:2] {
				if rc.send(ctx, a.CardJSON) == nil {
					t.Errorf("%s succeeded on the upstream card; the record says it fails", rc.name)
				}
			}
		})
	}
}

// delegateAttempts sends one message with a2abind's delegate and counts its attempts.
func delegateAttempts(ctx context.Context, t *testing.T, c *card.Card) int {
	t.Helper()
	cli, err := delegate.NewFromCard(c, delegate.WithPlaintextGRPC(), delegate.WithAttemptTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	var tr delegate.Trace
	if _, err := cli.SendMessage(delegate.WithTrace(ctx, &tr), &a2a.SendMessageRequest{
		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("through the guard's card")),
	}); err != nil {
		t.Fatalf("delegate SendMessage: %v (attempts %+v)", err, tr.Attempts())
	}
	return len(tr.Attempts())
}

// recordClient is one client of the seed record, modelled with the real a2a-go v2.3.1
// client: every transport (1.0 and 0.3, gRPC in plaintext), the card read as a v0.3
// client reads it when it is one, and the client's own transport preference; the SDK
// selects the interface.
type recordClient struct {
	name   string
	prefer []a2a.TransportProtocol // nil: no preference, the card's hint wins
}

var recordClients = []recordClient{
	{"the client that honours the card's preference", nil},
	{"the client that resolves the gRPC entry", []a2a.TransportProtocol{a2a.TransportProtocolGRPC}},
	{"the client that uses JSON-RPC", []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC}},
}

func (rc recordClient) send(ctx context.Context, cardJSON []byte) error {
	parse := agentcard.DefaultCardParser
	if c, err := card.Parse(cardJSON); err == nil && c.Shape == card.ShapeV03 {
		parse = a2av0.NewAgentCardParser()
	}
	ac, err := parse(cardJSON)
	if err != nil {
		return err
	}
	plain := grpc.WithTransportCredentials(insecure.NewCredentials())
	client, err := a2aclient.NewFromCard(ctx, ac,
		a2agrpc.WithGRPCTransport(plain), a2agrpcv0.WithGRPCTransport(plain),
		a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{}), a2av0.WithRESTTransport(a2av0.RESTTransportConfig{}),
		a2aclient.WithConfig(a2aclient.Config{PreferredTransports: rc.prefer}))
	if err != nil {
		return err
	}
	defer func() { _ = client.Destroy() }()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, err = client.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hello"))})
	return err
}

// logBuffer collects a guard's JSON log lines.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestNormalizeDropsSignaturesAndSaysSo: a signed lying card is never altered silently:
// the published card has no signatures, a header counts them, and the log says so.
func TestNormalizeDropsSignaturesAndSaysSo(t *testing.T) {
	t.Parallel()
	a := labtest.Start(t, lab.WithJSONRPC(card.V1, "/"), lab.WithGRPC(lab.GRPCNoService), lab.WithCard(func(a *lab.Agent) any {
		c := lab.V1Card("signed-seed", lab.Decl{URL: a.BaseURL, Binding: lab.GRPC, Version: card.V1},
			lab.Decl{URL: a.BaseURL, Binding: lab.JSONRPC, Version: card.V1})
		c["signatures"] = []map[string]string{{"protected": "eyJhbGciOiJFUzI1NiIsImtpZCI6ImsxIn0", "signature": "c2lnbmF0dXJl"}}
		return c
	}))
	logs := &logBuffer{}
	g := startGuard(t, a.BaseURL, guard.WithNormalize(), guard.WithLogger(slog.New(slog.NewJSONHandler(logs, nil))))
	got := get(t, cardOf(g))
	if got.status != http.StatusOK || got.header.Get(guard.HeaderSignaturesDropped) != "1" {
		t.Fatalf("card = %d, %s = %q; want 200 and 1", got.status, guard.HeaderSignaturesDropped, got.header.Get(guard.HeaderSignaturesDropped))
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(got.body), &doc); err != nil {
		t.Fatal(err)
	}
	if _, ok := doc["signatures"]; ok {
		t.Errorf("the rewritten card still carries the upstream's signatures: %s", got.body)
	}
	if !strings.Contains(logs.String(), "signatures dropped") {
		t.Errorf("no log line says the signatures were dropped:\n%s", logs)
	}
}
