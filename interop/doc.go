// Package interop holds a2abind's interoperability tests against implementations no
// one here wrote: @a2a-js/sdk 1.3.0 on Node 20 (the scripts under interop/js) and the
// a2a-go v2.3.1 agents of package lab.
//
// The package has no API; its tests run with the rest of the suite (`go test ./...`).
// They need node (20 or later) and the npm packages of interop/js/package.json,
// which ./test.sh installs into .cache/node/node_modules (or set A2ABIND_NODE_MODULES
// to a node_modules directory that has them). When either is missing the tests fail,
// saying what to install; they are never skipped.
//
// interop/js/server.mjs is an a2a-js agent serving JSON-RPC, HTTP+JSON and gRPC on
// loopback, with an honest card or one of the seed incident's lying cards;
// interop/js/client.mjs drives the a2a-js client with a chosen transport set and prints
// one JSON line per operation, so the tests compare what a2abind predicts or does with
// what the real SDK does. Each card mode's server is started once per test binary and
// shared; every Node process runs in its own process group and is stopped (or killed)
// when the tests end, and exits by itself when its standard input closes.
//
// The matrix: the a2a-js client on each binding against a2a-go (lab) and against
// a2abind's guarded server, in-process and as `a2abind serve`; probe, Diagnose and
// `a2abind probe` against a2a-js agents, honest and lying; delegate and `a2abind send`
// through the lying cards (one fallback) and on each binding of the honest one; and the
// client-impact predictions for the a2a-js and a2a-go profiles against what the real
// clients do with the same cards, the seed's included.
package interop
