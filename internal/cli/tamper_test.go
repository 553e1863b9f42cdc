package cli

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/guard"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/signature"
)

// attacker is a listener on 127.0.0.2 (another origin) counting every connection made
// to it; it never answers.
func attacker(t *testing.T) (addr string, conns *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no 127.0.0.2 on this machine: %v", err)
	}
	conns = new(atomic.Int32)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			_ = c.Close()
		}
	}()
	t.Cleanup(func() { _ = ln.Close() })
	return ln.Addr().String(), conns
}

// signSpecForm signs doc over the A2A 1.0 §8.4.1 form alone, as a2a-js does; on a v0.3
// card that form leaves url, preferredTransport and additionalInterfaces out.
func signSpecForm(t *testing.T, doc []byte) []byte {
	t.Helper()
	raw, err := os.ReadFile(keyPath("corpus-es256.private.jwk"))
	if err != nil {
		t.Fatal(err)
	}
	var jwk jose.JSONWebKey
	if err := jwk.UnmarshalJSON(raw); err != nil {
		t.Fatal(err)
	}
	payload, err := signature.Canonicalize(doc, signature.FormSpec)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jwk.Key},
		(&jose.SignerOptions{}).WithType("JOSE").WithHeader("kid", jwk.KeyID))
	if err != nil {
		t.Fatal(err)
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	compact, _ := jws.DetachedCompactSerialize()
	protected, sig, _ := strings.Cut(compact, "..")
	var m map[string]any
	_ = json.Unmarshal(doc, &m)
	m["signatures"] = []map[string]string{{"protected": protected, "signature": sig}}
	out, _ := json.Marshal(m)
	return out
}

// TestTamperedSignedCardsReachNoAttacker (issue 17): signed cards tampered in each way
// the issue names point clients at an attacker on 127.0.0.2. lint fails them, send
// --require-signature refuses them before anything is sent (exit 2), probe
// --require-signature dials nothing, and neither does probe --targets (issue 44), guard withholds the cards no two readers read alike
// (--normalize publishes one without its stray member), guard --require-signature
// withholds every tampered card whose signature does not verify and cover it (strict,
// --normalize and --normalize --sign-key alike) and probes nothing of it, and no
// connection reaches the attacker; the untampered card is still published by the guard
// and a request through it reaches the agent.
func TestTamperedSignedCardsReachNoAttacker(t *testing.T) {
	key, err := signature.LoadSigningKey(keyPath("corpus-es256.private.jwk"))
	if err != nil {
		t.Fatal(err)
	}
	evil, conns := attacker(t)
	evilURL := "http://" + evil + lab.PathJSONRPC
	for _, tc := range []struct {
		name      string
		card      func(honest string) []byte
		lintCode  string // the finding lint must report (exit 1); "" for a good card
		delivered bool
	}{{
		name: "untampered v0.3 card signed by a2abind",
		card: func(honest string) []byte {
			doc, _ := json.Marshal(lab.V03Card("signed", honest, lab.JSONRPC))
			out, err := signature.Sign(doc, key)
			if err != nil {
				t.Fatal(err)
			}
			return out
		},
		delivered: true,
	}, {
		name: "v0.3 card signed by a2abind, url swapped",
		card: func(honest string) []byte {
			doc, _ := json.Marshal(lab.V03Card("signed", honest, lab.JSONRPC))
			out, err := signature.Sign(doc, key)
			if err != nil {
				t.Fatal(err)
			}
			return []byte(strings.Replace(string(out), honest, evilURL, 1))
		},
		lintCode: card.CodeSignatureInvalid,
	}, {
		name: "v0.3 card signed over the spec form only, url swapped",
		card: func(honest string) []byte {
			doc, _ := json.Marshal(lab.V03Card("signed", honest, lab.JSONRPC))
			return []byte(strings.Replace(string(signSpecForm(t, doc)), honest, evilURL, 1))
		},
		lintCode: card.CodeSignaturePartial,
	}, {
		// issue 44: a2a-js verifies this card and dials supportedInterfaces; so do probe and
		// send --require-signature, never the 0.3 url the signature leaves out
		name: "union card signed over the spec form as a2a-js signs, its 0.3 url at the attacker",
		card: func(honest string) []byte {
			doc, _ := json.Marshal(lab.V1Card("signed", lab.Decl{URL: honest, Binding: lab.JSONRPC, Version: card.V1}))
			var m map[string]any
			_ = json.Unmarshal(doc, &m)
			m["url"], m["preferredTransport"], m["protocolVersion"] = evilURL, "JSONRPC", "0.3.0"
			doc, _ = json.Marshal(m)
			return signSpecForm(t, doc)
		},
		lintCode:  card.CodeSignaturePartial,
		delivered: true,
	}, {
		name: "v1.0 card signed, a URL member added beside url",
		card: func(honest string) []byte {
			doc, _ := json.Marshal(lab.V1Card("signed", lab.Decl{URL: honest, Binding: lab.JSONRPC, Version: card.V1}))
			out, err := signature.Sign(doc, key)
			if err != nil {
				t.Fatal(err)
			}
			return []byte(strings.Replace(string(out), `"url": "`+honest+`"`, `"url": "`+honest+`", "URL": "`+evilURL+`"`, 1))
		},
		lintCode:  card.CodeFieldNameCase, // a2abind reads url, as the signature does
		delivered: true,
	}, {
		name: "v1.0 card signed, url repeated",
		card: func(honest string) []byte {
			doc, _ := json.Marshal(lab.V1Card("signed", lab.Decl{URL: honest, Binding: lab.JSONRPC, Version: card.V1}))
			out, err := signature.Sign(doc, key)
			if err != nil {
				t.Fatal(err)
			}
			return []byte(strings.Replace(string(out), `"url": "`+honest+`"`, `"url": "`+honest+`", "url": "`+evilURL+`"`, 1))
		},
		lintCode: card.CodeMemberDuplicate,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			version := card.V1
			if strings.Contains(tc.name, "v0.3") {
				version = card.V03
			}
			agent := labtest.Start(t, lab.WithJSONRPC(version, lab.PathJSONRPC),
				lab.WithCard(func(a *lab.Agent) any { return json.RawMessage(tc.card(a.URL(lab.PathJSONRPC))) }),
				lab.WithHTTPMiddleware(func(h http.Handler) http.Handler {
					return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						if r.URL.Path != "/.well-known/agent-card.json" {
							calls.Add(1)
						}
						h.ServeHTTP(w, r)
					})
				}))
			before := conns.Load()
			code, out, _ := runCLI(t, "", "lint", agent.BaseURL, "--jwks", keyPath("corpus-jwks.json"), "-o", "json")
			// a partial signature is a warning (real clients accept the card); it fails
			// --require-signature when it covers no interface
			wantExit := ExitFailed
			if tc.lintCode == "" || tc.lintCode == card.CodeSignaturePartial {
				wantExit = ExitOK
			}
			if code != wantExit || tc.lintCode != "" && !strings.Contains(out, `"`+tc.lintCode+`"`) {
				t.Errorf("lint: exit %d, want %q\n%s", code, tc.lintCode, out)
			}
			if strings.Contains(out, `"signature-valid"`) && tc.lintCode != "" && tc.lintCode != card.CodeFieldNameCase {
				t.Errorf("lint reports a tampered card's signature valid:\n%s", out)
			}
			code, out, _ = runCLI(t, "", "probe", agent.BaseURL, "--jwks", keyPath("corpus-jwks.json"), "--require-signature", "-o", "json")
			if tc.delivered != (code == ExitOK) && tc.lintCode != card.CodeFieldNameCase {
				t.Errorf("probe --require-signature: exit %d\n%s", code, out)
			}
			// the fleet form verifies each card before it dials any of its interfaces
			code, out, _ = runCLI(t, agent.BaseURL+"\n", "probe", "--targets", "-", "--jwks", keyPath("corpus-jwks.json"), "--require-signature", "-o", "json")
			if tc.delivered != (code == ExitOK) && tc.lintCode != card.CodeFieldNameCase {
				t.Errorf("probe --targets --require-signature: exit %d\n%s", code, out)
			}
			if n := conns.Load() - before; n != 0 {
				t.Fatalf("probe --targets --require-signature: %d connections reached the attacker", n)
			}
			code, out, stderr := runCLI(t, "", "send", agent.BaseURL, "ping", "--jwks", keyPath("corpus-jwks.json"), "--require-signature")
			if tc.delivered != (code == ExitOK) || !tc.delivered && code != ExitUsage {
				t.Errorf("send: exit %d (delivered %v)\nstdout %s\nstderr %s", code, tc.delivered, out, stderr)
			}
			if tc.delivered != (calls.Load() > 0) {
				t.Errorf("%d calls reached the honest agent, want delivered=%v", calls.Load(), tc.delivered)
			}
			if tc.lintCode == card.CodeFieldNameCase || tc.lintCode == card.CodeMemberDuplicate {
				// guard reads the card as the others do: strict withholds both; --normalize
				// publishes the stray-member card without the stray member.
				for _, normalize := range []bool{false, true} {
					opts := []guard.Option{guard.WithListenAddr("127.0.0.1:0")}
					if normalize {
						opts = append(opts, guard.WithNormalize())
					}
					gd, err := guard.New(agent.BaseURL, opts...)
					if err != nil {
						t.Fatal(err)
					}
					if err := gd.Start(context.Background()); err != nil {
						t.Fatal(err)
					}
					st := gd.State()
					_ = gd.Shutdown(context.Background())
					wantPublished := normalize && tc.lintCode == card.CodeFieldNameCase
					if st.Published != wantPublished {
						t.Errorf("guard (normalize %v): published %v, reason %q", normalize, st.Published, st.Reason)
					}
					if wantPublished && (st.Normalized == nil || strings.Join(st.Normalized.StrayMembers, ",") != "supportedInterfaces[0].URL") {
						t.Errorf("guard --normalize: %+v, want the stray URL dropped", st.Normalized)
					}
				}
			}
			guardRequiringSignature(t, agent.BaseURL, tc.lintCode, &calls)
			if n := conns.Load() - before; n != 0 {
				t.Fatalf("%d connections reached the attacker", n)
			}
		})
	}
}

// guardRequiringSignature runs `a2abind guard --require-signature` in front of upstream
// in each mode. A card whose signature does not verify and cover what is dialled
// (lintCode signature-invalid or -partial) is withheld before any probe (/readyz says
// why), a card no two readers read alike too (repeated member; a stray member in strict
// mode only); the untampered card is published and a JSON-RPC request through the guard
// reaches the agent (calls).
func guardRequiringSignature(t *testing.T, upstream, lintCode string, calls *atomic.Int32) {
	t.Helper()
	for _, mode := range [][]string{nil, {"--normalize"}, {"--normalize", "--sign-key", keyPath("corpus-es256.private.jwk")}} {
		args := append([]string{"--upstream", upstream, "--require-signature", "--jwks", keyPath("corpus-jwks.json"),
			"--interval", "1h", "--access-log=false"}, mode...)
		base, logs, stop := guardInBackground(t, args...)
		sigRefused := lintCode == card.CodeSignatureInvalid || lintCode == card.CodeSignaturePartial
		want := lintCode == "" || lintCode == card.CodeFieldNameCase && len(mode) > 0
		status, body := httpGet(t, base+card.WellKnownPath)
		if (status == http.StatusOK) != want {
			t.Errorf("guard %v: card %d, want published %v\n%s\nlogs:\n%s", mode, status, want, body, logs)
		}
		status, body = httpGet(t, base+"/readyz")
		if sigRefused && (status != http.StatusServiceUnavailable || !strings.Contains(body, "signature")) {
			t.Errorf("guard %v: /readyz %d %q, want 503 naming the signature", mode, status, body)
		}
		if sigRefused && (!strings.Contains(logs.String(), signature.ErrNotVerified.Error()) || strings.Contains(logs.String(), `"not served"`)) {
			t.Errorf("guard %v: the log does not say the signature was refused before any probe:\n%s", mode, logs)
		}
		if lintCode == "" {
			before := calls.Load()
			resp, err := http.Post(base+lab.PathJSONRPC, "application/json",
				strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"none"}}`))
			if err != nil {
				t.Fatalf("guard %v: proxy: %v", mode, err)
			}
			_ = resp.Body.Close()
			if calls.Load() == before {
				t.Errorf("guard %v: the request through the guard (%d) did not reach the agent", mode, resp.StatusCode)
			}
		}
		if code := stop(); code != ExitOK {
			t.Errorf("guard %v exit %d\n%s", mode, code, logs)
		}
	}
}

// httpGet returns url's status and (at most 64 KiB of) body.
func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, string(b)
}
