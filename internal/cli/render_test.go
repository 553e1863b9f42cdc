package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/rivo/uniseg"

	"github.com/a2abind/a2abind/internal/wording"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

func TestEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text, spaces and ünïcode", "plain text, spaces and ünïcode"},
		{"\x1b[2Jcleared", `\x1b[2Jcleared`},
		{"nul\x00byte", `nul\x00byte`},
		{"over\rwrite", `over\rwrite`},
		{"two\nlines\ttab", `two\nlines\ttab`},
		{"del\x7f c1\u009b", `del\x7f c1\u009b`},
		{"bidi \u202egnp.exe", `bidi \u202egnp.exe`},
		{"zero\u200bwidth", `zero\u200bwidth`},
		{"bad \xff utf8", `bad \xff utf8`},
	}
	for _, tt := range tests {
		if got := wording.Escape(tt.in); got != tt.want {
			t.Errorf("wording.Escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestWrap(t *testing.T) {
	tests := []struct {
		text  string
		width int
		want  []string
	}{
		{"short", 10, []string{"short"}},
		{"no limit at all here", 0, []string{"no limit at all here"}},
		{"one two three four", 9, []string{"one two", "three", "four"}},
		{"http://127.0.0.1:45015/a2a/jsonrpc", 20, []string{"http://127.0.0.1:", "45015/a2a/jsonrpc"}},
		{"abcdefghijklmnopqrstuvwxyz", 10, []string{"abcdefghij", "klmnopqrst", "uvwxyz"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, wrap(tt.text, tt.width)); diff != "" {
			t.Errorf("wrap(%q, %d) (-want +got):\n%s", tt.text, tt.width, diff)
		}
	}
}

// TestTableCutsWordsAtSeparators: the seed's probe table at 80 columns, where the source
// column once came out as "url+preferredTranspo" / "rt". A word too long for its column
// is cut after a separator when it has one.
func TestTableCutsWordsAtSeparators(t *testing.T) {
	rows := [][]string{
		{"INTERFACE", "DECLARED", "OUTCOME", "REALLY THERE", "LATENCY"},
		{"url+preferredTransport", "GRPC 0.3 at http://127.0.0.1:41791", "wrong_binding", "JSONRPC 0.3", "5.6ms"},
		{"additionalInterfaces[1]", "GRPC 0.3 at 127.0.0.1:39961", "handler_missing", "GRPC, no A2A service", "47.3ms"},
	}
	for _, width := range []int{80, 60} {
		var text strings.Builder
		for _, lines := range (style{width: width}).tableLines(2, rows, nil) {
			for _, l := range lines {
				text.WriteString(l + "\n")
				if n := utf8.RuneCountInString(l); n > width {
					t.Errorf("width %d: line of %d runes: %q", width, n, l)
				}
			}
		}
		var cells []string
		for _, r := range rows {
			cells = append(cells, r...)
		}
		if missing := unbroken(cells, text.String(), 20); len(missing) > 0 {
			t.Errorf("width %d: cut mid-word: %q\n%s", width, missing, text.String())
		}
	}
	// A piece with no separator, longer than any column can be, is still cut at the width.
	got := wrap("abcdefghijklmnopqrstuvwxyz", 10)
	if diff := cmp.Diff([]string{"abcdefghij", "klmnopqrst", "uvwxyz"}, got); diff != "" {
		t.Error(diff)
	}
}

func TestTableShrinksToWidth(t *testing.T) {
	rows := [][]string{
		{"NAME", "DECLARED", "OUTCOME"},
		{"supportedInterfaces[0]", "HTTP+JSON 1.0 at https://agent.example.com/a/very/long/path/to/the/rest/interface", "served"},
	}
	got := style{width: 50}.tableLines(2, rows, nil)
	want := [][]string{
		{"  NAME                    DECLARED         OUTCOME"},
		{
			"  supportedInterfaces[0]  HTTP+JSON 1.0    served",
			"                          at",
			"                          https://agent.",
			"                          example.com/a/",
			"                          very/long/path/",
			"                          to/the/rest/",
			"                          interface",
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tableLines at 50 columns (-want +got):\n%s", diff)
	}
	// Unlimited: one line per row.
	if got := (style{}).tableLines(0, rows, nil); len(got[1]) != 1 {
		t.Errorf("no width: row 1 has %d lines, want 1", len(got[1]))
	}
}

// squeeze drops all white space, so wrapped text compares equal to the unwrapped original.
func squeeze(s string) string { return strings.Join(strings.Fields(s), "") }

// TestProbeTextFitsTheWidth renders the seed agent's probe report at 80 and 120 columns:
// no line is longer, and every interface's evidence and every client's note is there in
// full, only wrapped.
func TestProbeTextFitsTheWidth(t *testing.T) {
	a := labtest.Start(t, lab.Seed()...)
	_, js, _ := runCLI(t, "", "probe", a.BaseURL, "-o", "json", "--timeout", "10s")
	var out probeOutput
	if err := json.Unmarshal([]byte(js), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Interfaces) != 3 || len(out.Clients) == 0 {
		t.Fatalf("probe -o json: %d interfaces, %d clients, want 3 and some", len(out.Interfaces), len(out.Clients))
	}
	for _, width := range []int{80, 120} {
		t.Run("COLUMNS="+itoa(width), func(t *testing.T) {
			t.Setenv("COLUMNS", itoa(width))
			code, stdout, stderr := runCLI(t, "", "probe", a.BaseURL, "--timeout", "10s")
			if code != ExitFailed {
				t.Fatalf("probe = %d, want 1; stderr %s", code, stderr)
			}
			longest := 0
			for _, l := range strings.Split(stdout, "\n") {
				longest = max(longest, utf8.RuneCountInString(l))
				if utf8.RuneCountInString(l) > width {
					t.Errorf("line of %d runes at width %d: %q", utf8.RuneCountInString(l), width, l)
				}
			}
			if longest < width-20 {
				t.Errorf("longest line %d runes at width %d: the text does not use the width", longest, width)
			}
			var cells []string
			for _, i := range out.Interfaces {
				cells = append(cells, i.Source, i.URL, string(i.Outcome), i.Detail)
			}
			for _, c := range out.Clients {
				cells = append(cells, c.Profile, string(c.Outcome), c.Note)
			}
			if missing := unbroken(cells, stdout, 20); len(missing) > 0 {
				t.Errorf("pieces cut mid-word at width %d: %q\n%s", width, missing, stdout)
			}
			all := squeeze(stdout)
			for _, i := range out.Interfaces {
				if !strings.Contains(all, squeeze(i.Detail)) {
					t.Errorf("evidence of %s is not in the text in full:\n%s", i.URL, i.Detail)
				}
			}
			for _, c := range out.Clients {
				if !strings.Contains(all, squeeze(c.Note)) {
					t.Errorf("note of %s is not in the text in full:\n%s", c.Profile, c.Note)
				}
			}
		})
	}
	// Piped with no $COLUMNS: no wrapping, the evidence is one line.
	t.Setenv("COLUMNS", "")
	_, stdout, _ := runCLI(t, "", "probe", a.BaseURL, "--timeout", "10s")
	if !strings.Contains(stdout, "      "+out.Interfaces[0].Detail+"\n") {
		t.Errorf("without a width the evidence is wrapped:\n%s", stdout)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// controlCharsCard names an agent and its interfaces with terminal control sequences: ESC
// (clear screen, a colour), NUL, CR (overwrite the line), a bidi override.
const controlCharsCard = `{"name": "evil\u001b[2J\u0000agent\r", "description": "d", "version": "1",
 "capabilities": {}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"], "skills": [{"id": "s"}],
 "supportedInterfaces": [
  {"url": "http://127.0.0.1:1/\u001b[31mred\u0000\rok", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
  {"url": "127.0.0.1:1\u001b]0;title\u0007", "protocolBinding": "GRPC\u001b[8m", "protocolVersion": "1.0\r"},
  {"url": "http://127.0.0.1:1/\u202eexe.txt", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}]}`

// rawControl reports the first control byte (other than newline) in s.
func rawControl(s string) (byte, bool) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\n') || c == 0x7f {
			return c, true
		}
	}
	if strings.Contains(s, "\u202e") {
		return 0xe2, true
	}
	return 0, false
}

// TestTextOutputEscapesCardText runs lint and probe text output on a card whose name,
// URLs and bindings carry control characters: none reaches the output raw.
func TestTextOutputEscapesCardText(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hostile.json")
	if err := os.WriteFile(path, []byte(controlCharsCard), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(controlCharsCard))
	}))
	t.Cleanup(srv.Close)

	for _, args := range [][]string{
		{"lint", path},
		{"lint", srv.URL},
		{"probe", path, "--timeout", "5s"},
		{"probe", srv.URL, "--timeout", "5s"},
	} {
		for _, width := range []string{"", "80"} {
			t.Run(strings.Join(args[:1], " ")+" "+filepath.Base(args[1])+" COLUMNS="+width, func(t *testing.T) {
				t.Setenv("COLUMNS", width)
				code, stdout, stderr := runCLI(t, "", args...)
				if code == ExitUsage {
					t.Fatalf("%v = 2, stderr %s", args, stderr)
				}
				if c, bad := rawControl(stdout + stderr); bad {
					t.Errorf("%v printed raw control byte %#x:\n%q", args, c, stdout+stderr)
				}
				for _, want := range []string{`evil\x1b[2J\x00agent\r`, `\x1b[31mred`} {
					if !strings.Contains(squeeze(stdout), squeeze(want)) {
						t.Errorf("%v output lacks the escaped %q:\n%s", args, want, stdout)
					}
				}
			})
		}
	}
}

// FuzzRender checks escape and wrap on arbitrary text: no control byte survives
// escaping, no wrapped line is longer than the width, and wrapping only moves spaces.
func FuzzRender(f *testing.F) {
	f.Add("plain words here", 10)
	f.Add("\x1b[2J\x00\r\n\t\u202e\xff http://127.0.0.1:45015/a2a/jsonrpc", 12)
	f.Add("", 1)
	f.Fuzz(func(t *testing.T, text string, width int) {
		e := wording.Escape(text)
		if c, bad := rawControl(e); bad || strings.Contains(e, "\n") {
			t.Fatalf("wording.Escape(%q) = %q keeps control byte %#x", text, e, c)
		}
		if !utf8.ValidString(e) {
			t.Fatalf("wording.Escape(%q) = %q is not valid UTF-8", text, e)
		}
		width = width%200 + 1
		if width < 1 {
			width = -width + 1
		}
		lines := wrap(e, width)
		for _, l := range lines {
			if utf8.RuneCountInString(l) > width {
				t.Fatalf("wrap(%q, %d) line %q is longer", e, width, l)
			}
		}
		if squeeze(strings.Join(lines, "")) != squeeze(e) {
			t.Fatalf("wrap(%q, %d) = %q changed the text", e, width, lines)
		}
	})
}

// TestSendTextEscapesTheAnswer: an agent's answer (here the echo of a text carrying ESC,
// CR and a bidi override) reaches the terminal escaped, line breaks kept.
func TestSendTextEscapesTheAnswer(t *testing.T) {
	a := labtest.Start(t, lab.Healthy()...)
	code, stdout, stderr := runCLI(t, "", "send", a.BaseURL, "line one\x1b[2J\rover\u202e\nline two", "--no-cache", "--timeout", "10s")
	if code != ExitOK {
		t.Fatalf("send = %d, stderr %s", code, stderr)
	}
	if c, bad := rawControl(stdout); bad {
		t.Errorf("send printed raw control byte %#x:\n%q", c, stdout)
	}
	if !strings.Contains(stdout, `line one\x1b[2J\rover\u202e`+"\n") || !strings.Contains(stdout, "line two\n") {
		t.Errorf("send stdout = %q, want the answer escaped, one line per line", stdout)
	}
}

// TestHugeCellsStayBounded: a 512 KiB URL and 10,000 rows render at 80 columns with no
// line longer than the width (the shrink and wrap work is linear in the text).
func TestHugeCellsStayBounded(t *testing.T) {
	rows := [][]string{{"INTERFACE", "DECLARED", "OUTCOME"}, {"supportedInterfaces[0]", "JSONRPC 1.0 at http://h/" + strings.Repeat("a/", 256<<10), "refused"}}
	for i := range 10000 {
		rows = append(rows, []string{"supportedInterfaces[" + itoa(i+1) + "]", "GRPC 1.0 at h:1", "refused"})
	}
	lines := 0
	for _, group := range (style{width: 80}).tableLines(2, rows, nil) {
		for _, l := range group {
			lines++
			if utf8.RuneCountInString(l) > 80 {
				t.Fatalf("line of %d runes", utf8.RuneCountInString(l))
			}
		}
	}
	if lines < 10000+2 {
		t.Errorf("%d lines, want at least one per row", lines)
	}
}

// TestTableAlignsWideCharacters: CJK and emoji names take two terminal columns each and
// combining marks none, so columns after them start at one display column on every
// line, and wrapped cells stay within the width, never cutting a grapheme cluster.
func TestTableAlignsWideCharacters(t *testing.T) {
	rows := [][]string{
		{"NAME", "OUTCOME", "LATENCY"},
		{"订单代理", "served", "1ms"},
		{"🤖 agent 👩‍💻", "wrong_binding", "2ms"},
		{"café", "served", "3ms"},
		{"plain-agent", "blocked", "4ms"},
	}
	for _, width := range []int{0, 24} {
		lines := style{width: width}.tableLines(0, rows, nil)
		col := -1
		for _, row := range lines {
			l := row[0]
			i := strings.Index(l, "  ")
			for i >= 0 && i+2 < len(l) && l[i+2] == ' ' {
				i++
			}
			at := uniseg.StringWidth(l[:i+2])
			if col == -1 {
				col = at
			}
			if at != col {
				t.Errorf("width %d: second column at display column %d, want %d:\n%q", width, at, col, l)
			}
			for _, part := range row {
				if width > 0 && uniseg.StringWidth(part) > width {
					t.Errorf("width %d: line %q is %d columns wide", width, part, uniseg.StringWidth(part))
				}
				if !utf8.ValidString(part) || strings.Contains(part, "\u200d ") {
					t.Errorf("a grapheme cut: %q", part)
				}
			}
		}
	}
	if got := wrap("订单代理订单代理", 5); !slices.Equal(got, []string{"订单", "代理", "订单", "代理"}) {
		t.Errorf("wrap of CJK at 5 columns = %q", got)
	}
}
