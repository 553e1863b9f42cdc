package cli

import (
	"crypto/x509"
	"fmt"
	"os"

	"github.com/spf13/pflag"
)

// tlsFlags are the TLS flags of the commands that fetch a card or dial an agent.
type tlsFlags struct {
	insecure bool
	caFile   string
}

func (f *tlsFlags) register(fl *pflag.FlagSet) {
	fl.BoolVar(&f.insecure, "insecure", false, "accept any TLS certificate")
	fl.StringVar(&f.caFile, "cacert", "", "PEM file of CA certificates to trust")
}

// loadCAs reads --cacert: the CA certificates of a PEM file.
func loadCAs(path string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--cacert: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("--cacert %s: no PEM certificate in it", path)
	}
	return pool, nil
}
