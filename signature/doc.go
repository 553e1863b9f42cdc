// Package signature signs and verifies AgentCard signatures (A2A 1.0 §8.4): the
// canonical forms a card is signed over (Canonicalize, Forms), signing (Sign,
// CardSigner), keys and JWKS (SigningKey, KeySet, jku fetching), and verification
// (VerifySignatures), whose *Verification is kept on the card (Of) for lint and for
// the clients that dial only what a signature covers (Verification.Dialable).
package signature
