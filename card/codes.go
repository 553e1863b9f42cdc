package card

// Finding codes: the stable kebab-case identifiers every finding carries in
// Finding.Code, the one home of them all (lint's rules, the reader's own, and the wire
// findings probe's Diagnose adds). They are a contract: add codes, never rename them.
// docs/lint-rules.md documents each.

// The codes of lint's rules (lint.Rules).
const (
	// CodeNoInterfaces: the card declares no interface at all.
	CodeNoInterfaces = "no-interfaces"
	// CodeRequiredFieldMissing: a REQUIRED field is absent or empty.
	CodeRequiredFieldMissing = "required-field-missing"
	// CodeFieldNull: a list or object field is null.
	CodeFieldNull = "field-null"
	// CodeSupportedInterfacesMissing: a v0.3-only card, which v1.0 clients cannot use.
	CodeSupportedInterfacesMissing = "supported-interfaces-missing"
	// CodePreferredURLMismatch: the preferred binding is declared at another address.
	CodePreferredURLMismatch = "preferred-url-mismatch"
	// CodePreferredTransportMissing: a v0.3 url without preferredTransport.
	CodePreferredTransportMissing = "preferred-transport-missing"
	// CodeURLConflictingBindings: v0.3 declares one URL with two bindings.
	CodeURLConflictingBindings = "url-conflicting-bindings"
	// CodeURLSharedBindings: v1.0 declares one address with two bindings.
	CodeURLSharedBindings = "url-shared-bindings"
	// CodeUnionMismatch: a union card's two halves declare different interfaces.
	CodeUnionMismatch = "union-mismatch"
	// CodeURLMissing: an interface has no URL.
	CodeURLMissing = "url-missing"
	// CodeGRPCURLScheme: a GRPC address carries a URL scheme.
	CodeGRPCURLScheme = "grpc-url-scheme"
	// CodeURLNotAbsolute: an interface URL is not absolute (GRPC: not host:port).
	CodeURLNotAbsolute = "url-not-absolute"
	// CodeURLPlainHTTP: plain http:// on a host that is not loopback.
	CodeURLPlainHTTP = "url-plain-http"
	// CodeURLWildcardHost: an interface names a wildcard listen address.
	CodeURLWildcardHost = "url-wildcard-host"
	// CodeBindingMissing: an interface declares no binding.
	CodeBindingMissing = "binding-missing"
	// CodeBindingCase: a core binding name is spelt in the wrong case.
	CodeBindingCase = "binding-case"
	// CodeBindingUnknown: a binding is neither core nor a custom URI.
	CodeBindingUnknown = "binding-unknown"
	// CodeBindingCustom: a custom binding URI.
	CodeBindingCustom = "binding-custom"
	// CodeProtocolVersionMissing: a supportedInterfaces entry has no protocolVersion.
	CodeProtocolVersionMissing = "protocol-version-missing"
	// CodeProtocolVersionMalformed: a protocolVersion is not Major.Minor.
	CodeProtocolVersionMalformed = "protocol-version-malformed"
	// CodeProtocolVersionThreePart: a supportedInterfaces protocolVersion has a patch part.
	CodeProtocolVersionThreePart = "protocol-version-three-part"
	// CodeProtocolVersionUnsupported: a protocolVersion is neither 1.0 nor 0.3.
	CodeProtocolVersionUnsupported = "protocol-version-unsupported"
	// CodeInterfaceDuplicate: one interface is declared twice in one list.
	CodeInterfaceDuplicate = "interface-duplicate"
	// CodeSignatureInvalid: a signature does not verify or breaks a rule.
	CodeSignatureInvalid = "signature-invalid"
	// CodeSignaturePartial: a signature verifies, but its form leaves out a member
	// used to decide where or how to connect.
	CodeSignaturePartial = "signature-partial"
	// CodeSignatureUnverified: no trusted key for a signature.
	CodeSignatureUnverified = "signature-unverified"
	// CodeSignatureVariant: a signature verifies only over an SDK's form.
	CodeSignatureVariant = "signature-variant"
	// CodeSignatureValid: a signature verifies over the specification's form.
	CodeSignatureValid = "signature-valid"
	// CodeUnsigned: the card carries no signature.
	CodeUnsigned = "unsigned"
)

// The codes of the findings the reader itself reports (a *ReadError's Code); lint's
// catalogue (lint.Rules) lists them with the others.
const (
	// CodeFieldNameCase: a member name differs from a field's only in case.
	CodeFieldNameCase = "field-name-case"
	// CodeMemberDuplicate: a member name appears twice in one JSON object (the
	// reader refuses the document; lint reports the ReadError as this finding).
	CodeMemberDuplicate = "member-duplicate"
	// CodeDocumentRefused: a2a-go's card resolver refuses the document's bytes, which
	// a2a-js reads (a leading UTF-8 byte order mark; two of them, or nesting deeper than
	// 10000 levels, which a2abind refuses too, reporting the ReadError as this finding).
	CodeDocumentRefused = "document-refused"
)

// The codes of the wire findings probe's Diagnose adds to a card's lint findings.
const (
	// CodePreferredNotServed: the card's hint (v0.3 url + preferredTransport, v1.0 first
	// supportedInterfaces entry) names a binding that is not served at that URL.
	CodePreferredNotServed = "preferred-not-served"
	// CodeInterfaceNotServed: a declared interface's outcome is neither served nor
	// auth_required.
	CodeInterfaceNotServed = "interface-not-served"
	// CodeCapabilityNotServed: a declared capability (streaming, pushNotifications,
	// extendedAgentCard) that the side-effect-free calls show is not served on some
	// declared binding (error; names the capability and the interfaces).
	CodeCapabilityNotServed = "capability-not-served"
	// CodeCapabilityNotDeclared: a capability served on every binding asked while the
	// card does not declare it (info: clients that trust the card never use it).
	CodeCapabilityNotDeclared = "capability-not-declared"
	// CodeAuthNotEquivalent: some declared interfaces answer the lookup without
	// credentials while others demand them (error; A2A §5.1: the same authentication on
	// every binding).
	CodeAuthNotEquivalent = "auth-not-equivalent"
	// CodeErrorMapping: an A2A error answered with another code than the
	// specification's table gives for its binding (warning).
	CodeErrorMapping = "error-mapping"
)
