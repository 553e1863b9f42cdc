// Package exporter is a Prometheus exporter for A2A agents in the multi-target pattern
// of blackbox_exporter: Prometheus scrapes GET /probe?target=URL[&module=NAME], the
// exporter fetches the agent's card, probes every declared interface on the wire
// (package probe, on one engine whose connections stay warm from scrape to scrape)
// within the scrape timeout, and answers with the result as series:
//
//	probe_success 0
//	a2abind_interface_up{url="http://agent:8443",binding="GRPC",protocol_version="0.3"} 0
//	a2abind_interface_outcome{url="http://agent:8443",binding="GRPC",protocol_version="0.3",outcome="wrong_binding"} 1
//
// GET /metrics gives the exporter's own series (Go runtime, probes by result,
// connections opened). A YAML config (LoadConfig) defines modules (headers read from
// files or the environment, timeouts, TLS) and an allow-list of targets; link-local and
// cloud metadata addresses are never dialled unless the config allows them.
//
//	x := exporter.New(cfg)
//	defer x.Close()
//	_ = http.ListenAndServe(":9115", x)
package exporter
