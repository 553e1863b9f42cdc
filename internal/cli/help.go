package cli

// Help and usage text, written by a2abind rather than cobra's templates so that it fits
// the terminal: at most helpWidth columns (fewer on a narrower terminal), prose
// paragraphs reflowed, indented lines (lists, examples) kept and wrapped under their own
// text, flag usages wrapped beside the flag names, and every command listed with its
// one-line summary.

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// helpWidth is the widest help text is written, whatever the terminal: prose wider than
// 80 columns is hard to read, and 80 is the narrowest common terminal.
const helpWidth = 80

// helpWidthFor is the width of help written to w: the terminal's (or $COLUMNS) when
// narrower than helpWidth, else helpWidth.
func helpWidthFor(w io.Writer) int {
	if st := newStyle(w); st.width > 0 && st.width < helpWidth {
		return st.width
	}
	return helpWidth
}

// setHelp makes root and every command under it print help and usage with writeHelp and
// writeUsage.
func setHelp(root *cobra.Command) {
	root.SetHelpFunc(func(c *cobra.Command, _ []string) {
		writeHelp(c.OutOrStdout(), c)
	})
	root.SetUsageFunc(func(c *cobra.Command) error {
		writeUsage(c.OutOrStderr(), c)
		return nil
	})
}

// writeHelp prints c's long description (else its summary), then its usage.
func writeHelp(w io.Writer, c *cobra.Command) {
	width := helpWidthFor(w)
	text := c.Long
	if text == "" {
		text = c.Short
	}
	if text = strings.TrimRight(text, " \n"); text != "" {
		fmt.Fprintln(w, reflow(text, width))
		fmt.Fprintln(w)
	}
	if c.Runnable() || c.HasSubCommands() {
		writeUsage(w, c)
	}
}

// writeUsage prints the usage line, examples, subcommands and flags of c, as cobra's
// default usage does, wrapped to the width.
func writeUsage(w io.Writer, c *cobra.Command) {
	width := helpWidthFor(w)
	fmt.Fprint(w, "Usage:")
	if c.Runnable() {
		fmt.Fprint(w, "\n"+reflow("  "+c.UseLine(), width))
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(w, "\n  %s [command]", c.CommandPath())
	}
	if len(c.Aliases) > 0 {
		fmt.Fprint(w, "\n\nAliases:\n"+reflow("  "+c.NameAndAliases(), width))
	}
	if c.HasExample() {
		fmt.Fprint(w, "\n\nExamples:\n"+reflow(strings.TrimRight(c.Example, " \n"), width))
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprint(w, "\n\nAvailable Commands:")
		pad := 0
		for _, sub := range c.Commands() {
			pad = max(pad, len(sub.Name()))
		}
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() || sub.Name() == "help" {
				line := "  " + sub.Name() + strings.Repeat(" ", pad-len(sub.Name())+2) + sub.Short
				fmt.Fprint(w, "\n"+reflow(line, width))
			}
		}
	}
	if c.HasAvailableLocalFlags() {
		fmt.Fprint(w, "\n\nFlags:\n"+flagUsages(c.LocalFlags(), width))
	}
	if c.HasAvailableInheritedFlags() {
		fmt.Fprint(w, "\n\nGlobal Flags:\n"+flagUsages(c.InheritedFlags(), width))
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(w, "\n\nUse \"%s [command] --help\" for more information about a command.", c.CommandPath())
	}
	fmt.Fprintln(w)
}

// flagUsages lists fs's flags, usages wrapped to width beside the names.
func flagUsages(fs *pflag.FlagSet, width int) string {
	return strings.TrimRight(fs.FlagUsagesWrapped(width), " \n")
}

// reflow wraps help text to width. Lines that start at the margin form paragraphs (up to
// a blank line, or a line starting "- ") that are joined and wrapped; an indented line
// stays a line of its own and, when too long, continues under its text: after the
// first gap of two spaces or more (a list's description column), else two columns in.
// A word longer than a line is cut after a URL or identifier separator (see wrap).
func reflow(text string, width int) string {
	var out []string
	var para []string
	flush := func() {
		if len(para) == 0 {
			return
		}
		first := para[0]
		hang := 0
		if strings.HasPrefix(first, "- ") {
			hang = 2
		}
		out = append(out, hangWrap(strings.Join(para, " "), 0, hang, width)...)
		para = para[:0]
	}
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimRight(l, " ")
		switch {
		case l == "":
			flush()
			out = append(out, "")
		case l[0] == ' ' || l[0] == '\t':
			flush()
			lead := len(l) - len(strings.TrimLeft(l, " \t"))
			out = append(out, hangWrap(l[lead:], lead, hangColumn(l, lead)-lead, width)...)
		default:
			if strings.HasPrefix(l, "- ") {
				flush()
			}
			para = append(para, l)
		}
	}
	flush()
	return strings.Join(out, "\n")
}

// hangColumn is where an indented line's continuation lines start: the column after its
// first gap of two or more spaces past the first word (a list's description column),
// else two columns in from the indent.
func hangColumn(l string, lead int) int {
	rest := l[lead:]
	if sp := strings.Index(rest, " "); sp > 0 {
		after := rest[sp:]
		gap := len(after) - len(strings.TrimLeft(after, " "))
		if gap >= 2 && lead+sp+gap < helpWidth/2 {
			return lead + sp + gap
		}
	}
	return lead + 2
}

// hangWrap wraps text to width with indent spaces before the first line and indent+hang
// before the others.
func hangWrap(text string, indent, hang, width int) []string {
	first := strings.Repeat(" ", indent)
	if utf8.RuneCountInString(text)+indent <= width {
		return []string{first + text}
	}
	head := wrap(text, max(width-indent, minWidth/2))[0]
	out := []string{first + head}
	remainder := strings.TrimLeft(text[len(head):], " ")
	if remainder == "" {
		return out
	}
	rest := strings.Repeat(" ", indent+hang)
	for _, l := range wrap(remainder, max(width-indent-hang, minWidth/2)) {
		out = append(out, rest+l)
	}
	return out
}
