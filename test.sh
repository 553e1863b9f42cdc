#!/usr/bin/env bash
# The whole a2abind test suite. This is the README's test command, and .ci/run runs
# exactly this script, so CI and a fresh clone check the same thing.
set -euo pipefail
cd "$(dirname "$0")"

echo "== gofmt"
unformatted=$(git ls-files -z '*.go' | xargs -0 -r gofmt -l)
if [ -n "$unformatted" ]; then
	echo "gofmt needed on:" >&2
	echo "$unformatted" >&2
	exit 1
fi

echo "== go vet"
go vet ./...

echo "== interop: npm packages for the a2a-js peers"
# Installs interop/js's pinned packages into .cache/node when missing or stale. Without
# node/npm it only warns; the interop tests then fail saying what to install.
interop/js/install.sh

echo "== go test -race"
# The suite starts real servers on loopback; -timeout bounds a hang, well above a normal run.
go test -race -count=1 -timeout 10m ./...

echo "== fuzz: a short run of each JSON reader's target (issue 46; the corpora are in testdata/fuzz)"
# go test replays the committed corpora; these runs look a little further each time.
while read -r target pkg; do
	go test -run '^$' -fuzz "^${target}\$" -fuzztime 3s "$pkg" </dev/null
done <<'TARGETS'
FuzzParse ./card/
FuzzInterfacesMatchProtojson ./card/
FuzzErrorInfo ./wire/
FuzzEnvelopes ./wire/
FuzzJSONRPCMethod ./internal/accesslog/
TARGETS

echo "== go test: the task store's memory bound at full size (600 x 1 MiB; the race run makes 100)"
go test -count=1 -run '^TestStoreKeepsItsBoundUnderLoad$' ./server/

echo "== go test: the guard's proxy integrity at full size (1,000 calls of each kind; the race run makes 150)"
go test -count=1 -run '^TestProxyCutsNo' ./guard/

echo "== go test: Prometheus shards at full size (2,000 agents over two hashmod shards; the race run shards 200)"
go test -count=1 -run '^TestPrometheusShards$' ./exporter/

echo "== deploy/kubernetes: the manifests decoded strictly into the Kubernetes and Prometheus Operator types (a module of its own)"
(cd deploy/kubernetes && go vet ./... && go test -count=1 ./...)
