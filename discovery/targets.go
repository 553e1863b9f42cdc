package discovery

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/addr"
)

// Bounds on a targets file.
const (
	// MaxTargets is the most targets a targets file may list.
	MaxTargets = 100_000
	// MaxTargetLine is the longest line of a targets file, in bytes.
	MaxTargetLine = 8 << 10
)

// FileTarget is one target of a targets file, with the line it is on.
type FileTarget struct {
	URL  string
	Line int
}

// ReadTargets reads a targets file named name from r: one http:// or https:// URL per
// line, blank lines and lines starting with "#" skipped, surrounding spaces trimmed.
// A line that is not such a URL is an error naming it ("NAME line N: ..."): a targets
// file must not make a2abind read the local files it names. An empty file is an error.
func ReadTargets(name string, r io.Reader) ([]FileTarget, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), MaxTargetLine)
	var targets []FileTarget
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
			continue
		case line == "-":
			return nil, fmt.Errorf("%s line %d: \"-\" (standard input) cannot be a target in a targets file", name, n)
		case strings.ContainsFunc(line, unicode.IsControl):
			return nil, fmt.Errorf("%s line %d: control character in %q", name, n, line)
		case len(targets) == MaxTargets:
			return nil, fmt.Errorf("%s: more than %d targets; split the file", name, MaxTargets)
		}
		if err := CheckTargetURL(line); err != nil {
			return nil, fmt.Errorf("%s line %d: %w (a targets file lists agents' URLs; probe a card file with \"a2abind probe FILE\")", name, n, err)
		}
		targets = append(targets, FileTarget{URL: line, Line: n})
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = fmt.Errorf("a line is longer than %d bytes", MaxTargetLine)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(targets) == 0 {
		return nil, fmt.Errorf("%s: no target in it (one agent base URL or card URL per line)", name)
	}
	return targets, nil
}

// CheckTargetURL accepts an http:// or https:// URL with a host and without
// user:password@ (the scheme in lower case, as card.Load reads anything else as a file
// path). It is the one rule of what a listed or requested target may be: targets
// files, catalog entries and the exporter's /probe.
func CheckTargetURL(target string) error {
	_, err := targetAddress(target)
	return err
}

// targetAddress is CheckTargetURL answering the address it parsed, so that a caller
// that goes on to check it (CheckURL) does not parse it again.
func targetAddress(target string) (addr.Address, error) {
	if !strings.HasPrefix(target, "http://") && !strings.HasPrefix(target, "https://") {
		return addr.Address{}, fmt.Errorf("%q is not an http:// or https:// URL", target)
	}
	a, err := addr.ParseAddress(target, a2a.TransportProtocolJSONRPC)
	if err != nil {
		return addr.Address{}, err
	}
	if a.UserInfo {
		return addr.Address{}, fmt.Errorf("%q carries user information (user:password@); give credentials as headers", a.Rewrite("", a.HostPort()))
	}
	return a, nil
}
