package cli

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// allCommands walks the command tree under root, root included.
func allCommands(root *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{root}
	for _, c := range root.Commands() {
		out = append(out, allCommands(c)...)
	}
	return out
}

// unbroken reports the pieces of the texts that no line of out holds whole. A piece is
// what a word may be cut into where it has a break point: a run of characters up to and
// including a separator (url+ / preferredTransport). Pieces longer than maxPiece are
// skipped (they must be cut somewhere).
func unbroken(texts []string, out string, maxPiece int) []string {
	lines := strings.Split(out, "\n")
	var missing []string
	seen := map[string]bool{}
	for _, text := range texts {
		for _, word := range strings.Fields(text) {
			for _, piece := range splitPieces(word) {
				if seen[piece] || utf8.RuneCountInString(piece) > maxPiece {
					continue
				}
				seen[piece] = true
				found := false
				for _, l := range lines {
					if strings.Contains(l, piece) {
						found = true
						break
					}
				}
				if !found {
					missing = append(missing, piece)
				}
			}
		}
	}
	return missing
}

// splitPieces cuts word after each separator.
func splitPieces(word string) []string {
	var out []string
	start := 0
	for i, r := range word {
		if strings.ContainsRune(separators, r) {
			out = append(out, word[start:i+1])
			start = i + 1
		}
	}
	if start < len(word) {
		out = append(out, word[start:])
	}
	return out
}

// TestHelpFitsEightyColumns renders the help of every command (completion and help
// included) as a user with a wide terminal, an 80-column one and a pipe sees it: no line
// is longer than 80 runes, and no word of the description, examples or flag usages is
// broken where a break point exists.
func TestHelpFitsEightyColumns(t *testing.T) {
	root := newRootCmd(strings.NewReader(""), new(strings.Builder), new(strings.Builder))
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	cmds := allCommands(root)
	if len(cmds) < 16 {
		t.Fatalf("only %d commands in the tree", len(cmds))
	}
	for _, columns := range []string{"", "80", "200"} {
		for _, c := range cmds {
			path := strings.Fields(c.CommandPath())[1:]
			t.Run(strings.Join(append([]string{"COLUMNS=" + columns}, path...), "_"), func(t *testing.T) {
				t.Setenv("COLUMNS", columns)
				code, out, stderr := runCLI(t, "", append(path, "--help")...)
				if code != ExitOK {
					t.Fatalf("--help = %d; stderr %s", code, stderr)
				}
				for _, l := range strings.Split(out, "\n") {
					if n := utf8.RuneCountInString(l); n > helpWidth {
						t.Errorf("line of %d runes: %q", n, l)
					}
				}
				texts := []string{c.Long, c.Example}
				if c.Long == "" {
					texts = append(texts, c.Short)
				}
				for _, sub := range c.Commands() {
					texts = append(texts, sub.Short) // in the list of commands
				}
				c.Flags().VisitAll(func(f *pflag.Flag) { texts = append(texts, f.Usage) })
				if missing := unbroken(texts, out, helpWidth/2); len(missing) > 0 {
					t.Errorf("pieces broken or missing in the help: %q\n%s", missing, out)
				}
			})
		}
	}
}

// TestHelpNarrowTerminal: on a 60-column terminal help follows the terminal.
func TestHelpNarrowTerminal(t *testing.T) {
	t.Setenv("COLUMNS", "60")
	_, out, _ := runCLI(t, "", "probe", "--help")
	for _, l := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(l); n > 60 {
			t.Errorf("line of %d runes at 60 columns: %q", n, l)
		}
	}
}

// TestRootHelpListsEveryCommand: the root help names every command, each at the start
// of its own line with its summary, and says how to get shell completion.
func TestRootHelpListsEveryCommand(t *testing.T) {
	root := newRootCmd(strings.NewReader(""), new(strings.Builder), new(strings.Builder))
	_, out, _ := runCLI(t, "", "--help")
	names := 0
	for _, c := range root.Commands() {
		if c.Hidden {
			continue
		}
		names++
		if !strings.Contains(out, "\n  "+c.Name()+"  ") {
			t.Errorf("root help does not list %q:\n%s", c.Name(), out)
		}
	}
	for _, want := range []string{"sign", "completion", "probe", "send", "serve", "guard", "exporter", "demo", "lint"} {
		if !strings.Contains(out, "\n  "+want+" ") {
			t.Errorf("root help does not list %q", want)
		}
	}
	if !strings.Contains(out, "a2abind completion bash") {
		t.Errorf("root help does not say how to get shell completion:\n%s", out)
	}
	if names < 9 {
		t.Errorf("only %d commands registered", names)
	}
}

func TestReflow(t *testing.T) {
	text := "A paragraph that is long enough to need wrapping at this width.\n" +
		"Its second line joins the first.\n\n" +
		"  lint    a list item whose description is too long for one line\n" +
		"- a dash item\n  that continues"
	want := "A paragraph that is long enough to need\n" +
		"wrapping at this width. Its second line\n" +
		"joins the first.\n\n" +
		"  lint    a list item whose description\n" +
		"          is too long for one line\n" +
		"- a dash item\n" +
		"  that continues"
	if got := reflow(text, 40); got != want {
		t.Errorf("reflow at 40:\n%s\nwant:\n%s", got, want)
	}
}

// runCmdF builds a command with newCmd(g, runF) under a root with the global flags,
// runs it with args (the command's name first is added) and returns the exit status and
// standard error, as run does. It is how each command's flags are tested without an agent.
func runCmdF[O any](t *testing.T, newCmd func(*globals, func(*O) error) *cobra.Command, runF func(*O) error, args ...string) (int, string) {
	t.Helper()
	var stdout, stderr strings.Builder
	g := &globals{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr}
	var name string
	root := newRoot(g, []func(*globals) *cobra.Command{func(g *globals) *cobra.Command {
		c := newCmd(g, runF)
		name = c.Name()
		return c
	}})
	root.SetArgs(append([]string{name}, args...))
	return exitCode(root.ExecuteContext(t.Context()), &stderr), stderr.String()
}

// TestHelpKeepsQuotesAndDefaultsWhole: at 80 columns no example line cuts a quoted
// argument in two (a user pastes it), and no flag usage says its default twice (pflag
// appends "(default X)" itself).
func TestHelpKeepsQuotesAndDefaultsWhole(t *testing.T) {
	t.Setenv("COLUMNS", "80")
	root := newRootCmd(strings.NewReader(""), new(strings.Builder), new(strings.Builder))
	for _, c := range allCommands(root) {
		path := strings.Fields(c.CommandPath())[1:]
		_, out, _ := runCLI(t, "", append(path, "--help")...)
		if _, ex, ok := strings.Cut(out, "\nExamples:\n"); ok {
			ex, _, _ = strings.Cut(ex, "\n\n"+"Flags:")
			for _, l := range strings.Split(ex, "\n") {
				if strings.Count(l, `"`)%2 != 0 {
					t.Errorf("%s: an example line cuts a quoted argument: %q", c.CommandPath(), l)
				}
			}
		}
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if strings.Contains(f.Usage, "default") && f.DefValue != "" && f.DefValue != "0" && f.DefValue != "false" && f.DefValue != "[]" {
				t.Errorf("%s --%s: the usage names a default and pflag adds (default %s): %q", c.CommandPath(), f.Name, f.DefValue, f.Usage)
			}
		})
	}
}
