package exporter_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"maps"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/exporter"
	"github.com/a2abind/a2abind/lab"
)

// shardInterval is the scrape interval of the sharding test.
const shardInterval = 5 * time.Second

// pathFleet is n distinct agents behind a few loopback listeners: agent i serves its
// card at /agents/i/card.json (its target) and JSON-RPC at /agents/i/rpc. Every card
// fetch is counted per target, at the agents' side.
type pathFleet struct {
	targets []string
	fetches map[string]*atomic.Int64
}

func startPathFleet(t *testing.T, n, listeners int) *pathFleet {
	t.Helper()
	f := &pathFleet{fetches: map[string]*atomic.Int64{}}
	rpc := a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(lab.Echo{}))
	for l := range listeners {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		base := "http://" + ln.Addr().String()
		cards := map[string][]byte{}
		for i := l; i < n; i += listeners {
			target := fmt.Sprintf("%s/agents/%d/card.json", base, i)
			c := lab.V1Card(fmt.Sprintf("agent-%d", i),
				lab.Decl{URL: fmt.Sprintf("%s/agents/%d/rpc", base, i), Binding: lab.JSONRPC, Version: card.V1})
			c["capabilities"] = map[string]any{} // one lookup per probe, no capability calls
			doc, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			cards[target] = doc
			f.fetches[target] = new(atomic.Int64)
			f.targets = append(f.targets, target)
		}
		mux := http.NewServeMux()
		mux.HandleFunc("GET /agents/{i}/card.json", func(w http.ResponseWriter, r *http.Request) {
			target := base + r.URL.Path
			doc, ok := cards[target]
			if !ok {
				http.NotFound(w, r)
				return
			}
			f.fetches[target].Add(1)
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(doc)
		})
		mux.Handle("POST /agents/{i}/rpc", rpc)
		srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
		go func() { _ = srv.Serve(ln) }()
		t.Cleanup(func() { _ = srv.Close() })
	}
	slices.Sort(f.targets)
	return f
}

// counts are the card fetches of each target so far.
func (f *pathFleet) counts() map[string]int64 {
	out := make(map[string]int64, len(f.fetches))
	for t, n := range f.fetches {
		out[t] = n.Load()
	}
	return out
}

// replica is one exporter process: it listens on a fixed loopback address, stops as a
// killed process does (connections closed, state lost) and starts again on the same
// address with a fresh exporter.
type replica struct {
	addr   string
	config string
	x      *exporter.Exporter
	srv    *http.Server
	done   chan struct{}
}

func (r *replica) start(t *testing.T) {
	t.Helper()
	var ln net.Listener
	var err error
	for range 50 { // the port was ours a moment ago; give the kernel a moment
		if ln, err = net.Listen("tcp", r.addr); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("replica %s: %v", r.addr, err)
	}
	r.x = exporter.New(mustConfig(t, r.config))
	r.srv = &http.Server{Handler: r.x, ReadHeaderTimeout: 5 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	r.done = make(chan struct{})
	go func() {
		defer close(r.done)
		if err := r.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("replica %s: %v", r.addr, err)
		}
	}()
}

func (r *replica) stop() {
	_ = r.srv.Close()
	<-r.done
	_ = r.x.Close()
}

// shardConfig is one Prometheus shard of two, as docs/scaling.md configures it: the
// targets /sd lists are hashed on their URL (hashmod of __address__, before it is
// rewritten) and the shard keeps its own; the rest is the blackbox-style relabelling to
// the exporter at exporterAddr. The shipped rules are loaded.
func shardConfig(shard int, sdURL, exporterAddr, rules string) string {
	return fmt.Sprintf(`
global:
  scrape_interval: %dms
  scrape_timeout: %dms
  evaluation_interval: 1s
rule_files: [%q]
scrape_configs:
  - job_name: a2a
    metrics_path: /probe
    http_sd_configs:
      - url: %q
        refresh_interval: 5s
    relabel_configs:
      - source_labels: [__address__]
        modulus: 2
        target_label: __tmp_shard
        action: hashmod
      - source_labels: [__tmp_shard]
        regex: "%d"
        action: keep
%s`, shardInterval.Milliseconds(), (shardInterval - 500*time.Millisecond).Milliseconds(), rules, sdURL, shard,
		strings.TrimPrefix(probeRelabel(exporterAddr), "    relabel_configs:\n"))
}

// TestPrometheusShards runs the fleet of docs/scaling.md on loopback: shardAgents
// distinct agents (half in a targets file, half in an AI Catalog) listed by one /sd,
// two Prometheus servers each keeping its hashmod shard, each scraping through its own
// exporter replica. Every agent is in exactly one shard (the shards' instances are
// disjoint and cover the fleet), and at the agents' side each card is fetched once per
// interval, never by both shards. When a replica stops, its shard's agents are down
// and the shipped A2AProbeScrapeFailing rule holds for exactly them (pending: promtool
// shows it firing after its 5 minutes), while the other shard goes on as before; when
// the replica is back, so are its agents.
func TestPrometheusShards(t *testing.T) {
	t.Parallel()
	fleet := startPathFleet(t, shardAgents, 8)
	half := len(fleet.targets) / 2
	file := filepath.Join(t.TempDir(), "agents.txt")
	writeFile(t, file, strings.Join(fleet.targets[:half], "\n")+"\n")
	var entries []string
	for i, u := range fleet.targets[half:] {
		entries = append(entries, agentEntry("urn:agent:"+strconv.Itoa(i), "", u))
	}
	var body atomic.Value
	body.Store(catalogDoc(entries...))
	cat, _ := catalogServer(t, &body)
	config := fmt.Sprintf("discovery: {files: [%q], catalogs: [%q], refresh_interval: 1s}", file, cat.URL+"/catalog")

	var replicas [2]*replica
	for i := range replicas {
		addr, err := lab.ClosedAddr()
		if err != nil {
			t.Fatal(err)
		}
		replicas[i] = &replica{addr: addr, config: config}
		replicas[i].start(t)
	}
	t.Cleanup(func() {
		for _, r := range replicas {
			r.stop()
		}
	})
	rules, err := filepath.Abs(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	// One /sd for both shards (replica 0's): when replica 0 stops, shard 1's
	// Prometheus keeps its last listing and is otherwise unaffected.
	sdURL := "http://" + replicas[0].addr + "/sd"
	var proms [2]string
	for i := range proms {
		proms[i] = startPrometheus(t, shardConfig(i, sdURL, replicas[i].addr, rules))
	}

	// Steady state: every target of each shard scraped and probed successfully.
	var shards [2]map[string]string
	eventually(t, proms[0], `count(up{job="a2a"})`, func(map[string]string) bool {
		for i, p := range proms {
			var err error
			if shards[i], err = query(t.Context(), p, `probe_success{job="a2a"} == 1`); err != nil {
				return false
			}
		}
		return len(shards[0])+len(shards[1]) >= len(fleet.targets)
	})
	for target := range shards[0] {
		if _, ok := shards[1][target]; ok {
			t.Errorf("%s is in both shards", target)
		}
	}
	union := slices.Sorted(maps.Keys(shards[0]))
	union = slices.Sorted(slices.Values(append(union, slices.Collect(maps.Keys(shards[1]))...)))
	if !slices.Equal(union, fleet.targets) {
		t.Fatalf("the shards hold %d targets (%d + %d), want the fleet's %d", len(union), len(shards[0]), len(shards[1]), len(fleet.targets))
	}
	for i, s := range shards {
		if len(s) < len(fleet.targets)/4 {
			t.Errorf("shard %d holds %d of %d targets: hashmod should split them about evenly", i, len(s), len(fleet.targets))
		}
	}

	// At the agents: over 4 intervals, each card is fetched at least once and at most
	// 5 times (4, and a scrape at each end of the window may fall in or out; fewer when
	// a loaded machine delays scrapes), never the 8 of two shards.
	const rounds = 4
	before := fleet.counts()
	time.Sleep(rounds * shardInterval)
	after := fleet.counts()
	for _, target := range fleet.targets {
		if n := after[target] - before[target]; n < 1 || n > rounds+1 {
			t.Errorf("%s: %d card fetches in %d scrape intervals, want 1 to %d", target, n, rounds, rounds+1)
		}
	}
	if t.Failed() {
		return
	}

	// Replica 0 stops: shard 0's agents are down, the rule holds for each of them, and
	// nothing reaches them; shard 1 goes on.
	replicas[0].stop()
	eventually(t, proms[0], `up{job="a2a"} == 0`, func(r map[string]string) bool { return len(r) == len(shards[0]) })
	eventually(t, proms[0], `ALERTS{alertname="A2AProbeScrapeFailing", alertstate="pending"}`, func(r map[string]string) bool {
		return slices.Equal(slices.Sorted(maps.Keys(r)), slices.Sorted(maps.Keys(shards[0])))
	})
	before = fleet.counts()
	time.Sleep(2 * shardInterval)
	after = fleet.counts()
	for _, target := range fleet.targets {
		_, inShard0 := shards[0][target]
		if n := after[target] - before[target]; inShard0 && n != 0 || !inShard0 && (n < 1 || n > 3) {
			t.Errorf("%s (shard 0: %v): %d card fetches in 2 intervals with replica 0 stopped", target, inShard0, n)
		}
	}
	for q, want := range map[string]int{`probe_success{job="a2a"} == 1`: len(shards[1]), `up{job="a2a"} == 0`: 0,
		`ALERTS{alertname="A2AProbeScrapeFailing"}`: 0} {
		if r, err := query(t.Context(), proms[1], q); err != nil || len(r) != want {
			t.Errorf("shard 1 while replica 0 is stopped: %s: %d series (err %v), want %d", q, len(r), err, want)
		}
	}

	// Replica 0 is back: so are its agents, and the rule no longer holds.
	replicas[0].start(t)
	eventually(t, proms[0], `probe_success{job="a2a"} == 1`, func(r map[string]string) bool { return len(r) == len(shards[0]) })
	eventually(t, proms[0], `ALERTS{alertname="A2AProbeScrapeFailing"}`, func(r map[string]string) bool { return len(r) == 0 })
}
