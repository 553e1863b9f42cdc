package lint

// Lint codes: the stable kebab-case identifiers findings carry in card.Finding.Code. They
// are a contract: add codes, never rename them. docs/lint-rules.md documents each. The
// codes of what the reader itself reports (card.CodeFieldNameCase, card.CodeMemberDuplicate,
// card.CodeDocumentRefused) live with the reader, in package card.
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
