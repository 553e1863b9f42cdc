package cli

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"syscall"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/delegate"
	"github.com/a2abind/a2abind/wire"
)

// hintContext is what a hint needs to know about the command that failed.
type hintContext struct {
	command  string // "lint", "probe", "send"
	target   string // as the user gave it
	headers  bool   // -H was given
	tlsFlags bool   // the command has --cacert and --insecure
}

// withHint returns err with a line saying what to do next appended, when there is one.
func withHint(err error, hc hintContext) error {
	h := hintFor(err, hc)
	if h == "" {
		return err
	}
	return &hinted{err: err, hint: h}
}

// hinted is an error followed by a hint line; errors.Is and errors.As see the error.
type hinted struct {
	err  error
	hint string
}

func (h *hinted) Error() string { return h.err.Error() + "\nhint: " + h.hint }
func (h *hinted) Unwrap() error { return h.err }

// hintFor says what to do next about err, "" when a2abind has nothing to add. The cases,
// in order: the card answered with a status (401/403, 404/410), the agent refused the
// credentials of a call, a TLS certificate was not trusted, the wait ran out, nothing
// listened.
func hintFor(err error, hc hintContext) string {
	var se *card.StatusError
	var de *delegate.Error
	switch {
	case errors.As(err, &se) && (se.StatusCode == http.StatusUnauthorized || se.StatusCode == http.StatusForbidden):
		if hc.headers {
			return "the card endpoint refused the credentials given with -H: check the token, and the header the agent expects"
		}
		return `the card endpoint wants credentials: pass them with -H, e.g. -H "Authorization: Bearer $TOKEN"`
	case errors.As(err, &se) && (se.StatusCode == http.StatusNotFound || se.StatusCode == http.StatusGone):
		if base, ok := strings.CutSuffix(se.URL, card.WellKnownPath); ok {
			read := ""
			if hc.target != se.URL {
				read = hc.target + " was read as the agent's base URL, and "
			}
			legacy := base + card.LegacyWellKnownPath
			if strings.Contains(err.Error(), "also tried "+legacy) {
				return fmt.Sprintf("%sno card is at %s, nor at %s (where agents older than A2A 0.3 serve it). "+
					"If you have the card's own URL, give that", read, se.URL, legacy)
			}
			return fmt.Sprintf("%sno card is at %s. Agents older than A2A 0.3 serve %s: try a2abind %s %s",
				read, se.URL, card.LegacyWellKnownPath, hc.command, legacy)
		}
		return fmt.Sprintf("no card at %s: give the agent's base URL (a2abind looks under %s) or the card document's full URL",
			se.URL, card.WellKnownPath)
	case errors.As(err, &de) && errors.Is(err, delegate.ErrAuth):
		if hc.headers {
			return "the agent refused the credentials given with -H: check them (they go only to the card's origin and to --credential-host hosts)"
		}
		return `the agent wants credentials: pass them with -H, e.g. -H "Authorization: Bearer $TOKEN"`
	case plaintextServed(err) != "":
		return fmt.Sprintf("%s serves plaintext gRPC, and send speaks plaintext to a host that is not "+
			"loopback only when asked: pass --grpc-plaintext if the network path to it is trusted", plaintextServed(err))
	case servedUndeclared(err) != "":
		return fmt.Sprintf("what a lookup found served there is not declared by the card: call it with --use %s "+
			"(and tell the agent's owner that the card does not say what is served)", servedUndeclared(err))
	case untrustedCert(err) || lastEvidence(err).CertificateFailure():
		if hc.tlsFlags {
			return "the agent's certificate is not trusted: trust its CA with --cacert FILE, or pass --insecure for a test agent"
		}
		return fmt.Sprintf("the agent's certificate is not trusted, and %s has no TLS options: fetch the card yourself and "+
			"pipe it in, e.g. curl --cacert ca.pem %s | a2abind %s -", hc.command, card.CardURL(hc.target), hc.command)
	case errors.As(err, &de) && errors.Is(err, delegate.ErrAmbiguous):
		resend := "the message may have run, so it was not sent to another interface: check the agent before " +
			"sending again, or pass --resend to resend the same messageId to the next interface"
		if a, ok := de.Last(); ok && a.AttemptTimedOut {
			return "no answer within --attempt-timeout (allow longer, e.g. --attempt-timeout 30s); " + resend
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return "no answer within --timeout (allow longer, e.g. --timeout 60s); " + resend
		}
		return resend
	case attemptTimedOut(err):
		return "an attempt got no answer within --attempt-timeout: allow longer (e.g. --attempt-timeout 30s), or check that the agent is up"
	case errors.Is(err, context.DeadlineExceeded) || lastOutcome(err) == wire.Timeout:
		return "no answer in time: allow longer with --timeout (e.g. --timeout 60s), or check that the agent is up"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "nothing listens there: is the agent running, and are the host and port right?"
	}
	return ""
}

// plaintextServed is the address of an attempt that found plaintext gRPC served where
// the delegate would use TLS only, "" when there is none.
func plaintextServed(err error) string {
	var de *delegate.Error
	if !errors.As(err, &de) {
		return ""
	}
	for _, a := range de.Attempts {
		if a.PlaintextServed {
			return a.Interface.URL
		}
	}
	return ""
}

// servedUndeclared is the --use value of what a lookup found served at a failed
// attempt's URL instead of what the card declares there ("rest@0.3=URL"), "" when none.
func servedUndeclared(err error) string {
	var de *delegate.Error
	if !errors.As(err, &de) {
		return ""
	}
	for _, a := range de.Attempts {
		s, ev := a.Served, a.Evidence
		if s == nil && a.Outcome == wire.VersionMismatch && ev.AnswerVersion != "" && ev.AnswerVersion != a.Interface.ProtocolVersion {
			s = &card.Interface{URL: a.Interface.URL, Binding: a.Interface.Binding, ProtocolVersion: ev.AnswerVersion} // the answer's own shape
		}
		if s != nil {
			name := string(s.Binding)
			if s.Binding == a2a.TransportProtocolHTTPJSON {
				name = "rest"
			}
			return fmt.Sprintf("%s@%s=%s", name, s.ProtocolVersion, s.URL)
		}
	}
	return ""
}

// untrustedCert reports whether err is a certificate verification failure.
func untrustedCert(err error) bool {
	var (
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
		verify   *tls.CertificateVerificationError
	)
	return errors.As(err, &unknown) || errors.As(err, &hostname) || errors.As(err, &invalid) || errors.As(err, &verify)
}

// attemptTimedOut reports that the last attempt of a failed delegation ended at the
// per-attempt bound (--attempt-timeout), not at the whole run's --timeout.
func attemptTimedOut(err error) bool {
	var de *delegate.Error
	if !errors.As(err, &de) {
		return false
	}
	a, ok := de.Last()
	return ok && a.AttemptTimedOut
}

// lastEvidence is the wire evidence of a failed delegation's last attempt, empty for
// other errors.
func lastEvidence(err error) wire.Evidence {
	var de *delegate.Error
	if !errors.As(err, &de) {
		return wire.Evidence{}
	}
	a, _ := de.Last()
	return a.Evidence
}

// lastOutcome is the outcome of a failed delegation's last attempt, "" for other errors.
func lastOutcome(err error) wire.Outcome {
	var de *delegate.Error
	if !errors.As(err, &de) || len(de.Attempts) == 0 {
		return ""
	}
	return de.Attempts[len(de.Attempts)-1].Outcome
}

// argsError is the usage error for a wrong number of arguments.
func argsError(command, want string, got int) error {
	return fail(ExitUsage, fmt.Errorf("%s needs %s, got %s; see a2abind %s --help", command, want, counted(got, "argument"), command))
}
