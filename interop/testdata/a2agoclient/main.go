// Command a2agoclient runs an a2a-go release's client, built as probe's a2a-go client
// profiles model it, against agents, for a2abind's interop tests. The test builds it
// against each release (go get github.com/a2aproject/a2a-go/v2@release).
//
//	a2agoclient CONFIG=BASEURL ...
//
// CONFIG is default (a2aclient.NewFromCard with the default card parser and transports),
// grpc (the defaults plus a2agrpc v1, insecure) or v03 (a2av0's card parser, every 1.0 and
// 0.3 transport, gRPC insecure). For each argument, in parallel, it fetches the card at
// BASEURL/.well-known/agent-card.json, builds the client and sends one message; it
// prints one JSON line per argument, in order: {"url","ok","error"?}, url being the
// interface the client called ("" when it built none).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	a2agrpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

type result struct {
	URL   string `json:"url"`
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
}

func main() {
	out := make([]result, len(os.Args)-1)
	var wg sync.WaitGroup
	for n, arg := range os.Args[1:] {
		wg.Go(func() {
			config, base, _ := strings.Cut(arg, "=")
			url, err := call(config, base)
			out[n] = result{URL: url, OK: err == nil}
			if err != nil {
				out[n].Error = err.Error()
			}
		})
	}
	wg.Wait()
	enc := json.NewEncoder(os.Stdout)
	for _, r := range out {
		_ = enc.Encode(r)
	}
}

// recorder records the interface URL the client calls.
type recorder struct {
	a2aclient.PassthroughInterceptor
	mu  sync.Mutex
	url string
}

func (r *recorder) Before(ctx context.Context, req *a2aclient.Request) (context.Context, any, error) {
	r.mu.Lock()
	r.url = req.BaseURL
	r.mu.Unlock()
	return ctx, nil, nil
}

func call(config, base string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	creds := grpc.WithTransportCredentials(insecure.NewCredentials())
	parse, opts := agentcard.DefaultCardParser, []a2aclient.FactoryOption(nil)
	switch config {
	case "default":
	case "grpc":
		opts = append(opts, a2agrpc.WithGRPCTransport(creds))
	case "v03":
		parse = a2av0.NewAgentCardParser()
		opts = append(opts, a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{}),
			a2av0.WithRESTTransport(a2av0.RESTTransportConfig{}),
			a2agrpc.WithGRPCTransport(creds), a2agrpcv0.WithGRPCTransport(creds))
	default:
		return "", fmt.Errorf("unknown config %q", config)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/.well-known/agent-card.json", nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	_ = resp.Body.Close()
	if err != nil {
		return "", err
	}
	ac, err := parse(body)
	if err != nil {
		return "", err
	}
	rec := &recorder{}
	client, err := a2aclient.NewFromCard(ctx, ac, append(opts, a2aclient.WithCallInterceptors(rec))...)
	if err != nil {
		return "", err
	}
	defer func() { _ = client.Destroy() }()
	_, err = client.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hello a2agoclient"))})
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.url, err
}
