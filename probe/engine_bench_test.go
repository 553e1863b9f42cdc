package probe_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	grpcgo "google.golang.org/grpc"
	grpccodes "google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

// BenchmarkProbeCardWarmEngine probes the healthy three-interface agent with
// Engine.Card on an engine kept from one iteration to the next, as a fleet loop or the
// exporter runs it: the connections are warm.
func BenchmarkProbeCardWarmEngine(b *testing.B) {
	c := healthyCard(b, 0)
	e := probe.NewEngine()
	defer e.Close()
	ctx := context.Background()
	e.Card(ctx, c) // warm
	b.ReportAllocs()
	for b.Loop() {
		for _, r := range e.Card(ctx, c, probe.WithTimeout(5*time.Second)) {
			if r.Outcome != wire.Served {
				b.Fatalf("%s: %s (%s)", r.Interface, r.Outcome, r.Detail)
			}
		}
	}
}

// BenchmarkWarmRoundTrip is one warm HTTP round trip to the same agent: the JSON-RPC
// GetTask POST an interface's probe sends, on a keep-alive connection, its answer read.
// It is the floor a probe of one interface cannot go below.
func BenchmarkWarmRoundTrip(b *testing.B) {
	a := labtest.Start(b, lab.Healthy()...)
	l := rawLookups(b, a)
	l.jsonrpc()
	b.ReportAllocs()
	for b.Loop() {
		l.jsonrpc()
	}
}

// BenchmarkWarmRoundTrips3 makes the three lookups a probe of the healthy agent makes,
// raw and in parallel on warm connections: JSON-RPC POST, HTTP+JSON GET, gRPC GetTask.
// probe.Card on a warm engine against it is the probe's own overhead.
func BenchmarkWarmRoundTrips3(b *testing.B) {
	a := labtest.Start(b, lab.Healthy()...)
	l := rawLookups(b, a)
	lookups := []func(){l.jsonrpc, l.rest, l.grpc}
	for _, f := range lookups {
		f()
	}
	b.ReportAllocs()
	for b.Loop() {
		var wg sync.WaitGroup
		for _, f := range lookups {
			wg.Go(f)
		}
		wg.Wait()
	}
}

// lookups are raw task lookups on one agent's warm connections.
type lookups struct {
	b      *testing.B
	a      *lab.Agent
	client *http.Client
	conn   *grpcgo.ClientConn
}

func rawLookups(b *testing.B, a *lab.Agent) *lookups {
	client := &http.Client{Transport: &http.Transport{}}
	b.Cleanup(client.CloseIdleConnections)
	conn, err := grpcgo.NewClient("passthrough:///"+a.GRPCAddr, grpcgo.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = conn.Close() })
	return &lookups{b: b, a: a, client: client, conn: conn}
}

func (l *lookups) do(req *http.Request, want string) {
	req.Header.Set("A2A-Version", card.V1)
	resp, err := l.client.Do(req)
	if err != nil {
		l.b.Fatal(err)
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || !strings.Contains(string(data), want) {
		l.b.Fatalf("answer %q, %v", data, err)
	}
}

func (l *lookups) jsonrpc() {
	body := `{"jsonrpc":"2.0","id":"1","method":"GetTask","params":{"id":"a2abind-bench-no-such-task"}}`
	req, _ := http.NewRequest(http.MethodPost, l.a.URL(lab.PathJSONRPC), strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	l.do(req, "-32001")
}

func (l *lookups) rest() {
	req, _ := http.NewRequest(http.MethodGet, l.a.URL(lab.PathREST)+"/tasks/a2abind-bench-no-such-task", nil)
	l.do(req, "TASK_NOT_FOUND")
}

func (l *lookups) grpc() {
	ctx := metadata.AppendToOutgoingContext(context.Background(), "a2a-version", card.V1)
	err := l.conn.Invoke(ctx, a2apb.A2AService_GetTask_FullMethodName, &a2apb.GetTaskRequest{Id: "a2abind-bench-no-such-task"}, &a2apb.Task{})
	if status.Code(err) != grpccodes.NotFound {
		l.b.Fatalf("gRPC GetTask: %v", err)
	}
}

// BenchmarkFleet runs the fleet loop over 100 and 500 healthy lab agents: each
// iteration is one round of Engine.Targets (card fetch and three interface probes per
// agent, 32 agents at once) on an engine kept across rounds. It reports interface
// probes per second, CPU per interface probe (the process's user and system time: the
// lab agents run in the same process, so their side of each request is counted too),
// TCP connections opened per interface probe after the first round, and the TIME_WAIT
// sockets (connections closed) each round leaves on the agents' ports.
func BenchmarkFleet(b *testing.B) {
	for _, n := range []int{100, 500} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchFleet(b, n) })
	}
}

func benchFleet(b *testing.B, n int) {
	targets := make([]string, n)
	ports := map[string]bool{} // the agents' listening ports, as /proc/net/tcp spells them
	for i := range targets {
		a := labtest.Start(b, lab.Healthy()...)
		targets[i] = a.BaseURL
		for _, addr := range []string{a.HTTPAddr, a.GRPCAddr} {
			_, port, _ := net.SplitHostPort(addr)
			p, _ := strconv.Atoi(port)
			ports[fmt.Sprintf("%04X", p)] = true
		}
	}
	e := probe.NewEngine()
	defer e.Close()
	ctx := context.Background()
	round := func() int {
		probes := 0
		for r := range e.Targets(ctx, targets, probe.WithConcurrency(32), probe.WithTimeout(10*time.Second)) {
			if r.Err != nil {
				b.Fatalf("%s: %v", r.Target, r.Err)
			}
			for _, res := range r.Results {
				if res.Outcome != wire.Served {
					b.Fatalf("%s: %s (%s)", res.Interface, res.Outcome, res.Detail)
				}
			}
			probes += len(r.Results)
		}
		return probes
	}
	round() // warm: the first round opens the connections
	dials := e.Stats().Dials
	timeWait := timeWaits(ports)
	cpu := cpuTime()
	probes := 0
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		probes += round()
	}
	b.StopTimer()
	elapsed := b.Elapsed()
	b.ReportMetric(float64(probes)/elapsed.Seconds(), "probes/s")
	b.ReportMetric(float64(cpuTime()-cpu)/float64(time.Microsecond)/float64(probes), "cpu-µs/probe")
	b.ReportMetric(float64(e.Stats().Dials-dials)/float64(probes), "conns/probe")
	left := 0
	for s := range timeWaits(ports) {
		if !timeWait[s] {
			left++
		}
	}
	b.ReportMetric(float64(left)/float64(b.N), "time-wait/round")
}

// timeWaits returns the loopback TCP sockets (local and remote address) in TIME_WAIT
// with one end on one of ports (hexadecimal, as /proc/net/tcp has them): connections
// closed in the last minute.
func timeWaits(ports map[string]bool) map[string]bool {
	out := map[string]bool{}
	data, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(data), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 4 || f[3] != "06" { // 06: TIME_WAIT
			continue
		}
		_, local, _ := strings.Cut(f[1], ":")
		_, remote, _ := strings.Cut(f[2], ":")
		if ports[local] || ports[remote] {
			out[f[1]+" "+f[2]] = true
		}
	}
	return out
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkWarmCardRatios times, in one loop and in a rotating order (so that the load
// of a shared machine falls on all three alike), on one healthy three-interface agent:
// probe.Card on a warm engine; the three lookups it makes, raw and in parallel
// (BenchmarkWarmRoundTrips3); and three a2a-go clients of the agent, one per interface,
// called in parallel (GetTask of a random id each, the clients made once, on warm
// connections: what an application holding a2a-go clients pays to look at all three).
// It reports the medians and their ratios: card/raw3 (goal <= 1.2) and card/a2ago3
// (goal < 1).
func BenchmarkWarmCardRatios(b *testing.B) {
	a := labtest.Start(b, lab.Healthy()...)
	c, err := card.Parse(a.CardJSON)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	e := probe.NewEngine()
	defer e.Close()
	probeCard := func() {
		for _, r := range e.Card(ctx, c, probe.WithTimeout(5*time.Second)) {
			if r.Outcome != wire.Served {
				b.Fatalf("%s: %s (%s)", r.Interface, r.Outcome, r.Detail)
			}
		}
	}
	l := rawLookups(b, a)
	raw := parallel(l.jsonrpc, l.rest, l.grpc)
	sdk := parallel(a2aGoClients(b, c)...)
	contenders := []func(){probeCard, raw, sdk}
	samples := make([][]time.Duration, len(contenders))
	for _, f := range contenders {
		f() // warm
	}
	turn := 0
	for b.Loop() {
		for k := range contenders {
			j := (turn + k) % len(contenders)
			start := time.Now()
			contenders[j]()
			samples[j] = append(samples[j], time.Since(start))
		}
		turn++
	}
	med := make([]float64, len(samples))
	for j, s := range samples {
		slices.Sort(s)
		med[j] = float64(s[len(s)/2])
	}
	b.ReportMetric(med[0], "card-ns")
	b.ReportMetric(med[1], "raw3-ns")
	b.ReportMetric(med[2], "a2ago3-ns")
	b.ReportMetric(med[0]/med[1], "card/raw3")
	b.ReportMetric(med[0]/med[2], "card/a2ago3")
}

// parallel returns a function that runs fs in parallel and waits for them.
func parallel(fs ...func()) func() {
	return func() {
		var wg sync.WaitGroup
		for _, f := range fs {
			wg.Go(f)
		}
		wg.Wait()
	}
}

// a2aGoClients makes one a2a-go client per interface of c (one shared keep-alive HTTP
// client, a gRPC channel per client) and returns one GetTask call of each.
func a2aGoClients(b *testing.B, c *card.Card) []func() {
	ctx := context.Background()
	hc := &http.Client{Transport: &http.Transport{}}
	b.Cleanup(hc.CloseIdleConnections)
	var calls []func()
	for _, i := range c.Interfaces {
		ep := &a2a.AgentInterface{URL: i.URL, ProtocolBinding: i.Binding, ProtocolVersion: a2a.ProtocolVersion(i.ProtocolVersion)}
		client, err := a2aclient.NewFromEndpoints(ctx, []*a2a.AgentInterface{ep},
			a2aclient.WithJSONRPCTransport(hc), a2aclient.WithRESTTransport(hc),
			a2agrpc.WithGRPCTransport(grpcgo.WithTransportCredentials(insecure.NewCredentials())))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = client.Destroy() })
		calls = append(calls, func() {
			_, err := client.GetTask(ctx, &a2a.GetTaskRequest{ID: a2a.TaskID("a2abind-bench-" + a2a.NewMessageID())})
			if !errors.Is(err, a2a.ErrTaskNotFound) {
				b.Fatalf("%s GetTask: %v", i.Binding, err)
			}
		})
	}
	return calls
}
