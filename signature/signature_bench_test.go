package signature_test

import (
	"context"
	"strings"
	"testing"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/signature"
)

// The signature benchmarks: bench.sh reports each against BenchmarkParseSignedCard, the
// cost of reading the same card, measured in the same run.

func signedBenchCard(b *testing.B) ([]byte, *signature.KeySet) {
	b.Helper()
	t := &testing.T{}
	k := newKey(t, "ES256")
	return sign(t, healthyCard, k), keySet(t, k)
}

func BenchmarkParseSignedCard(b *testing.B) {
	doc, _ := signedBenchCard(b)
	for b.Loop() {
		if _, err := card.Parse(doc); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifySignatures: parse and check one ES256 signature that verifies over the
// spec form (the first form tried).
func BenchmarkVerifySignatures(b *testing.B) {
	doc, ks := signedBenchCard(b)
	benchVerify(b, doc, ks, signature.StatusValid)
}

// BenchmarkVerifySignaturesInvalid: the same card rewritten after signing, so every
// canonical form is computed and tried before the verdict.
func BenchmarkVerifySignaturesInvalid(b *testing.B) {
	doc, ks := signedBenchCard(b)
	benchVerify(b, []byte(strings.Replace(string(doc), "Signed Agent", "Forged Agent", 1)), ks, signature.StatusInvalid)
}

func benchVerify(b *testing.B, doc []byte, ks *signature.KeySet, want signature.SignatureStatus) {
	b.Helper()
	for b.Loop() {
		c, err := card.Parse(doc)
		if err != nil {
			b.Fatal(err)
		}
		v, _ := signature.VerifySignatures(context.Background(), c, signature.WithKeySet(ks))
		if v.Signatures[0].Status != want {
			b.Fatalf("status %s, want %s", v.Signatures[0].Status, want)
		}
	}
}
