package exporter

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/redact"
	"github.com/a2abind/a2abind/internal/wording"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/signature"
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
	early         bool // results and capabilities are the early check's (early.go)
	duration      time.Duration
	certExpiry    time.Time       // earliest over the card fetch and the interfaces; zero without TLS
	hide          *redact.Secrets // the target's and the module's secrets, kept out of the label values
}

// ok is probe_success: the card was obtained and no finding is an error.
func (p probed) ok() bool { return p.fetchErr == nil && p.report.OK() }

// families renders p as the series of a /probe answer, in the order a
// prometheus.Registry gathers them (families by name, series by label values).
func (p probed) families() []*dto.MetricFamily {
	var s series
	s.gauge(metricSuccess, "1 when the card was obtained and no finding is an error (every declared interface served or asking for credentials, no declared capability refused, the same authentication on every binding, no lint error).").set(boolValue(p.ok()))
	s.gauge(metricDuration, "How long the probe took, card fetch included, in seconds.").set(p.duration.Seconds())
	s.gauge(metricCardSuccess, "1 when the agent card was obtained and read.").set(boolValue(p.fetchErr == nil))
	s.gauge(metricCardDuration, "How long fetching the agent card took, in seconds.").set(p.fetchDuration.Seconds())
	if !p.certExpiry.IsZero() {
		s.gauge(metricCertExpiry, "Earliest expiry of the TLS certificates seen (card and interfaces), as a Unix time.").set(float64(p.certExpiry.Unix()))
	}
	if p.card == nil {
		return s.gather()
	}
	s.gauge(metricDeclared, "Interfaces the card declares.").set(float64(p.declared))
	p.cardSeries(&s)

	up := s.gauge(metricUp, "1 when the declared interface (url, binding, protocol_version) is served as declared.", interfaceLabels...)
	outcome := s.gauge(metricOutcome, "1 for the outcome observed at the declared interface, 0 for the others.", append(interfaceLabels[:3:3], "outcome")...)
	latency := s.gauge(metricLatency, "How long the declared binding's lookup took, in seconds.", interfaceLabels...)
	seen := map[[3]string]bool{}
	for _, r := range p.results {
		l := [3]string{p.label(r.Interface.URL), p.label(string(r.Interface.Binding)), p.label(r.Interface.ProtocolVersion)}
		if !seen[l] { // a card may declare one interface twice: its state set is set once
			seen[l] = true
			for _, o := range wire.Outcomes() {
				outcome.with(l[0], l[1], l[2], string(o)).set(0)
			}
		}
		outcome.with(l[0], l[1], l[2], string(r.Outcome)).set(1)
		up.with(l[:]...).set(boolValue(r.Outcome == wire.Served))
		latency.with(l[:]...).set(r.Latency.Seconds())
	}
	p.capabilitySeries(&s)

	findings := s.gauge(metricFindings, "Findings (wire and lint) per severity.", "severity")
	byCode := s.gauge(metricFindingsCode, "Findings per code; the wire codes are always present.", "code")
	for _, sv := range []card.Severity{card.SeverityError, card.SeverityWarning, card.SeverityInfo} {
		findings.with(string(sv))
	}
	for _, c := range []string{card.CodePreferredNotServed, card.CodeInterfaceNotServed,
		card.CodeCapabilityNotServed, card.CodeAuthNotEquivalent, card.CodeErrorMapping} {
		byCode.with(c)
	}
	for _, f := range p.report.Findings {
		findings.with(p.label(string(f.Severity))).inc()
		byCode.with(p.label(f.Code)).inc()
	}
	return s.gather()
}

// capabilitySeries adds a2abind_capability_up{capability} for each capability the
// card declares and its calls judged: 1 when they show it served on every binding asked,
// 0 when one shows it refused or not there (capability-not-served). A declared
// capability whose calls cannot tell (credentials asked, a timeout, a 5xx, no served
// interface to ask) has no series, as one the card does not declare: an alert on 0 fires
// on a lie, not on a module without credentials.
func (p probed) capabilitySeries(s *series) {
	capUp := s.gauge(metricCapability, "1 when the declared capability (streaming, pushNotifications, extendedAgentCard) is served on every binding asked, 0 when it is refused or not there; absent when not declared or the calls cannot tell.", "capability")
	for _, cr := range p.capabilities {
		if cr.Declared() && cr.Verdict != probe.CapabilityUnknown {
			capUp.with(string(cr.Name)).set(boolValue(cr.Verdict == probe.CapabilityServed))
		}
	}
}

// Signature states of a card (a2abind_card_signature{status}).
const (
	sigVerified   = "verified"   // a signature verified with a trusted key
	sigPartial    = "partial"    // one verified, over a form that leaves out where clients connect
	sigInvalid    = "invalid"    // a signature does not verify, or breaks a rule no key mends
	sigUnverified = "unverified" // signed, but no trusted key for any signature
	sigUnsigned   = "unsigned"   // no signature
)

// cardSeries adds what identifies the card (a2abind_card_info: a change of its
// sha256 between scrapes is a changed card) and its signature state.
func (p probed) cardSeries(s *series) {
	info := s.gauge(metricCardInfo, "1, labelled with the SHA-256 of the card document as served, its shape and the agent's version.", "sha256", "shape", "version")
	sum := sha256.Sum256(p.card.Document())
	info.with(hex.EncodeToString(sum[:]), p.label(string(p.card.Shape)), p.label(p.card.Version)).set(1)
	sig := s.gauge(metricSignature, "1 for the card's signature state (verified, partial, invalid, unverified, unsigned), 0 for the others.", "status")
	state := signatureState(p.card)
	for _, st := range []string{sigVerified, sigPartial, sigInvalid, sigUnverified, sigUnsigned} {
		sig.with(st).set(boolValue(st == state))
	}
	var expiry time.Time
	for _, sc := range sigChecks(signature.Of(p.card)) {
		if (sc.Status == signature.StatusValid || sc.Status == signature.StatusVariant) && sc.KeyExpiry.After(expiry) {
			expiry = sc.KeyExpiry
		}
	}
	if !expiry.IsZero() {
		s.gauge(metricSigningKey, "When the last key that verifies the card's signatures expires, as a Unix time; absent when no verifying key says.").set(float64(expiry.Unix()))
	}
}

// signatureState sums up the card's signatures: verified when one verified, else the
// worst of the others.
func signatureState(c *card.Card) string {
	v := signature.Of(c)
	switch {
	case !signature.Signed(c):
		return sigUnsigned
	case v.Verified():
		return sigVerified
	}
	state := sigUnverified
	for _, s := range sigChecks(v) {
		switch s.Status {
		case signature.StatusInvalid:
			return sigInvalid
		case signature.StatusPartial:
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

// label makes a card's string a safe label value: no secret of p.hide (a card may echo
// what it was sent), valid UTF-8, bounded in length.
func (p probed) label(s string) string {
	return strings.ToValidUTF8(wording.Truncate(p.hide.String(s), maxLabelValueLength), "\uFFFD")
}

// sigChecks are v's signature results; none when v is nil (not verified).
func sigChecks(v *signature.Verification) []signature.SignatureCheck {
	if v == nil {
		return nil
	}
	return v.Signatures
}
