package card

import "slices"

// Severity grades a Finding. The JSON strings are a stable contract.
type Severity string

const (
	// SeverityError means a modelled real client (probe.Profiles) fails on the card as
	// written; lint exits 1.
	SeverityError Severity = "error"
	// SeverityWarning means the card deviates from the specification or works in some
	// deployments only, while the modelled clients read it; the message names them.
	SeverityWarning Severity = "warning"
	// SeverityInfo is worth knowing and needs no change.
	SeverityInfo Severity = "info"
)

// Finding is one problem found in a card, by lint or by a wire probe. The JSON field
// names are a stable contract.
type Finding struct {
	// Code is a stable kebab-case identifier, e.g. "preferred-url-mismatch".
	Code string `json:"code"`
	// Severity is error, warning or info.
	Severity Severity `json:"severity"`
	// Message says what is wrong and who it hurts, naming the values involved.
	Message string `json:"message"`
	// Fix is a one-line remedy.
	Fix string `json:"fix,omitempty"`
	// Interface is the Source of the declared interface concerned ("supportedInterfaces[0]",
	// "url+preferredTransport", ...), empty for card-level findings.
	Interface string `json:"interface,omitempty"`
}

// HasErrors reports whether any finding has SeverityError.
func HasErrors(findings []Finding) bool {
	return slices.ContainsFunc(findings, func(f Finding) bool { return f.Severity == SeverityError })
}
