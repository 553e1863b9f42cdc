package main

import (
	"bufio"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// repoFile reads a file at the repository root.
func repoFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// dockerfile is what the tests read from the Dockerfile.
type dockerfile struct {
	froms      []string          // the image of each FROM, in order
	args       map[string]string // ARG defaults
	build      string            // the RUN command with "go build"
	copyFrom   [2]string         // COPY --from=build SRC DST
	entrypoint string            // the first element of ENTRYPOINT
}

func parseDockerfile(t *testing.T, text string) dockerfile {
	t.Helper()
	d := dockerfile{args: map[string]string{}}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasSuffix(line, "\\") {
			t.Fatalf("Dockerfile: continuation lines are not read by this test: %q", line)
		}
		instr, rest, _ := strings.Cut(line, " ")
		switch strings.ToUpper(instr) {
		case "FROM":
			d.froms = append(d.froms, strings.Fields(rest)[0])
		case "ARG":
			k, v, _ := strings.Cut(rest, "=")
			d.args[k] = v
		case "RUN":
			if strings.Contains(rest, "go build") {
				d.build = rest
			}
		case "COPY":
			if f := strings.Fields(rest); len(f) == 3 && strings.HasPrefix(f[0], "--from=") {
				d.copyFrom = [2]string{f[1], f[2]}
			}
		case "ENTRYPOINT":
			m := regexp.MustCompile(`^\["([^"]+)"`).FindStringSubmatch(rest)
			if m == nil {
				t.Fatalf("Dockerfile: ENTRYPOINT %q is not in exec form", rest)
			}
			d.entrypoint = m[1]
		}
	}
	return d
}

// TestDockerfile: no container engine runs here, so the test reads the Dockerfile and
// builds the binary with its own "go build" line, as its build stage does, then checks
// that the binary is static (no ELF interpreter, no shared library: it runs on
// distroless/static or scratch) and works. The stages are checked too: the Go image
// matches go.mod, the final stage has no libc, and the binary copied is the one built
// and the one run.
func TestDockerfile(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the image is linux; the static check reads ELF")
	}
	d := parseDockerfile(t, repoFile(t, "Dockerfile"))
	goMod := regexp.MustCompile(`(?m)^go (\S+)$`).FindStringSubmatch(repoFile(t, "go.mod"))
	if len(d.froms) < 2 || goMod == nil || d.froms[0] != "golang:"+goMod[1] {
		t.Fatalf("stages %v: want a golang:%v build stage first, then the final stage", d.froms, goMod)
	}
	final := d.froms[len(d.froms)-1]
	if final != "scratch" && !strings.HasPrefix(final, "gcr.io/distroless/static") {
		t.Errorf("final stage %s: want scratch or gcr.io/distroless/static (no libc)", final)
	}
	if !strings.HasPrefix(d.build, "CGO_ENABLED=0 go build ") {
		t.Fatalf("build line %q: want CGO_ENABLED=0 go build ...", d.build)
	}
	out := regexp.MustCompile(`-o (\S+)`).FindStringSubmatch(d.build)
	if out == nil || d.copyFrom[0] != out[1] || d.entrypoint != d.copyFrom[1] {
		t.Fatalf("built %v, copied %v, run %q: want one binary all the way", out, d.copyFrom, d.entrypoint)
	}

	bin := imageBinary(t)
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("the binary has an ELF interpreter: it is dynamically linked and will not start on distroless/static")
		}
	}
	if libs, err := f.ImportedLibraries(); err != nil || len(libs) > 0 {
		t.Errorf("the binary needs shared libraries %v (%v)", libs, err)
	}
	version, err := exec.CommandContext(t.Context(), bin, "version").Output()
	if err != nil || !strings.HasPrefix(string(version), "a2abind "+d.args["VERSION"]+" (a2a-go v2.") {
		t.Errorf("a2abind version = %q, %v; want the ARG VERSION and the a2a-go version", version, err)
	}
}

var (
	buildOnce sync.Once
	buildBin  string
	buildErr  error
	buildDir  string
)

// imageBinary builds a2abind with the Dockerfile's own "go build" line (its -o path
// replaced by a temporary file), once per test run, and returns the binary: the one the
// image ships, which the README examples run too.
func imageBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		text, err := os.ReadFile(filepath.Join("..", "..", "Dockerfile"))
		if err != nil {
			buildErr = err
			return
		}
		d := parseDockerfile(t, string(text))
		out := regexp.MustCompile(`-o (\S+)`).FindStringSubmatch(d.build)
		if out == nil {
			buildErr = fmt.Errorf("the Dockerfile's build line %q has no -o", d.build)
			return
		}
		if buildDir, buildErr = os.MkdirTemp("", "a2abind-image-"); buildErr != nil {
			return
		}
		buildBin = filepath.Join(buildDir, "a2abind")
		cmd := exec.Command("sh", "-c", strings.Replace(d.build, "-o "+out[1], "-o "+buildBin, 1))
		cmd.Dir = filepath.Join("..", "..")
		cmd.Env = os.Environ()
		for k, v := range d.args {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		if b, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("the Dockerfile's build line: %v\n%s", err, b)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildBin
}

// TestMain removes the binary imageBinary built.
func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// TestDockerignore: the build context leaves out the npm packages and the git history.
func TestDockerignore(t *testing.T) {
	ignore := repoFile(t, ".dockerignore")
	for _, want := range []string{".git", ".cache", "**/node_modules"} {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(want) + `$`).MatchString(ignore) {
			t.Errorf(".dockerignore lacks %s", want)
		}
	}
}

// TestLicense: the repository is under the Apache License 2.0, as the A2A SDKs are, in
// full (the terms and the appendix).
func TestLicense(t *testing.T) {
	l := repoFile(t, "LICENSE")
	for _, want := range []string{"Apache License", "Version 2.0, January 2004", "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION",
		"9. Accepting Warranty or Additional Liability.", "END OF TERMS AND CONDITIONS", "APPENDIX: How to apply the Apache License to your work."} {
		if !strings.Contains(l, want) {
			t.Errorf("LICENSE lacks %q", want)
		}
	}
	if n := strings.Count(l, "\n"); n < 200 {
		t.Errorf("LICENSE has %d lines; the Apache License 2.0 has 201", n)
	}
}
