package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

// The README's examples are run, as docs/lint-rules.md's are by card/rules_doc_test.go.
//
// Convention: every command line of a ```sh block is an example (a line ending in "\"
// continues on the next), apart from the set-up commands in setupCommands. The comment on
// the example's line, or on the comment line just above it, says "exits N" when it does
// not exit 0. serve, guard and exporter run until stopped: the test starts one, waits
// until its listener accepts, runs the lines after it up to the next of them or the end
// of its block (the curl after the exporter), then stops it with SIGTERM and expects
// exit 0 (unless it says "exits N": then it must stop by itself with N). The addresses and files the examples name are fixtures: lab
// agents and files made by readmeFixtures stand in for them.

// setupCommands are the README lines that are not examples: the set-up commands (the test
// suite would run itself) and the install commands.
var setupCommands = []string{"go run ./cmd/a2abind demo", "./test.sh", "go install ", "go build "}

// readmeExample is one example: its command line, the block it is in and its expected
// exit status.
type readmeExample struct {
	line  string
	block int
	exit  int
}

// readmeExamples reads the examples of README.md.
func readmeExamples(t *testing.T) []readmeExample {
	t.Helper()
	var out []readmeExample
	sc := bufio.NewScanner(strings.NewReader(repoFile(t, "README.md")))
	inBlock, block, comment, cont := false, 0, "", ""
	exits := regexp.MustCompile(`exits (\d)`)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "```sh"):
			inBlock, block, comment = true, block+1, ""
			continue
		case strings.HasPrefix(line, "```"):
			inBlock = false
			continue
		case !inBlock:
			continue
		}
		if strings.HasSuffix(line, "\\") {
			cont += strings.TrimSuffix(line, "\\")
			continue
		}
		line, cont = cont+line, ""
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
			comment = ""
			continue
		case strings.HasPrefix(trimmed, "#"):
			comment = trimmed
			continue
		}
		setup := false
		for _, s := range setupCommands {
			setup = setup || strings.HasPrefix(trimmed, s)
		}
		if setup {
			continue
		}
		ex := readmeExample{line: trimmed, block: block}
		_, own, _ := strings.Cut(trimmed, " # ")
		if m := exits.FindStringSubmatch(own + " " + comment); m != nil {
			ex.exit = int(m[1][0] - '0')
		}
		out = append(out, ex)
		comment = ""
	}
	return out
}

// freeAddr is a loopback host:port nothing listens on (for a moment).
func freeAddr(t *testing.T) string {
	t.Helper()
	addr, err := lab.ClosedAddr()
	if err != nil {
		t.Fatal(err)
	}
	return addr
}

// certPEM returns the PEM of the certificate a TLS agent presents.
func certPEM(t *testing.T, addr string) []byte {
	t.Helper()
	conn, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // fetching the test certificate
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: conn.ConnectionState().PeerCertificates[0].Raw})
}

// readmeFixtures starts the agents and writes the files the examples name, in dir, and
// returns the environment and the rewriting of each example line.
func readmeFixtures(t *testing.T, dir string) (env []string, rewrite func(string) string) {
	t.Helper()
	const token = "readme-token"
	seed := labtest.Start(t, lab.Seed()...)
	healthy := labtest.Start(t, lab.Healthy()...)
	secure := labtest.Start(t, append(lab.Healthy(), lab.WithTLS(), lab.WithAuth(token))...) // https://agent.example.com
	secure2 := labtest.Start(t, append(lab.Healthy(), lab.WithTLS())...)                     // ./card.json
	drift := labtest.Start(t, lab.WithJSONRPC(card.V03, "/"), lab.WithCard(func(a *lab.Agent) any {
		return lab.V1Card("drift", lab.Decl{URL: a.BaseURL, Binding: lab.JSONRPC, Version: card.V1})
	}))

	write := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("ca.pem", append(certPEM(t, secure.HTTPAddr), certPEM(t, secure2.HTTPAddr)...))
	res, err := secure2.HTTPClient().Get(secure2.BaseURL + card.WellKnownPath)
	if err != nil {
		t.Fatal(err)
	}
	cardJSON, err := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("card of the TLS agent: %v %v", res.Status, err)
	}
	write("card.json", cardJSON)
	write("agents.txt", []byte("# two agents\n"+healthy.BaseURL+"\n"+secure2.BaseURL+"\n"))
	if err := os.Symlink(filepath.Join(repoRoot(t), "testdata"), filepath.Join(dir, "testdata")); err != nil {
		t.Fatal(err)
	}

	env = append(os.Environ(), "PATH="+filepath.Dir(imageBinary(t))+string(os.PathListSeparator)+os.Getenv("PATH"),
		"TOKEN="+token, "SSL_CERT_FILE="+filepath.Join(dir, "ca.pem"), "CURL_CA_BUNDLE="+filepath.Join(dir, "ca.pem"),
		"HOME="+dir, "XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "COLUMNS=100", "NO_COLOR=1")

	exporter := freeAddr(t)
	serveHTTP, serveGRPC, guardListen := freeAddr(t), freeAddr(t), freeAddr(t)
	port := regexp.MustCompile(`(127\.0\.0\.1)?:(8080|9090)\b`)
	rewrite = func(line string) string {
		fields := strings.Fields(line)
		cmd := ""
		if len(fields) > 1 && fields[0] == "a2abind" {
			cmd = fields[1]
		}
		r := strings.NewReplacer("http://127.0.0.1:8443", seed.BaseURL, "127.0.0.1:9115", exporter)
		line = r.Replace(line)
		switch cmd {
		case "serve":
			return port.ReplaceAllStringFunc(line, func(m string) string {
				if strings.HasSuffix(m, ":8080") {
					return serveHTTP
				}
				return serveGRPC
			})
		case "guard":
			return strings.NewReplacer("http://127.0.0.1:8080", healthy.BaseURL, "127.0.0.1:9090", healthy.GRPCAddr,
				" :8443", " "+guardListen).Replace(line)
		case "send":
			line = strings.ReplaceAll(line, "http://127.0.0.1:8080", drift.BaseURL)
		}
		return strings.ReplaceAll(line, "https://agent.example.com", secure.BaseURL)
	}
	return env, rewrite
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// daemons are the commands that run until stopped.
var daemons = map[string]bool{"serve": true, "guard": true, "exporter": true}

// TestREADMEExamples runs every example of README.md (see the convention above) and
// checks its exit status.
func TestREADMEExamples(t *testing.T) {
	examples := readmeExamples(t)
	if len(examples) < 20 {
		t.Fatalf("found %d README examples, want the 20 or more it has", len(examples))
	}
	dir := t.TempDir()
	env, rewrite := readmeFixtures(t, dir)
	var stop []func()
	stopDaemons := func() {
		for _, s := range stop {
			s()
		}
		stop = nil
	}
	defer stopDaemons()
	block := 0
	for _, ex := range examples {
		if ex.block != block {
			stopDaemons() // a daemon serves the rest of its own block only
			block = ex.block
		}
		line := rewrite(ex.line)
		fields := strings.Fields(strings.TrimSuffix(line, "&"))
		daemon := len(fields) > 1 && fields[0] == "a2abind" && daemons[fields[1]]
		if daemon {
			stopDaemons() // the previous one served the lines between; this one takes its ports
		}
		if daemon && ex.exit == 0 {
			stop = append(stop, startDaemon(t, strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(line), "&")), dir, env, ex.line))
			continue
		}
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		cmd := exec.CommandContext(ctx, "sh", "-c", line)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		cancel()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Errorf("%s: %v", ex.line, err)
			continue
		}
		if code != ex.exit {
			t.Errorf("README example exits %d, the README says %d:\n  %s\n  (run as: %s)\n%s", code, ex.exit, ex.line, line, out)
		}
		if ex.exit == 0 && len(out) == 0 && !strings.Contains(line, ">") {
			t.Errorf("README example printed nothing: %s", ex.line)
		}
	}
}

// startDaemon starts line (serve, guard or exporter), waits until the address of its
// --http or --listen flag accepts connections, and returns how to stop it: SIGTERM, then
// it must exit 0 within 15 s.
func startDaemon(t *testing.T, line, dir string, env []string, orig string) func() {
	t.Helper()
	m := regexp.MustCompile(`--(?:http|listen)[ =](\S+)`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("README example %q: a daemon without --http or --listen; the test cannot tell when it is up", orig)
	}
	cmd := exec.Command("sh", "-c", "exec "+line)
	cmd.Dir, cmd.Env = dir, env
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", m[1], time.Second)
		if err == nil {
			_ = c.Close()
			break
		}
		select {
		case err := <-done:
			t.Fatalf("README example %q stopped before it listened: %v\n%s", orig, err, out.String())
		default:
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-done
			t.Fatalf("README example %q did not listen on %s within 60 s\n%s", orig, m[1], out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("README example %q: after SIGTERM: %v\n%s", orig, err, out.String())
			}
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			t.Errorf("README example %q did not stop within 15 s of SIGTERM\n%s", orig, out.String())
		}
	}
}

// TestREADMEConvention: the reader finds every command the README documents as a
// command, and the markers say what they mean.
func TestREADMEConvention(t *testing.T) {
	var lines []string
	for _, ex := range readmeExamples(t) {
		lines = append(lines, fmt.Sprintf("%d %s", ex.exit, ex.line))
	}
	all := strings.Join(lines, "\n")
	for _, want := range []string{
		"1 a2abind lint testdata/cards/seed-v03.json",
		"0 a2abind lint testdata/cards/v1-healthy.json",
		"1 a2abind probe http://127.0.0.1:8443 ",
		"0 a2abind guard --upstream http://127.0.0.1:8080 --listen :8443 --normalize   --probe-via",
		"0 curl -s 'http://127.0.0.1:9115/probe",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("examples lack %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "./test.sh") || strings.Contains(all, "go run ./cmd/a2abind demo") {
		t.Errorf("set-up commands taken as examples:\n%s", all)
	}
}

// TestREADMEFacts: what the README states about the build and the taxonomy follows the
// code: the a2a-go release go.mod requires, every outcome probe can report, and the
// number of client profiles in its example summaries.
func TestREADMEFacts(t *testing.T) {
	readme := repoFile(t, "README.md")
	sdk := regexp.MustCompile(`(?m)^\s*github\.com/a2aproject/a2a-go/v2 (v\S+)`).FindStringSubmatch(repoFile(t, "go.mod"))
	if sdk == nil || !strings.Contains(readme, "SDK ("+sdk[1]+")") {
		t.Errorf("the README does not name the a2a-go release go.mod requires (%v)", sdk)
	}
	_, probeSection, _ := strings.Cut(readme, "\n### probe\n")
	probeSection, _, _ = strings.Cut(probeSection, "\n### ")
	for _, o := range wire.Outcomes() {
		if o == wire.AgentError || o == wire.Ambiguous { // send's outcomes, not probe's
			continue
		}
		if !strings.Contains(probeSection, "`"+string(o)+"`") {
			t.Errorf("the README's probe section does not list the outcome %q", o)
		}
	}
	counts := regexp.MustCompile(`of (\d+) client profiles`).FindAllStringSubmatch(readme, -1)
	if len(counts) == 0 {
		t.Fatal("the README shows no client-profile count")
	}
	for _, m := range counts {
		if m[1] != strconv.Itoa(len(probe.Profiles())) {
			t.Errorf("the README says %q; probe has %d client profiles", m[0], len(probe.Profiles()))
		}
	}
}
