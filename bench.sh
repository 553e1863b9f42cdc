#!/usr/bin/env bash
# Runs a2abind's benchmarks on loopback and prints every result as a ratio against a
# baseline measured in the same run (never as an absolute time to compare across
# machines). Usage: ./bench.sh [count] [benchtime] [fleet rounds]
# (defaults: 3 runs, 300x, 20x), then the whole-process comparisons below with their
# defaults; or one of these alone:
#   ./bench.sh cold [runs] [agents]     (defaults: 15 runs, 300 agents)
#   ./bench.sh scrape [runs] [scrapes]  (defaults: 5 runs, 200 scrapes)
#   ./bench.sh startup [turns]          (default: 21 turns)
#   ./bench.sh capacity                 (docs/scaling.md's measurements: the exporter's
#             CPU per scrape of a mixed fleet, memory and time of /sd and probe --targets
#             at 10,000 and 100,000 entries; absolute numbers of this machine, not ratios)
#
#   probe     naive a2a-go check (one client per interface, sequential) / probe.Card;
#             probe.Card on a warm engine against the naive check and one warm round trip
#   fleet     100 and 500 lab agents probed in rounds on one engine: interface probes/s,
#             CPU per probe, TCP connections opened per probe after the first round,
#             TIME_WAIT sockets left per round
#   server    guarded / bare a2a-go handlers, SendMessage per binding; start-to-ready;
#             bounded task store / a2a-go in-memory store, one SendMessage's store calls
#   delegate  delegate / plain a2a-go client; misdeclared (seed) agent / healthy agent,
#             first call and steady state
#   card      reading and checking a signed card / reading it (valid, and rewritten so
#             that every canonical form is tried)
#   tracing   probe.Card with tracing off / OpenTelemetry's no-op provider (no cost when
#             off is near 1), and on (an SDK provider) / off
#   cold      one cold round over a2a-go agents (127.0.0.1 and 127.0.0.2): `a2abind probe
#             --targets -o json` (and with --no-capabilities, the lookups alone) / the
#             plain pooled a2a-go prober (internal/bench/pooled), and as shipped / the
#             pooled prober making the same capability calls (pooled+caps),
#             each a fresh process, in turns: wall time, CPU time, TCP connections the
#             agents accepted per interface probe
#   scrape    the exporter's /probe / Debian's prometheus-blackbox-exporter's http probe
#             of the same card URL, in turns (installed with apt-get when root)
#   startup   `a2abind send BASE hi` and `a2abind --help` / a2a-go's own CLI (cmd/a2a of
#             the module's release) doing the same, against an a2a-go echo agent, each a
#             fresh process, in turns: median wall times (issue 45, goal <= 1.1)
#   capabilities  Engine.Check (interfaces and capabilities) / Engine.Card on a warm
#             engine; fleet throughput without / with the capability checks
set -euo pipefail
cd "$(dirname "$0")"

# fleetbench builds a2abind and internal/bench/fleetbench into .cache/bench.
fleetbench_build() {
	mkdir -p .cache/bench
	go build -o .cache/bench/a2abind ./cmd/a2abind
	go build -o .cache/bench/fleetbench ./internal/bench/fleetbench
}

cold() { # cold [runs] [agents]
	fleetbench_build
	echo
	.cache/bench/fleetbench cold -runs "${1:-15}" -agents "${2:-300}" .cache/bench/a2abind
}

scrape() { # scrape [runs] [scrapes]
	if ! command -v prometheus-blackbox-exporter >/dev/null; then
		if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
			echo "== installing Debian's prometheus-blackbox-exporter (the scrape baseline)"
			DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends prometheus-blackbox-exporter >/dev/null ||
				{ apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends prometheus-blackbox-exporter >/dev/null; }
		else
			echo
			echo "scrape: skipped: prometheus-blackbox-exporter is not installed (the baseline);"
			echo "        install it with: sudo apt-get install prometheus-blackbox-exporter"
			return 0
		fi
	fi
	fleetbench_build
	echo
	.cache/bench/fleetbench scrape -runs "${1:-5}" -scrapes "${2:-200}" .cache/bench/a2abind
}

startup() { # startup [turns]
	echo
	echo "startup (issue 45): a2abind / a2a-go's cmd/a2a, fresh processes in turns, medians of ${1:-21} (goal <= 1.1)"
	go test -run '^$' -bench BenchmarkStartup -benchtime "${1:-21}x" -count 1 ./interop | awk '
	/^BenchmarkStartup/ { for (i = 3; i < NF; i++) m[$(i+1)] = $i }
	END {
		printf "  %-44s %6.2f   (%s / %s ms)\n", "send BASE hi", m["send/a2a-go"], m["send-ms"], m["a2a-go-send-ms"]
		printf "  %-44s %6.2f   (%s / %s ms)\n", "--help", m["help/a2a-go"], m["help-ms"], m["a2a-go-help-ms"]
	}'
}

capacity() {
	fleetbench_build
	echo
	.cache/bench/fleetbench capacity .cache/bench/a2abind
	.cache/bench/fleetbench sdmemory .cache/bench/a2abind
}

case "${1:-}" in
cold | scrape | capacity | startup)
	mode=$1
	shift
	"$mode" "$@"
	exit
	;;
esac
count=${1:-3}
benchtime=${2:-300x}
rounds=${3:-20x}
out=.cache/bench.txt
mkdir -p .cache

echo "== go test -bench (count $count, benchtime $benchtime; fleet rounds $rounds); raw output in $out"
go test -run '^$' -bench . -skip 'BenchmarkFleet|BenchmarkWarmCardRatios' -benchtime "$benchtime" -count "$count" ./probe ./server ./delegate ./card | tee "$out" >/dev/null
go test -run '^$' -bench BenchmarkFleet -benchtime "$rounds" -count "$count" ./probe | tee -a "$out" >/dev/null
# The warm goals' contenders take turns 3,000 times, whatever benchtime says: with 300
# turns, two runs of this script on one day read card/a2ago3 0.96 and 1.04.
go test -run '^$' -bench BenchmarkWarmCardRatios -benchtime 3000x -count "$count" ./probe | tee -a "$out" >/dev/null

# median VALUE of metric UNIT for each benchmark name, over the -count runs
medians() {
	awk -v unit="$1" '
	/^Benchmark/ {
		name = $1; sub(/-[0-9]+$/, "", name)
		for (i = 3; i < NF; i++) if ($(i+1) == unit) { v[name] = v[name] " " $i }
	}
	END {
		for (n in v) {
			k = split(substr(v[n], 2), a, " ")
			for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
			printf "%s %s\n", n, (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
		}
	}' "$out"
}

ratio() { # ratio NAME NUMERATOR-BENCH DENOMINATOR-BENCH (both ns/op medians)
	local num den
	num=$(medians ns/op | awk -v b="$2" '$1 == b { print $2 }')
	den=$(medians ns/op | awk -v b="$3" '$1 == b { print $2 }')
	awk -v n="$num" -v d="$den" -v name="$1" 'BEGIN { if (d > 0) printf "  %-44s %6.2f   (%.0f / %.0f ns)\n", name, n / d, n, d }'
}

echo
echo "probe: how many times faster probe.Card is than the naive a2a-go check"
ratio "loopback, warm connections"  BenchmarkNaiveA2AGo            BenchmarkProbeCard
ratio "loopback, fresh connections" BenchmarkNaiveA2AGoColdConns   BenchmarkProbeCard
ratio "4 ms round trip, warm"       BenchmarkNaiveA2AGoWAN         BenchmarkProbeCardWAN
ratio "4 ms round trip, fresh"      BenchmarkNaiveA2AGoColdConnsWAN BenchmarkProbeCardWAN

echo
echo "probe engine: probe.Card on a warm engine (connections kept from probe to probe)"
ratio "naive a2a-go (warm) / warm engine, goal >= 2"  BenchmarkNaiveA2AGo           BenchmarkProbeCardWarmEngine
ratio "warm engine / one warm round trip, goal <= 3" BenchmarkProbeCardWarmEngine  BenchmarkWarmRoundTrip
ratio "probe.Card (fresh engine) / warm engine"      BenchmarkProbeCard            BenchmarkProbeCardWarmEngine
ratio "warm engine / its 3 lookups raw, in parallel" BenchmarkProbeCardWarmEngine  BenchmarkWarmRoundTrips3
ratio "3 raw lookups in parallel / one round trip"   BenchmarkWarmRoundTrips3      BenchmarkWarmRoundTrip
echo "  taking turns in one loop, 3,000 times (BenchmarkWarmCardRatios):"
for unit in card/raw3 card/a2ago3; do
	medians "$unit" | awk -v u="$unit" '{ printf "  %-44s %6.2f   %s (goal %s)\n", "warm card / " (u == "card/raw3" ? "3 raw lookups in parallel" : "3 a2a-go clients in parallel"), $2, u, (u == "card/raw3" ? "<= 1.2" : "< 1") }'
done
for unit in B/op allocs/op; do
	medians "$unit" | awk -v u="$unit" '$1 == "BenchmarkProbeCardWarmEngine" { printf "  %-44s %9.0f   %s per card (3 interfaces)\n", "warm engine", $2, u }'
done

echo
echo "fleet: rounds of Engine.Targets over N healthy lab agents, 32 at once (medians over $count runs)"
for unit in probes/s cpu-µs/probe conns/probe time-wait/round; do
	medians "$unit" | sort | awk -v u="$unit" '{ printf "  %-44s %9.4g   %s\n", $1, $2, u }'
done

echo
echo "server and delegate: ratios reported by the benchmarks (medians over $count runs)"
for unit in guarded/bare bounded/inmemory delegate/a2ago seed-steady/healthy seed-first/healthy; do
	medians "$unit" | sort | awk -v u="$unit" '{ printf "  %-44s %6.3f   %s\n", $1, $2, u }'
done
ratio "start-to-ready: guarded / bare"         BenchmarkStartToReady/guarded     BenchmarkStartToReady/bare
ratio "start-to-ready: guarded+v03 / bare"     BenchmarkStartToReady/guarded+v03 BenchmarkStartToReady/bare

echo
echo "tracing (issue 22): a warm probe.Card with no provider set / OpenTelemetry's no-op, and"
echo "with an SDK provider recording in memory / with none (medians over $count runs)"
for unit in off/noop on/off; do
	medians "$unit" | awk -v u="$unit" '$1 == "BenchmarkTracingCost" { printf "  %-44s %6.3f   %s\n", "probe.Card, tracing", $2, u }'
done
echo
echo "capabilities (issue 21): warm engine, healthy 3-interface agent, medians over $count runs"
ratio "check / card, goal <= 1.5"                    BenchmarkCapabilityCheck/check           BenchmarkCapabilityCheck/card
ratio "check, every call made / card"                BenchmarkCapabilityCheck/check-every     BenchmarkCapabilityCheck/card
ratio "check / card, 4 ms round trip"                BenchmarkCapabilityCheck/check-wan       BenchmarkCapabilityCheck/card-wan
ratio "check, every call made / card, 4 ms rtt"      BenchmarkCapabilityCheck/check-every-wan BenchmarkCapabilityCheck/card-wan
medians probes/s | awk '
	$1 == "BenchmarkFleetCapabilities/without" { w = $2 } $1 == "BenchmarkFleetCapabilities/with" { c = $2 }
	$1 == "BenchmarkFleetCapabilities/with-every" { e = $2 }
	END {
		if (c > 0) printf "  %-44s %6.2f   (%.0f / %.0f probes/s)\n", "fleet of 100: without / with, goal <= 1.3", w / c, w, c
		if (e > 0) printf "  %-44s %6.2f   (%.0f / %.0f probes/s)\n", "fleet of 100: without / with every call", w / e, w, e
	}'

echo
echo "card signatures: parse + verify / parse of the same signed card (ES256)"
ratio "valid (spec form, tried first)"          BenchmarkVerifySignatures        BenchmarkParseSignedCard
ratio "rewritten (all four forms tried)"        BenchmarkVerifySignaturesInvalid BenchmarkParseSignedCard

cold
scrape
startup
