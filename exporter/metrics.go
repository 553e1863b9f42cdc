package exporter

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

// Metric names of a /probe answer. probe_success, probe_duration_seconds,
// a2abind_interface_up and a2abind_interface_outcome are a stable contract;
// probe_ssl_earliest_cert_expiry is blackbox_exporter's name, so its alerts carry over.
const (
	metricSuccess       = "probe_success"
	metricDuration      = "probe_duration_seconds"
	metricCertExpiry    = "probe_ssl_earliest_cert_expiry"
	metricCardSuccess   = "a2abind_card_fetch_success"
	metricCardDuration  = "a2abind_card_fetch_duration_seconds"
	metricDeclared      = "a2abind_card_interfaces"
	metricUp            = "a2abind_interface_up"
	metricOutcome       = "a2abind_interface_outcome"
	metricLatency       = "a2abind_interface_duration_seconds"
	metricFindings      = "a2abind_findings"
	metricFindingsCode  = "a2abind_findings_by_code"
	metricCardInfo      = "a2abind_card_info"
	metricSignature     = "a2abind_card_signature"
	metricSigningKey    = "a2abind_card_signing_key_expiry"
	metricCapability    = "a2abind_capability_up"
	maxLabelValueLength = 512
)

// interfaceLabels name a declared interface in the series.
var interfaceLabels = []string{"url", "binding", "protocol_version"}

// probed is what one /probe did.
type probed struct {
	card          *card.Card // nil when the card could not be obtained; bounded to max_interfaces
	declared      int        // interfaces the card declares
	results       []probe.Result
	capabilities  []probe.CapabilityResult // probe.Check's, in probe.AllCapabilities order
	report        probe.Report
	fetchErr      error
	fetchDuration time.Duration
	duration      time.Duration
	certExpiry    time.Time // earliest over the card fetch and the interfaces; zero without TLS
}

// ok is probe_success: the card was obtained and no finding is an error.
func (p probed) ok() bool { return p.fetchErr == nil && p.report.OK() }

// registry renders p as the series of a /probe answer.
func (p probed) registry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	gauge := func(name, help string, v float64) {
		g := prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help})
		g.Set(v)
		reg.MustRegister(g)
	}
	gauge(metricSuccess, "1 when the card was obtained and no finding is an error (every declared interface served or asking for credentials, no declared capability refused, the same authentication on every binding, no lint error).", boolValue(p.ok()))
	gauge(metricDuration, "How long the probe took, card fetch included, in seconds.", p.duration.Seconds())
	gauge(metricCardSuccess, "1 when the agent card was obtained and read.", boolValue(p.fetchErr == nil))
	gauge(metricCardDuration, "How long fetching the agent card took, in seconds.", p.fetchDuration.Seconds())
	if !p.certExpiry.IsZero() {
		gauge(metricCertExpiry, "Earliest expiry of the TLS certificates seen (card and interfaces), as a Unix time.", float64(p.certExpiry.Unix()))
	}
	if p.card == nil {
		return reg
	}
	gauge(metricDeclared, "Interfaces the card declares.", float64(p.declared))
	p.registerCard(reg)

	up := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: metricUp,
		Help: "1 when the declared interface (url, binding, protocol_version) is served as declared."}, interfaceLabels)
	outcome := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: metricOutcome,
		Help: "1 for the outcome observed at the declared interface, 0 for the others."}, append(interfaceLabels[:3:3], "outcome"))
	latency := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: metricLatency,
		Help: "How long the declared binding's lookup took, in seconds."}, interfaceLabels)
	seen := map[[3]string]bool{}
	for _, r := range p.results {
		l := [3]string{label(r.Interface.URL), label(string(r.Interface.Binding)), label(r.Interface.ProtocolVersion)}
		if !seen[l] { // a card may declare one interface twice: its state set is set once
			seen[l] = true
			for _, o := range wire.Outcomes() {
				outcome.WithLabelValues(l[0], l[1], l[2], string(o)).Set(0)
			}
		}
		outcome.WithLabelValues(l[0], l[1], l[2], string(r.Outcome)).Set(1)
		up.WithLabelValues(l[:]...).Set(boolValue(r.Outcome == wire.Served))
		latency.WithLabelValues(l[:]...).Set(r.Latency.Seconds())
	}
	reg.MustRegister(up, outcome, latency)
	p.registerCapabilities(reg)

	findings := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: metricFindings,
		Help: "Findings (wire and lint) per severity."}, []string{"severity"})
	byCode := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: metricFindingsCode,
		Help: "Findings per code; the wire codes are always present."}, []string{"code"})
	for _, s := range []card.Severity{card.SeverityError, card.SeverityWarning, card.SeverityInfo} {
		findings.WithLabelValues(string(s))
	}
	for _, c := range []string{probe.CodePreferredNotServed, probe.CodeInterfaceNotServed,
		probe.CodeCapabilityNotServed, probe.CodeAuthNotEquivalent, probe.CodeErrorMapping} {
		byCode.WithLabelValues(c)
	}
	for _, f := range p.report.Findings {
		findings.WithLabelValues(label(string(f.Severity))).Inc()
		byCode.WithLabelValues(label(f.Code)).Inc()
	}
	reg.MustRegister(findings, byCode)
	return reg
}

// registerCapabilities adds a2abind_capability_up{capability} for each capability the
// card declares and its calls judged: 1 when they show it served on every binding asked,
// 0 when one shows it refused or not there (capability-not-served). A declared
// capability whose calls cannot tell (credentials asked, a timeout, a 5xx, no served
// interface to ask) has no series, as one the card does not declare: an alert on 0 fires
// on a lie, not on a module without credentials.
func (p probed) registerCapabilities(reg *prometheus.Registry) {
	capUp := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: metricCapability,
		Help: "1 when the declared capability (streaming, pushNotifications, extendedAgentCard) is served on every binding asked, 0 when it is refused or not there; absent when not declared or the calls cannot tell."},
		[]string{"capability"})
	for _, cr := range p.capabilities {
		if cr.Declared() && cr.Verdict != probe.CapabilityUnknown {
			capUp.WithLabelValues(string(cr.Name)).Set(boolValue(cr.Verdict == probe.CapabilityServed))
		}
	}
	reg.MustRegister(capUp)
}

// Signature states of a card (a2abind_card_signature{status}).
const (
	sigVerified   = "verified"   // a signature verified with a trusted key
	sigPartial    = "partial"    // one verified, over a form that leaves out where clients connect
	sigInvalid    = "invalid"    // a signature does not verify, or breaks a rule no key mends
	sigUnverified = "unverified" // signed, but no trusted key for any signature
	sigUnsigned   = "unsigned"   // no signature
)

// registerCard adds what identifies the card (a2abind_card_info: a change of its
// sha256 between scrapes is a changed card) and its signature state.
func (p probed) registerCard(reg *prometheus.Registry) {
	info := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: metricCardInfo,
		Help: "1, labelled with the SHA-256 of the card document as served, its shape and the agent's version."},
		[]string{"sha256", "shape", "version"})
	sum := sha256.Sum256(p.card.Document())
	info.WithLabelValues(hex.EncodeToString(sum[:]), label(string(p.card.Shape)), label(p.card.Version)).Set(1)
	sig := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: metricSignature,
		Help: "1 for the card's signature state (verified, partial, invalid, unverified, unsigned), 0 for the others."},
		[]string{"status"})
	state := signatureState(p.card)
	for _, s := range []string{sigVerified, sigPartial, sigInvalid, sigUnverified, sigUnsigned} {
		sig.WithLabelValues(s).Set(boolValue(s == state))
	}
	reg.MustRegister(info, sig)
	var expiry time.Time
	for _, s := range sigChecks(p.card.Verification()) {
		if (s.Status == card.StatusValid || s.Status == card.StatusVariant) && s.KeyExpiry.After(expiry) {
			expiry = s.KeyExpiry
		}
	}
	if !expiry.IsZero() {
		g := prometheus.NewGauge(prometheus.GaugeOpts{Name: metricSigningKey,
			Help: "When the last key that verifies the card's signatures expires, as a Unix time; absent when no verifying key says."})
		g.Set(float64(expiry.Unix()))
		reg.MustRegister(g)
	}
}

// signatureState sums up the card's signatures: verified when one verified, else the
// worst of the others.
func signatureState(c *card.Card) string {
	v := c.Verification()
	switch {
	case !card.Signed(c):
		return sigUnsigned
	case v.Verified():
		return sigVerified
	}
	state := sigUnverified
	for _, s := range sigChecks(v) {
		switch s.Status {
		case card.StatusInvalid:
			return sigInvalid
		case card.StatusPartial:
			state = sigPartial
		}
	}
	return state
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// label makes a card's string a safe label value: valid UTF-8, bounded in length.
func label(s string) string {
	if len(s) > maxLabelValueLength {
		s = s[:maxLabelValueLength] + "..."
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// sigChecks are v's signature results; none when v is nil (not verified).
func sigChecks(v *card.Verification) []card.SignatureCheck {
	if v == nil {
		return nil
	}
	return v.Signatures
}
